/**
 * `npm run dashboard`: the dashboard in Vite's dev server. With SECRETS_VAULT_BASE_URL set, its
 * proxy forwards `/v1` to that service; without it, the mock is served on loopback, stocked
 * with sample vaults, and its people's tokens are printed to sign in with.
 */
import { fileURLToPath } from 'node:url';
import { createVaultMock } from '@secrets-vault/sdk/mock';
import { serveVaultMock } from '@secrets-vault/sdk/mock/node';
import { createServer } from 'vite';
import { seedDashboard } from './src/seed.ts';

const tokens: string[] = [];
if (process.env.SECRETS_VAULT_BASE_URL === undefined) {
  const mock = createVaultMock();
  const served = await serveVaultMock(mock);
  await seedDashboard(served.url, mock.principals);
  process.env.SECRETS_VAULT_BASE_URL = served.url;
  tokens.push(
    `  Ada (owner):    ${mock.principals.owner.token}`,
    `  Grace (member): ${mock.principals.member.token}`,
  );
  console.log(`The mock, stocked with sample vaults, is served on ${served.url}`);
}

const server = await createServer({
  configFile: fileURLToPath(new URL('./vite.config.ts', import.meta.url)),
  server: { host: '127.0.0.1' },
});
await server.listen();
console.log(`Dashboard: ${server.resolvedUrls?.local[0] ?? '(no address)'}`);
console.log(`/v1 is forwarded to ${process.env.SECRETS_VAULT_BASE_URL}`);
if (tokens.length > 0) console.log(`Sign in with one of the mock's tokens:\n${tokens.join('\n')}`);
