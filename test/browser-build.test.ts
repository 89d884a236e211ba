/**
 * The startup calls (`secrets.load`, `secrets.resolveReferences`) load part of their code on
 * demand. A web app's bundler must split that code off, so that a page that never calls them
 * never downloads it; and every build of the package must still run them, throwing its own
 * error classes. Runs on the built package (`npm run build`), as users get it.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundleScripts } from '../bench/bundle.ts';
import { ensureBuilt } from './cli/built.js';
import { secret, TOKEN } from './helpers.js';
import { rejectionOf } from './rejection.js';

type Sdk = typeof import('../src/index.js');

const root = fileURLToPath(new URL('..', import.meta.url));

// Words of the code loaded on demand: the lookup of references, and the record `load` builds.
const ON_DEMAND = ['live secrets have that name', 'a record keyed by name cannot hold them'];

beforeAll(ensureBuilt, 300_000);

/** The scripts a page loads before its first call, and those it loads only on demand. */
async function bundled(app: 'one-call'): Promise<{ initial: string; onDemand: string }> {
  const { initial, scripts, contents } = await bundleScripts(app);
  const join = (paths: readonly string[]) =>
    paths.map((path) => new TextDecoder().decode(contents(path))).join('\n');
  return {
    initial: join(scripts.filter((path) => initial.has(path))),
    onDemand: join(scripts.filter((path) => !initial.has(path))),
  };
}

describe('the browser build in a bundled page', () => {
  it('leaves the startup code out of what a page that only calls vaults.get loads first', async () => {
    const { initial, onDemand } = await bundled('one-call');
    expect(initial).toContain('vaults.get');
    for (const words of ON_DEMAND) {
      expect(initial).not.toContain(words);
      expect(onDemand).toContain(words);
    }
  });
});

const require = createRequire(import.meta.url);
const builds: ReadonlyArray<[string, () => Promise<Sdk>]> = [
  ['the browser build', () => import(`${root}dist/browser/index.js`)],
  ['the ES module build for bundlers', () => import(`${root}dist/index.js`)],
  ['the CommonJS build', async () => require(`${root}dist/index.cjs`)],
  ['the Node build', () => import(`${root}dist/node/index.js`)],
  ['the Node build, required', async () => require(`${root}dist/node/index.cjs`)],
];

/** A client of `sdk` whose every call gets `values` from the values endpoint. */
function clientAnswering(sdk: Sdk, values: unknown[]) {
  return new sdk.SecretsVault({
    baseUrl: 'https://vault.test',
    token: TOKEN,
    maxRetries: 0,
    fetch: async () =>
      Response.json({ statusCode: 200, errorCode: null, message: null, data: values }),
  });
}

describe.each(builds)('%s', (_, load) => {
  const database = secret({ name: 'database', value: { password: 'pg-password-4f1d' } });

  it('loads secrets, printing them redacted', async () => {
    const sdk = await load();
    const loaded = await clientAnswering(sdk, [database]).secrets.load('vlt_1');
    expect(loaded.database?.password).toBe('pg-password-4f1d');
    expect(JSON.stringify(loaded)).toBe('{"database":{"password":"[REDACTED]"}}');
  });

  it('throws its own SecretsSchemaError for a record keyed by name that cannot be built', async () => {
    const sdk = await load();
    const client = clientAnswering(sdk, [database, { ...database, id: 'sec_2' }]);
    const error = await rejectionOf(client.secrets.load('vlt_1'));
    expect(error).toBeInstanceOf(sdk.SecretsSchemaError);
    expect((error as Error).message).toContain('is the name of 2 live secrets');
  });

  it('resolves references, and throws its own SecretReferenceError for one it cannot', async () => {
    const sdk = await load();
    const client = clientAnswering(sdk, [database]);
    await expect(
      client.secrets.resolveReferences({
        PASSWORD: 'vault://vlt_1/database/password',
        PORT: '5432',
      }),
    ).resolves.toEqual({ PASSWORD: 'pg-password-4f1d', PORT: '5432' });
    const error = await rejectionOf(
      client.secrets.resolveReferences({ USER: 'vault://vlt_1/database/user' }),
    );
    expect(error).toBeInstanceOf(sdk.SecretReferenceError);
    expect((error as Error).message).toBe(
      'Cannot resolve vault://vlt_1/database/user: the secret has no such key',
    );
  });
});
