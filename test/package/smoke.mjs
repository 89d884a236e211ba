// Loads the built package the way consumers do (ESM import and CommonJS require through the
// `exports` map) and checks that the client entry stays free of Node-only imports.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const distribution = new URL('../../dist/', import.meta.url);
const esm = await import('@secrets-vault/sdk');
const cjs = require('@secrets-vault/sdk');

for (const sdk of [esm, cjs]) {
  assert.equal(typeof sdk.SecretsVault, 'function');
  const client = new sdk.SecretsVault({ baseUrl: 'https://vault.test', token: 'smoke-token' });
  for (const name of ['vaults', 'secrets', 'teams', 'org', 'audit']) assert.ok(client[name], name);
  assert.ok(
    new sdk.NotFoundError({
      status: 404,
      code: 'not_found',
      message: null,
      headers: new Headers(),
    }) instanceof sdk.APIError,
  );
}

const mockEsm = await import('@secrets-vault/sdk/mock');
const mockCjs = require('@secrets-vault/sdk/mock');
const nodeEsm = await import('@secrets-vault/sdk/mock/node');
const nodeCjs = require('@secrets-vault/sdk/mock/node');
for (const mock of [mockEsm, mockCjs]) assert.equal(typeof mock.createVaultMock, 'function');
for (const node of [nodeEsm, nodeCjs]) assert.equal(typeof node.serveVaultMock, 'function');

// The TanStack Query entry imports the package root by name, so `queryRetry` tests the very
// `SecretsVaultError` class the client throws (a copy bundled into the entry would never match).
const queryEsm = await import('@secrets-vault/sdk/query');
const queryCjs = require('@secrets-vault/sdk/query');
for (const [query, sdk] of [
  [queryEsm, esm],
  [queryCjs, cjs],
]) {
  const client = new sdk.SecretsVault({ baseUrl: 'https://vault.test', token: 'smoke-token' });
  const q = query.createQueryOptions(client);
  assert.deepEqual(q.vaults.get.queryOptions('vlt_1').queryKey, [
    'secrets-vault',
    'vaults',
    'get',
    'vlt_1',
  ]);
  const notFound = new sdk.NotFoundError({
    status: 404,
    code: 'not_found',
    message: null,
    headers: new Headers(),
  });
  assert.equal(query.queryRetry(0, notFound), false, 'queryRetry must know the root error class');
  // Node is a server to TanStack, whose default there is no retry.
  assert.equal(query.queryRetry(0, new TypeError('bug')), false);
}
for (const file of ['query/index.js', 'query/index.cjs']) {
  const source = readFileSync(new URL(`../../dist/${file}`, import.meta.url), 'utf8');
  assert.match(
    source,
    /(?:from |require\()["']@secrets-vault\/sdk["']/,
    `${file} imports the root`,
  );
  assert.doesNotMatch(source, /class SecretsVaultError\b/, `${file} must not bundle the errors`);
}

// The OpenTelemetry entry loads as ESM and CJS and gives a Telemetry the client takes; it alone
// imports @opentelemetry/api (by name): the root, every other entry and the browser build never.
for (const otel of [
  await import('@secrets-vault/sdk/opentelemetry'),
  require('@secrets-vault/sdk/opentelemetry'),
]) {
  const telemetry = otel.openTelemetry();
  assert.equal(typeof telemetry.startOperation, 'function');
  new esm.SecretsVault({ baseUrl: 'https://vault.example.com', token: 't', telemetry });
}
for (const file of readdirSync(distribution, { recursive: true })) {
  if (!/\.(c|m)?js$/.test(file)) continue;
  const source = readFileSync(new URL(file, distribution), 'utf8');
  const imports = /(?:from |require\(|import\()["']@opentelemetry\/api["']/.test(source);
  assert.equal(
    imports,
    file.startsWith('opentelemetry/'),
    `${file} ${imports ? 'must not import' : 'must import'} @opentelemetry/api`,
  );
}

// The namespace sub-paths hand out the root's own classes under every condition: the Node build
// (import and require), the build of every other runtime (which shares the root's chunks), and
// the browser's. A `Vaults` built alone throws the root's error classes.
const NAMESPACES = {
  vaults: 'Vaults',
  secrets: 'Secrets',
  teams: 'Teams',
  org: 'Org',
  audit: 'Audit',
};
const neutralRoot = await import('../../dist/index.js');
const browserRoot = await import('../../dist/browser/index.js');
for (const [name, className] of Object.entries(NAMESPACES)) {
  const pairs = [
    [await import(`@secrets-vault/sdk/${name}`), esm],
    [require(`@secrets-vault/sdk/${name}`), cjs],
    [await import(`../../dist/${name}.js`), neutralRoot],
    [await import(`../../dist/browser/${name}.js`), browserRoot],
  ];
  for (const [subPath, root] of pairs) {
    assert.equal(typeof subPath[className], 'function', `${name} exports ${className}`);
    assert.equal(subPath[className], root[className], `${name}: the root's ${className}`);
    assert.equal('SecretsVault' in subPath, false, `${name} exports its namespace only`);
  }
}
for (const [Vaults, root] of [
  [(await import('@secrets-vault/sdk/vaults')).Vaults, esm],
  [require('@secrets-vault/sdk/vaults').Vaults, cjs],
]) {
  const vaults = new Vaults({
    baseUrl: 'https://vault.test',
    token: 'smoke-token',
    maxRetries: 0,
    fetch: async () =>
      Response.json(
        { statusCode: 404, errorCode: 'not_found', message: 'no', data: null },
        { status: 404 },
      ),
  });
  const error = await vaults.get('vlt_1').catch((caught) => caught);
  assert.ok(error instanceof root.NotFoundError, 'a sub-path throws the root error classes');
}
// The browser build leaves out what only a server needs; the others keep it.
const browserText = readdirSync(new URL('browser/', distribution))
  .filter((file) => file.endsWith('.js'))
  .map((file) => readFileSync(new URL(`browser/${file}`, distribution), 'utf8'))
  .join('\n');
assert.doesNotMatch(
  browserText,
  /ECONNREFUSED|SECRETS_VAULT_TIMEOUT/,
  'the browser build has no server-only code',
);
assert.match(readFileSync(new URL('node/index.js', distribution), 'utf8'), /ECONNREFUSED/);

// The client and the browser half of the mock (with every chunk they share) must bundle for
// browsers and edge workers: every built file but the mock/node entry.
const browserFiles = readdirSync(distribution, { recursive: true })
  .map(String)
  .filter(
    (file) =>
      /\.c?js$/.test(file) &&
      !file.startsWith('mock/node') &&
      !file.startsWith('cli') &&
      !file.startsWith('node/'),
  );
assert.ok(browserFiles.includes('index.js') && browserFiles.includes('mock/index.cjs'));
for (const file of browserFiles) {
  const source = readFileSync(new URL(file, distribution), 'utf8');
  // An import or require of a node: module would break browser bundles. (The mock may still
  // ask `process.getBuiltinModule` for one at run time, where a runtime offers it.)
  assert.doesNotMatch(
    source,
    /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^import\s*)["']node:/m,
    `${file} must not import node: modules`,
  );
  if (!file.includes('mock') && !file.startsWith('chunk')) {
    assert.doesNotMatch(source, /new Function|\beval\(/, `${file} must run under a strict CSP`);
  }
}

// Node (and Bun and Deno, which honour the `node` condition) get the one-file build, with ky and
// zod inlined, so a process starts without loading their ~60 modules; bundlers get the other.
assert.match(import.meta.resolve('@secrets-vault/sdk'), /\/dist\/node\/index\.js$/);
assert.match(require.resolve('@secrets-vault/sdk'), /\/dist\/node\/index\.cjs$/);
for (const file of ['node/index.js', 'node/index.cjs']) {
  const source = readFileSync(new URL(file, distribution), 'utf8');
  assert.doesNotMatch(
    source,
    // Statements only (a doc comment may show an import): `import … from`, `export … from`,
    // a bare `import '…'`, or a `require('…')`.
    /^(?:import|export)\b[^\n]*\bfrom\s*["'](?!node:)|^import\s*["'](?!node:)|\brequire\(["'](?!node:)/m,
    `${file} must import nothing but node: modules`,
  );
}

// The two builds loaded side by side: their errors must still know each other.
await import('./dual-build.mjs');

console.log(
  'package smoke test: every entry point loads as ESM and CJS; the sub-paths and /query share the root classes; the browser build has no server-only code; no node: imports in browser builds; the Node build is one file',
);
