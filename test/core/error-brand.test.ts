/**
 * Two copies of the SDK in one process, as an application gets when it imports the package (the
 * ES module build) and a library requires it (the CommonJS build): each copy has its own error
 * classes, and `instanceof` must still know the other copy's errors. The copies are built from
 * the sources here, each bundled whole, so the test needs no prior build.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

type Sdk = typeof import('@secrets-vault/sdk');

const directory = mkdtempSync(join(tmpdir(), 'secrets-vault-brand-'));
let esm: Sdk;
let cjs: Sdk;

beforeAll(async () => {
  const entry = fileURLToPath(new URL('../../src/index.ts', import.meta.url));
  for (const format of ['esm', 'cjs'] as const) {
    await build({
      entryPoints: [entry],
      outfile: join(directory, format === 'esm' ? 'index.mjs' : 'index.cjs'),
      bundle: true,
      format,
      platform: 'node',
      target: 'node22',
      logLevel: 'silent',
    });
  }
  esm = await import(pathToFileURL(join(directory, 'index.mjs')).href);
  cjs = createRequire(import.meta.url)(join(directory, 'index.cjs'));
}, 60_000);
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const init = { status: 404, code: 'not_found', message: null, headers: new Headers() };

describe('error classes across two copies of the SDK', () => {
  it('make an error of either copy an instance of the other’s class and parents, not siblings', () => {
    expect(esm.NotFoundError).not.toBe(cjs.NotFoundError); // two copies indeed
    for (const [from, to] of [
      [esm, cjs],
      [cjs, esm],
    ] as const) {
      const notFound = new from.NotFoundError(init);
      expect(notFound instanceof to.NotFoundError).toBe(true);
      expect(notFound instanceof to.APIError).toBe(true);
      expect(notFound instanceof to.SecretsVaultError).toBe(true);
      expect(notFound instanceof to.RateLimitError).toBe(false);
      expect(notFound instanceof to.BadRequestError).toBe(false);
      expect(notFound instanceof to.APIConnectionError).toBe(false);

      const cursor = new from.InvalidCursorError({ ...init, status: 400 });
      expect(cursor instanceof to.BadRequestError).toBe(true);
      expect(cursor instanceof to.NotFoundError).toBe(false);
      const timeout = new from.APITimeoutError();
      expect(timeout instanceof to.APIConnectionError).toBe(true);
      expect(timeout instanceof to.APIError).toBe(false);
      expect(new from.APIConnectionError() instanceof to.APITimeoutError).toBe(false);
    }
    // Nothing else passes for an SDK error: a plain error or object, nor a look-alike.
    for (const value of [new Error('x'), {}, null, undefined, 'NotFoundError', 404]) {
      expect(value instanceof esm.SecretsVaultError).toBe(false);
      expect(value instanceof cjs.NotFoundError).toBe(false);
    }
    const lookAlike = Object.assign(new Error('x'), { name: 'NotFoundError', status: 404 });
    expect(lookAlike instanceof cjs.NotFoundError).toBe(false);
  });

  it('answer as the ordinary instanceof within one copy', () => {
    const notFound = new esm.NotFoundError(init);
    expect(notFound instanceof esm.NotFoundError).toBe(true);
    expect(notFound instanceof esm.RateLimitError).toBe(false);
    expect(notFound instanceof Error).toBe(true);
    // A class's prototype is not an instance of that class, only of its parents.
    expect(esm.NotFoundError.prototype instanceof esm.NotFoundError).toBe(false);
    expect(esm.NotFoundError.prototype instanceof cjs.APIError).toBe(true);
  });

  it('keep a subclass of the caller’s own exact, and each error’s name and fields', () => {
    class VaultGone extends esm.NotFoundError {}
    const gone = new VaultGone(init);
    expect(gone instanceof VaultGone).toBe(true);
    expect(gone instanceof cjs.NotFoundError).toBe(true);
    expect(new cjs.NotFoundError(init) instanceof VaultGone).toBe(false);
    expect(new esm.NotFoundError(init) instanceof VaultGone).toBe(false);
    expect(gone.name).toBe('NotFoundError');
    // Each error keeps its name and own fields as before.
    const notFound = new cjs.NotFoundError(init);
    expect(notFound.name).toBe('NotFoundError');
    expect(new esm.APITimeoutError().name).toBe('APITimeoutError');
    expect(Object.keys(notFound)).toEqual([
      'name',
      'method',
      'path',
      'attempts',
      'idempotencyKey',
      'requestId',
      'status',
      'code',
      'headers',
    ]);
    expect(Object.prototype.toString.call(notFound)).toBe('[object Error]');
  });
});
