/**
 * `npm run demo`: serves the bundled mock over HTTP on 127.0.0.1, stocks a vault as an operator
 * would, then runs examples/startup-job.ts as its own process, the way a deployed job starts:
 * base URL, token and vault id come from its environment. Exits with the job's exit code.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { SecretsVault } from '@secrets-vault/sdk';
import { createVaultMock } from '@secrets-vault/sdk/mock';
import { serveVaultMock } from '@secrets-vault/sdk/mock/node';

const mock = createVaultMock();
const served = await serveVaultMock(mock);
console.log(`Secrets Vault mock listening on ${served.url}`);

try {
  const operator = new SecretsVault({ baseUrl: served.url, token: mock.principals.owner.token });
  const vault = await operator.vaults.create({ name: 'checkout-service' });
  await operator.secrets.create(vault.id, {
    name: 'database',
    type: 'login',
    value: { host: 'db.internal', username: 'checkout', password: 'demo-password-not-real' },
  });
  await operator.secrets.create(vault.id, {
    name: 'stripe',
    type: 'api_key',
    value: { api_key: 'sk_test_demo_not_real' },
  });
  await operator.secrets.create(vault.id, {
    name: 'session',
    value: { signing_key: 'demo-signing-key-not-real' },
  });
  console.log(`Stocked vault ${vault.name} (${vault.id}) with 3 secrets; starting the job…\n`);

  const job = spawn(
    process.execPath,
    [fileURLToPath(new URL('./startup-job.ts', import.meta.url))],
    {
      stdio: 'inherit',
      env: {
        ...process.env,
        SECRETS_VAULT_BASE_URL: served.url,
        SECRETS_VAULT_TOKEN: mock.principals.adminKey.token,
        VAULT_ID: vault.id,
      },
    },
  );
  const exitCode = await new Promise<number>((resolve, reject) => {
    job.once('error', reject);
    job.once('exit', (code) => resolve(code ?? 1));
  });
  console.log(`\nJob exited with code ${exitCode}; stopping the mock.`);
  process.exitCode = exitCode;
} finally {
  await served.close();
}
