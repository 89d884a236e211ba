// Loads the built package the way consumers do (ESM import and CommonJS require through the
// `exports` map) and checks that the client entry stays free of Node-only imports.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
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

// The client and the browser half of the mock must bundle for browsers and edge workers.
for (const file of [
  'dist/index.js',
  'dist/index.cjs',
  'dist/mock/index.js',
  'dist/mock/index.cjs',
]) {
  const source = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
  assert.doesNotMatch(source, /["']node:/, `${file} must not import node: modules`);
  if (!file.includes('mock')) {
    assert.doesNotMatch(source, /new Function|\beval\(/, `${file} must run under a strict CSP`);
  }
}

console.log('package smoke test: every entry point loads as ESM and CJS; no node: imports');
