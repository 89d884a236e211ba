/**
 * Runs inside Chromium, served from the same origin as the API (through a proxy to the mock), as
 * a web dashboard would be. Each check goes through the public API; the results are left in
 * `window.__results` for the runner to read.
 */
import {
  APIConnectionError,
  NotFoundError,
  RedirectError,
  ResponseValidationError,
  SecretsVault,
  type SecretsVaultError,
} from '../../src/index.js';
import { assert, check, report } from './checks.js';

const params = new URLSearchParams(location.search);
const token = params.get('token') ?? '';
const crossOrigin = params.get('crossOrigin') ?? '';

const client = new SecretsVault({ baseUrl: location.origin, token, maxRetries: 1 });

await check('creates, paginates with limit 1, reads values and loads, same-origin', async () => {
  const vault = await client.vaults.create({ name: 'browser' });
  await client.vaults.create({ name: 'second' });
  await client.secrets.create(vault.id, { name: 'db', value: { password: 'browser-pw' } });
  const sizes: number[] = [];
  for await (const page of client.vaults.list({ limit: 1 }).pages()) sizes.push(page.data.length);
  assert(sizes.length >= 2 && sizes.every((size) => size === 1), `pages ${sizes.join(',')}`);
  const [secret] = await client.secrets.listValues(vault.id);
  assert(secret?.value.password === 'browser-pw', 'value read back');
  const loaded = await client.secrets.load(vault.id);
  assert(JSON.stringify(loaded) === '{"db":{"password":"[REDACTED]"}}', JSON.stringify(loaded));
  assert(loaded.db?.password === 'browser-pw', 'property read');
});

await check('gives typed errors and real promises', async () => {
  const promise = client.vaults.get('00000000-0000-4000-8000-000000000000');
  assert(promise instanceof Promise, 'APIPromise is a Promise');
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  assert(error instanceof NotFoundError, `got ${String(error)}`);
  assert((error as NotFoundError).requestId?.startsWith('req_'), 'request id');
});

await check('never follows a redirect: the browser hides it, the SDK refuses it', async () => {
  const redirected = new SecretsVault({
    baseUrl: `${location.origin}/redirect`,
    token,
    maxRetries: 2,
  });
  const error = await redirected.secrets
    .create('vlt_1', { name: 'db', value: { password: 'must-not-travel' } })
    .then(
      () => undefined,
      (caught: unknown) => caught,
    );
  assert(error instanceof RedirectError, `got ${String(error)}`);
  assert((error as RedirectError).status === 0, 'status hidden by the browser');
  assert((error as RedirectError).attempts === 1, 'not retried');
  const followed = (await (await fetch('/__followed')).json()) as { count: number };
  assert(followed.count === 0, `the Location was requested ${followed.count} times`);
});

await check('stops an answer of unknown length at 32 MiB and aborts its download', async () => {
  const endless = new SecretsVault({ baseUrl: `${location.origin}/endless`, token, maxRetries: 0 });
  const error = await endless.vaults.get('vlt_1').then(
    () => undefined,
    (caught: unknown) => caught,
  );
  assert(error instanceof ResponseValidationError, `got ${String(error)}`);
  assert(String(error).includes('larger than 33554432 bytes'), String(error));
  let state = { written: 0, closed: false };
  for (let tries = 0; tries < 50 && !state.closed; tries += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    state = (await (await fetch('/__endless')).json()) as typeof state;
  }
  assert(state.closed, 'the connection was closed');
  // Of the 2 GiB on offer: loopback outruns the abort by 100 MiB on a quiet machine and by
  // nearly 600 MiB on a busy one, never by the rest.
  assert(state.written < 1024 ** 3, `${state.written} bytes were sent`);
});

await check(
  'says when the browser blocked a cross-origin call (no CORS), without retrying',
  async () => {
    const elsewhere = new SecretsVault({ baseUrl: crossOrigin, token, maxRetries: 2 });
    const error = (await elsewhere.org.get().then(
      () => undefined,
      (caught: unknown) => caught,
    )) as SecretsVaultError | undefined;
    assert(error instanceof APIConnectionError, `got ${String(error)}`);
    assert(error.message.includes('blocked by the browser (CORS or CSP?)'), error.message);
    assert(error.attempts === 1, `attempts ${error.attempts}`);
  },
);

report();
