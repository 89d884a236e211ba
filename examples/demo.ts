/**
 * `npm run demo`: serves the bundled mock over HTTP on 127.0.0.1, stocks a vault as an operator
 * would, then runs examples/startup-job.ts as its own process, the way a deployed job starts:
 * base URL, token and vault id come from its environment. Then it runs a child command through
 * `secrets-vault run`, the package's command. Exits non-zero if either fails.
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

  const jobEnv = {
    ...process.env,
    SECRETS_VAULT_BASE_URL: served.url,
    SECRETS_VAULT_TOKEN: mock.principals.adminKey.token,
    VAULT_ID: vault.id,
  };
  const jobCode = await run([fileURLToPath(new URL('./startup-job.ts', import.meta.url))], jobEnv);
  console.log(`\nJob exited with code ${jobCode}.`);

  // The same vault through the package's command: a child process gets the secrets as
  // environment variables without a line of code. It prints their names, never their values.
  console.log(`\n$ secrets-vault run --vault ${vault.id} --prefix CHECKOUT_ -- node -e '…'`);
  const commandCode = await run(
    [
      fileURLToPath(new URL('../dist/cli.js', import.meta.url)),
      'run',
      '--vault',
      vault.id,
      '--prefix',
      'CHECKOUT_',
      '--',
      process.execPath,
      '-e',
      "console.log('child sees', Object.keys(process.env).filter((name) => name.startsWith('CHECKOUT_')).sort().join(', '))",
    ],
    jobEnv,
  );
  console.log(`Command exited with code ${commandCode}; stopping the mock.`);
  process.exitCode = jobCode || commandCode;
} finally {
  await served.close();
}

/** Runs node with `args` as its own process and resolves to its exit code. */
async function run(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const child = spawn(process.execPath, args, { stdio: 'inherit', env });
  return new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => resolve(code ?? 1));
  });
}
