/**
 * The client half of the React Server Components test (rsc.test.ts): run WITHOUT the
 * `react-server` condition, as the browser or the SSR pass of a framework runs, it decodes the
 * Flight payloads rsc-server.mjs produced with React's own Flight client and describes the props
 * the Client Component would receive.
 *
 * Reads `{ "<case>": "<payload>" }` on stdin; prints `{ "<case>": { "<prop>": <description> } }`.
 */
import { format } from 'node:util';
import { createFromReadableStream } from 'react-server-dom-webpack/client';

/** What React logs while decoding, kept off stdout, which carries the result. */
const logged = [];
for (const level of ['log', 'info', 'warn', 'error', 'debug']) {
  console[level] = (...args) => {
    logged.push({ level, message: format(...args) });
  };
}

function VaultList() {
  return null;
}
// The bundler's runtime, as React's Flight client for webpack expects to find it.
globalThis.__webpack_require__ = (id) => {
  if (id === 'vault-list') return { VaultList };
  throw new Error(`No client module ${id}`);
};
globalThis.__webpack_chunk_load__ = () => Promise.resolve();

const serverConsumerManifest = {
  moduleMap: { 'vault-list': { VaultList: { id: 'vault-list', chunks: [], name: 'VaultList' } } },
  serverModuleMap: null,
  moduleLoading: null,
};

/** How long a prop's promise or iterable may take to settle once its payload was read. */
const SETTLE_MS = 5_000;

function withinTime(promise) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error('did not settle')), SETTLE_MS);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** A decoded prop as JSON: its kind, and its plain value (or what it settled to). */
async function describe(value) {
  if (value !== null && typeof value === 'object' && typeof value.then === 'function') {
    try {
      return { kind: 'promise', resolved: await describe(await withinTime(value)) };
    } catch (error) {
      return { kind: 'rejected', message: error instanceof Error ? error.message : String(error) };
    }
  }
  if (value !== null && typeof value === 'object' && Symbol.asyncIterator in value) {
    const items = [];
    await withinTime(
      (async () => {
        for await (const item of value) items.push(item);
      })(),
    );
    return { kind: 'async-iterable', items };
  }
  if (Array.isArray(value)) return { kind: 'array', value };
  if (value !== null && typeof value === 'object') {
    const prototype = Object.getPrototypeOf(value);
    return {
      kind: 'object',
      prototype: prototype === Object.prototype ? 'Object' : String(prototype?.constructor?.name),
      keys: Object.keys(value),
      value,
    };
  }
  return { kind: typeof value, value };
}

async function decode(payload) {
  const stream = new Response(payload).body;
  const root = await withinTime(createFromReadableStream(stream, { serverConsumerManifest }));
  const props = {};
  for (const [name, value] of Object.entries(root.props)) {
    if (name !== 'children') props[name] = await describe(value);
  }
  return props;
}

let input = '';
for await (const chunk of process.stdin) input += chunk;
const decoded = {};
for (const [name, payload] of Object.entries(JSON.parse(input))) {
  decoded[name] = await decode(payload);
}
process.stdout.write(JSON.stringify({ decoded, logged }));
