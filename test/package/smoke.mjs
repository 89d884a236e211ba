// Loads the built package the way consumers do (ESM import and CommonJS require through the
// `exports` map) and checks that the client entry stays free of Node-only imports.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
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

// The client and the browser half of the mock (with every chunk they share) must bundle for
// browsers and edge workers: every built file but the mock/node entry.
const distribution = new URL('../../dist/', import.meta.url);
const browserFiles = readdirSync(distribution, { recursive: true })
  .map(String)
  .filter(
    (file) => /\.c?js$/.test(file) && !file.startsWith('mock/node') && !file.startsWith('cli'),
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

console.log('package smoke test: every entry point loads as ESM and CJS; no node: imports');
