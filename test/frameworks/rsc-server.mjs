/**
 * The server half of the React Server Components test (rsc.test.ts): run under the
 * `react-server` export condition, as Next.js runs its server components, after esbuild has
 * bundled it with the SDK's sources (React, React's Flight server and MSW stay external, for
 * Node to resolve with the condition).
 *
 * Against the stateful mock over fetch (MSW), it renders one Client Component element per case
 * with React's own Flight serializer, counting the requests the mock receives while each render
 * streams, and prints one JSON object: per case the requests, the Flight payload, what `onError`
 * reported and what was logged.
 */
import { format } from 'node:util';
import { SecretsVault } from '@secrets-vault/sdk';
import { createVaultMock } from '@secrets-vault/sdk/mock';
import { setupServer } from 'msw/node';
import { createElement } from 'react';
// Importable only under the `react-server` condition, as Next.js runs it: without, it throws.
import { registerClientReference, renderToReadableStream } from 'react-server-dom-webpack/server';

const VAULTS = 9;
const LIMIT = 3;

const mock = createVaultMock();
const server = setupServer(...mock.handlers);
server.listen({ onUnhandledFrame: 'error' });

/** Requests the mock received since the last `take()`, as `METHOD /path?query`. */
let requests = [];
server.events.on('request:start', ({ request }) => {
  const url = new URL(request.url);
  requests.push(`${request.method} ${url.pathname}${url.search}`);
});
const take = () => {
  const taken = requests;
  requests = [];
  return taken;
};

/**
 * What the render logs (React's development build reports some problems on `console.error`
 * only), kept off stdout, which carries the result.
 */
let logged = [];
for (const level of ['log', 'info', 'warn', 'error', 'debug']) {
  console[level] = (...args) => {
    logged.push({ level, message: format(...args) });
  };
}

const client = new SecretsVault({
  baseUrl: mock.baseUrl,
  token: mock.principals.owner.token,
  maxRetries: 0,
});
for (let i = 0; i < VAULTS; i++) await client.vaults.create({ name: `vault-${i}` });

// A Client Component as a bundler registers it: the server only ever sees its reference.
const VaultList = registerClientReference(
  () => {
    throw new Error('VaultList is a Client Component: the server never calls it');
  },
  'file:///app/vault-list.js',
  'VaultList',
);
const clientManifest = {
  'file:///app/vault-list.js#VaultList': { id: 'vault-list', chunks: [], name: 'VaultList' },
};

/** Lets any request a render set off after its stream ended reach the mock before counting. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

/**
 * Renders `<VaultList {...props} />` to its end and reports what it produced and the requests
 * the mock received since the last `take()`: while the props were built, and while the render
 * streamed.
 */
async function render(props) {
  const errors = [];
  logged = [];
  const stream = renderToReadableStream(createElement(VaultList, props), clientManifest, {
    onError(error) {
      errors.push(error instanceof Error ? error.message : String(error));
    },
  });
  const payload = await new Response(stream).text();
  await settle();
  return { requests: take(), payload, errors, logged };
}

/** The first page as the SDK hands it out, with the requests it took. */
async function firstPage() {
  const page = await client.vaults.list({ limit: LIMIT });
  return { page, listRequests: take() };
}

/**
 * The `Page` as it was before the fix: async-iterable over every item of every later page, and
 * without `toJSON`, so that React serializes the iterable. Added to one page object only.
 */
function asBeforeTheFix(page) {
  Object.defineProperty(page, Symbol.asyncIterator, {
    value: async function* () {
      let current = this;
      yield* current.data;
      while (current.hasNextPage()) {
        current = await current.getNextPage();
        yield* current.data;
      }
    },
  });
  Object.defineProperty(page, 'toJSON', { value: undefined });
  return page;
}

/**
 * The cases, each building its props and rendering them; each counts the requests from its start.
 */
const cases = {
  /** (1) The awaited Page as a prop. */
  async page() {
    const { page, listRequests } = await firstPage();
    const expected = { data: page.data, nextCursor: page.nextCursor };
    return { listRequests, expected, ...(await render({ page })) };
  },
  /** (2) The PagePromise a list method returns, passed on without awaiting it. */
  pagePromise: () => render({ page: client.vaults.list({ limit: LIMIT }) }),
  /** (2b) A plain Promise that resolves to a Page, as an async helper returns. */
  promiseOfPage() {
    const loadPage = async () => await client.vaults.list({ limit: LIMIT });
    return render({ page: loadPage() });
  },
  /** (3) The page's data, as the docs recommend. */
  async data() {
    const { page, listRequests } = await firstPage();
    const expected = { vaults: page.data, nextCursor: page.nextCursor };
    return { listRequests, expected, ...(await render(expected)) };
  },
  /** Control: a Page made async-iterable again, passed as a prop, is walked by React. */
  async controlPage() {
    const { page, listRequests } = await firstPage();
    return { listRequests, ...(await render({ page: asBeforeTheFix(page) })) };
  },
  /** Control: the same through a Promise, where React does not call toJSON anyway. */
  async controlPromiseOfPage() {
    const { page, listRequests } = await firstPage();
    return { listRequests, ...(await render({ page: Promise.resolve(asBeforeTheFix(page)) })) };
  },
};

const results = {};
for (const [name, run] of Object.entries(cases)) {
  take();
  results[name] = await run();
}

server.close();
process.stdout.write(JSON.stringify({ nodeEnv: process.env.NODE_ENV ?? null, cases: results }));
