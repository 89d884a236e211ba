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
  assert.ok(new sdk.NotFoundError({ status: 404, code: 'not_found', message: null, headers: new Headers() }) instanceof sdk.APIError);
}

for (const file of ['dist/index.js', 'dist/index.cjs']) {
  const source = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
  assert.doesNotMatch(source, /["']node:/, `${file} must not import node: modules`);
  assert.doesNotMatch(source, /new Function|\beval\(/, `${file} must run under a strict CSP`);
}

console.log('package smoke test: ESM and CJS entry points load; no node: imports');
