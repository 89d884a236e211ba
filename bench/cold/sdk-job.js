/**
 * Cold start, SDK: import the package, build a client, load a vault's 500 values, exit.
 * run.ts times this whole process; the server's URL comes from BENCH_BASE_URL. Plain
 * JavaScript, as a deployed job runs: a .ts file would add Node's type stripping to each run.
 * It imports the package by name, so Node resolves it as an application would (the `node` build).
 */
import { SecretsVault } from '@secrets-vault/sdk';

const { BENCH_BASE_URL, BENCH_TOKEN, BENCH_VAULT_ID } = process.env;
const client = new SecretsVault({ baseUrl: BENCH_BASE_URL, token: BENCH_TOKEN });
const config = await client.secrets.load(BENCH_VAULT_ID ?? '');
if (Object.keys(config).length !== 500) throw new Error('expected 500 secrets');
