// The package's two builds in one process, as an application can load them: the client imported
// (the ES module build) while `@secrets-vault/sdk/query` is required (the CommonJS build, with
// its own copy of every error class), against a service that answers 503 for good on loopback.
// An error of either build must be an instance of the other's class of the same name and of its
// parents, never of a sibling, so that `queryRetry` stops TanStack from retrying on top of the
// SDK. Run by test/package/smoke.mjs, after `npm run build`.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { QueryClient } from '@tanstack/query-core';

const require = createRequire(import.meta.url);
const esm = await import('@secrets-vault/sdk');
const cjs = require('@secrets-vault/sdk');
const query = require('@secrets-vault/sdk/query');
assert.notEqual(esm.NotFoundError, cjs.NotFoundError, 'two builds, two copies of each class');

let requests = 0;
const server = createServer((_request, response) => {
  requests += 1;
  response.writeHead(503, { 'content-type': 'application/json' });
  response.end(
    JSON.stringify({ statusCode: 503, errorCode: 'unavailable', message: 'down', data: null }),
  );
});
server.listen(0, '127.0.0.1');
await once(server, 'listening');

// As in a browser, where TanStack's default (and `queryRetry`'s, for an error it does not know)
// is three retries: only knowing the error as the SDK's stops them.
globalThis.window = globalThis;
try {
  assert.equal(query.queryRetry(0, new TypeError('bug')), true, 'a browser-like process');

  const client = new esm.SecretsVault({
    baseUrl: `http://127.0.0.1:${server.address().port}`,
    token: 'dual-build-token',
    maxRetries: 1,
    retryBudget: false,
  });
  const error = await client.vaults.get('vlt_1').catch((caught) => caught);
  assert.equal(requests, 2, 'the SDK made its own 1 + maxRetries attempts');
  assert.equal(error.name, 'InternalServerError');
  for (const name of ['InternalServerError', 'APIError', 'SecretsVaultError']) {
    assert.ok(error instanceof cjs[name], `an ES module error is a CommonJS ${name}`);
  }
  for (const name of ['NotFoundError', 'RateLimitError', 'APIConnectionError']) {
    assert.ok(!(error instanceof cjs[name]), `an InternalServerError is no ${name}`);
  }
  assert.equal(query.queryRetry(0, error), false, 'queryRetry knows the other build’s errors');

  // And the other way round.
  const notFound = new cjs.NotFoundError({
    status: 404,
    code: 'not_found',
    message: null,
    headers: new Headers(),
  });
  for (const name of ['NotFoundError', 'APIError', 'SecretsVaultError']) {
    assert.ok(notFound instanceof esm[name], `a CommonJS error is an ES module ${name}`);
  }
  assert.ok(!(notFound instanceof esm.RateLimitError), 'a NotFoundError is no RateLimitError');
  assert.ok(!(new Error('plain') instanceof esm.SecretsVaultError), 'a plain Error is none');

  // A TanStack query with the ES module client and the CommonJS options: the SDK's attempts and
  // no more (TanStack's retries on top would make 4 × 2 = 8).
  requests = 0;
  const q = query.createQueryOptions(client);
  const queryClient = new QueryClient({ defaultOptions: { queries: { retryDelay: 0 } } });
  await assert.rejects(queryClient.fetchQuery(q.vaults.get.queryOptions('vlt_1')), (caught) => {
    assert.ok(caught instanceof cjs.InternalServerError);
    return true;
  });
  assert.equal(requests, 2, 'a lasting 503 costs 1 + maxRetries requests, not 8');
  queryClient.clear();
} finally {
  delete globalThis.window;
  server.close();
}

console.log(
  'dual build: errors of the ES module and CommonJS builds are instances of each other’s classes (parents yes, siblings no), and a TanStack query across them makes 1 + maxRetries requests',
);
