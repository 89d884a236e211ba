/**
 * A browser app that makes one call: what an application pays to use the SDK at all.
 * Bundled by bench/bundle.ts from the built package, as a bundler resolves `@secrets-vault/sdk`.
 */
import { SecretsVault } from '@secrets-vault/sdk';

const client = new SecretsVault({ baseUrl: `${location.origin}/api`, token: 'sv_browser_token' });
const vault = await client.vaults.get('vlt_123');
document.title = vault.name;
