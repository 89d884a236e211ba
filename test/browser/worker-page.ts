/**
 * The bundled mock inside the browser, as a dashboard's tests use it: MSW's `setupWorker` with
 * the mock's handlers, answering on the page's own origin (a `connect-src 'self'` policy allows
 * that, and would block the default `https://vault.mock`). The page's CSP is strict; the SDK,
 * zod/mini and the mock must all work under it.
 */
import { setupWorker } from 'msw/browser';
import { NotFoundError, SecretsVault } from '../../src/index.js';
import { createVaultMock } from '../../src/mock/index.js';
import { check, report } from './checks.js';

await check(
  'runs the whole flow against the mock in a service worker, under a strict CSP',
  async () => {
    const mock = createVaultMock({ baseUrl: `${location.origin}/mock-api` });
    await setupWorker(...mock.handlers).start({ quiet: true, onUnhandledFrame: 'bypass' });
    const client = new SecretsVault({ baseUrl: mock.baseUrl, token: mock.principals.owner.token });
    const vault = await client.vaults.create({ name: 'worker' });
    await client.secrets.create(vault.id, { name: 'db', value: { password: 'in-the-worker' } });
    const loaded = await client.secrets.load(vault.id);
    if (loaded.db?.password !== 'in-the-worker') throw new Error('value');
    const missing = await client.vaults.get('00000000-0000-4000-8000-000000000000').then(
      () => undefined,
      (caught: unknown) => caught,
    );
    if (!(missing instanceof NotFoundError)) throw new Error(`got ${String(missing)}`);
  },
);

report();
