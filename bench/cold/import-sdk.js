/** Import cost, SDK: a process that only imports the package (compared with empty.js). */
import { SecretsVault } from '@secrets-vault/sdk';

if (typeof SecretsVault !== 'function') throw new Error('no SecretsVault export');
