/**
 * Secrets at startup, against the stateful mock: `load` with and without a schema, printing that
 * never shows a value, `toEnv`, `vault://` references, and the cache of a long-running server.
 */
import { inspect } from 'node:util';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import {
  createSecretCache,
  InternalServerError,
  SecretReferenceError,
  SecretsSchemaError,
  SecretsVault,
  type SecretValue,
  type StandardSchemaV1,
  toEnv,
} from '../../src/index.js';
import { createVaultMock } from '../../src/mock/index.js';
import { printedByConsole } from '../console-capture.js';
import { rejectionOf } from '../rejection.js';

const mock = createVaultMock();
const server = setupServer(...mock.handlers);
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
beforeEach(() => mock.reset());
afterEach(() => vi.useRealTimers());
afterAll(() => server.close());

const PASSWORD = 'correct-horse-battery-staple';
const DATABASE_URL = 'postgres://app@db.internal:5432/app';
const API_KEY = 'sk_live_51HqLyjWDarjtT1zdp7dc';

/** A client of the owner that counts the requests it sends, by method and path. */
function countingClient(options: { maxRetries?: number } = {}) {
  const requests: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const client = new SecretsVault({
    baseUrl: mock.baseUrl,
    token: mock.principals.owner.token,
    maxRetries: options.maxRetries ?? 0,
    fetch: async (input, init) => {
      const request = input as Request;
      requests.push(`${request.method} ${new URL(request.url).pathname}`);
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        // Let every request of a batch start before any finishes.
        await new Promise((resolve) => setTimeout(resolve, 5));
        return await globalThis.fetch(input, init);
      } finally {
        inFlight -= 1;
      }
    },
  });
  return { client, requests, maxInFlight: () => maxInFlight };
}

async function stockVault(client: SecretsVault) {
  const vault = await client.vaults.create({ name: 'checkout' });
  await client.secrets.create(vault.id, {
    name: 'database',
    value: { url: DATABASE_URL, password: PASSWORD },
  });
  await client.secrets.create(vault.id, { name: 'stripe', value: { apiKey: API_KEY } });
  return vault;
}

/** Every way a loaded record gets printed, alone and nested in another object. */
function printings(loaded: unknown): string[] {
  return [
    inspect(loaded),
    inspect(loaded, { depth: Number.POSITIVE_INFINITY }),
    inspect({ context: { config: loaded } }, { depth: Number.POSITIVE_INFINITY }),
    JSON.stringify(loaded),
    JSON.stringify({ context: { config: loaded } }),
    String(JSON.stringify([loaded])),
  ];
}

function expectNoValueIn(texts: readonly string[]): void {
  for (const text of texts) {
    for (const value of [PASSWORD, DATABASE_URL, API_KEY]) expect(text).not.toContain(value);
    expect(text).toContain('[REDACTED]');
  }
}

describe('client.secrets.load', () => {
  it('loads every live secret keyed by name in exactly one request', async () => {
    const { client, requests } = countingClient();
    const vault = await stockVault(client);
    requests.length = 0;

    const loaded = await client.secrets.load(vault.id);

    expect(requests).toEqual([`GET /v1/vaults/${vault.id}/secrets/values`]);
    expect(Object.keys(loaded).sort()).toEqual(['database', 'stripe']);
    expect(loaded.database?.password).toBe(PASSWORD);
    expect(loaded.stripe).toEqual({ apiKey: API_KEY });
  });

  it('prints [REDACTED] for every value, alone or nested, while properties read the real string', async () => {
    const client = countingClient().client;
    const vault = await stockVault(client);
    const loaded = await client.secrets.load(vault.id);

    expectNoValueIn(printings(loaded));
    expectNoValueIn(printings(loaded.database));
    expect(JSON.parse(JSON.stringify(loaded))).toEqual({
      database: { url: '[REDACTED]', password: '[REDACTED]' },
      stripe: { apiKey: '[REDACTED]' },
    });
    expect(`${loaded.database?.url}`).toBe(DATABASE_URL);
    expect({ ...loaded.database }).toEqual({ url: DATABASE_URL, password: PASSWORD });
  });

  it('prints [REDACTED] through console.log too', async () => {
    const client = countingClient().client;
    const vault = await stockVault(client);
    const loaded = await client.secrets.load(vault.id);
    const printed = printedByConsole((console) => {
      console.log(loaded);
      console.log('config: %o', { loaded });
      console.error('%j', loaded);
    });
    expectNoValueIn([printed]);
  });

  it('validates with a zod schema and resolves to its output, still redacted when printed', async () => {
    const client = countingClient().client;
    const vault = await stockVault(client);
    const schema = z.object({
      database: z.object({ url: z.string().startsWith('postgres://'), password: z.string() }),
      stripe: z.object({ apiKey: z.string() }).transform(({ apiKey }) => ({ key: apiKey })),
    });

    const config = await client.secrets.load(vault.id, { schema });

    expect(config.database.password).toBe(PASSWORD);
    expect(config.stripe.key).toBe(API_KEY);
    expectNoValueIn(printings(config));
  });

  it('lists every failing path in one SecretsSchemaError, without a value', async () => {
    const client = countingClient().client;
    const vault = await stockVault(client);
    const schema = z.object({
      database: z.object({ url: z.url({ protocol: /^https$/ }), user: z.string() }),
      redis: z.object({ url: z.string() }),
    });

    const error = await rejectionOf(client.secrets.load(vault.id, { schema }));

    expect(error).toBeInstanceOf(SecretsSchemaError);
    const paths = (error as SecretsSchemaError).issues.map((issue) => issue.path.join('.'));
    expect(paths.sort()).toEqual(['database.url', 'database.user', 'redis']);
    expectNoValue(error);
  });

  it('accepts a hand-written Standard Schema, sync or async, unwrapping { key } path segments', async () => {
    const client = countingClient().client;
    const vault = await stockVault(client);
    const requireRedis = (async: boolean): StandardSchemaV1<unknown, { ok: true }> => ({
      '~standard': {
        version: 1,
        vendor: 'hand-written',
        validate: (value) => {
          const result =
            typeof value === 'object' && value !== null && 'redis' in value
              ? { value: { ok: true as const } }
              : {
                  issues: [
                    { message: 'is required', path: [{ key: 'redis' }, 'url'] },
                    {
                      message: `received ${PASSWORD}`,
                      path: [{ key: 'database' }, { key: 'password' }],
                    },
                  ],
                };
          return async ? Promise.resolve(result) : result;
        },
      },
    });

    for (const async of [false, true]) {
      const error = await rejectionOf(
        client.secrets.load(vault.id, { schema: requireRedis(async) }),
      );
      expect(error).toBeInstanceOf(SecretsSchemaError);
      expect((error as SecretsSchemaError).issues).toEqual([
        { path: ['redis', 'url'], message: 'is required' },
        { path: ['database', 'password'], message: 'received [REDACTED]' },
      ]);
      expectNoValue(error);
    }
  });

  it('scrubs a hostile value however a validator escapes it, and leaves no control character', async () => {
    const client = countingClient().client;
    const vault = await client.vaults.create({ name: 'hostile' });
    // Quotes, a command substitution, NUL, a terminal escape, a line break and a reference.
    const hostile = `it's "$(touch /tmp/pwned)"\u0000\u001b[31m\nvault://vlt_other/db/password`;
    await client.secrets.create(vault.id, { name: 'db', value: { password: hostile } });
    const quoting = (quote: (text: string) => string): StandardSchemaV1<unknown, never> => ({
      '~standard': {
        version: 1,
        vendor: 'hand-written',
        validate: (value) => ({
          issues: [
            {
              message: `received ${quote((value as { db: { password: string } }).db.password)}`,
              path: ['db', 'password'],
            },
          ],
        }),
      },
    });

    for (const quote of [
      (text: string) => text,
      (text: string) => JSON.stringify(text),
      encodeURIComponent,
    ]) {
      const error = await rejectionOf(client.secrets.load(vault.id, { schema: quoting(quote) }));
      expect(error).toBeInstanceOf(SecretsSchemaError);
      const [issue] = (error as SecretsSchemaError).issues;
      expect(issue?.message).toContain('[REDACTED]');
      const text = `${(error as Error).message} ${JSON.stringify(error)} ${inspect(error)}`;
      for (const part of ['$(touch', 'vault://vlt_other', '\u001b[31m', quote(hostile)]) {
        expect(text).not.toContain(part);
      }
      // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for control characters.
      expect((error as Error).message).not.toMatch(/[\u0000-\u001f]/);
    }
  });

  it('refuses two live secrets with one name, naming it, before any schema runs', async () => {
    const client = countingClient().client;
    const vault = await stockVault(client);
    await client.secrets.create(vault.id, { name: 'stripe', value: { apiKey: 'second' } });
    const validate = vi.fn(() => ({ value: {} }));

    for (const options of [
      {},
      { schema: { '~standard': { version: 1 as const, vendor: 'x', validate } } },
    ]) {
      const error = await rejectionOf(client.secrets.load(vault.id, options));
      expect(error).toBeInstanceOf(SecretsSchemaError);
      expect((error as SecretsSchemaError).issues).toEqual([
        { path: ['stripe'], message: expect.stringContaining('2 live secrets') },
      ]);
      expect((error as Error).message).toContain('stripe');
    }
    expect(validate).not.toHaveBeenCalled();
  });
});

function expectNoValue(error: unknown): void {
  const text = `${(error as Error).message} ${JSON.stringify(error)} ${inspect(error)}`;
  for (const value of [PASSWORD, DATABASE_URL, API_KEY]) expect(text).not.toContain(value);
}

describe('toEnv', () => {
  const loaded = (record: Record<string, SecretValue>) => record;

  it('joins the secret name and key, upper-cased, with runs of other characters as _', () => {
    expect(
      toEnv(
        loaded({
          database: { password: 'p', url: 'u' },
          'payment-gateway.v2': { apiKey: 'k', 'client id': 'c' },
        }),
      ),
    ).toEqual({
      DATABASE_PASSWORD: 'p',
      DATABASE_URL: 'u',
      PAYMENT_GATEWAY_V2_APIKEY: 'k',
      PAYMENT_GATEWAY_V2_CLIENT_ID: 'c',
    });
  });

  it('prepends the prefix as given', () => {
    expect(toEnv(loaded({ db: { url: 'u' } }), { prefix: 'APP_' })).toEqual({ APP_DB_URL: 'u' });
  });

  it('refuses two values that map to one variable, naming both', () => {
    const error = (() => {
      try {
        toEnv(loaded({ 'db-main': { url: 'a' }, db_main: { url: 'b' } }));
      } catch (caught) {
        return caught;
      }
      throw new Error('expected a collision');
    })();
    expect(error).toBeInstanceOf(SecretsSchemaError);
    expect((error as SecretsSchemaError).issues.map((issue) => issue.path)).toEqual([
      ['db-main', 'url'],
      ['db_main', 'url'],
    ]);
    expect((error as Error).message).toContain('DB_MAIN_URL');
  });

  it('gives the real values of a loaded record', async () => {
    const client = countingClient().client;
    const vault = await stockVault(client);
    expect(toEnv(await client.secrets.load(vault.id))).toEqual({
      DATABASE_URL,
      DATABASE_PASSWORD: PASSWORD,
      STRIPE_APIKEY: API_KEY,
    });
  });
});

describe('client.secrets.resolveReferences', () => {
  it('replaces every reference, reading each vault once and the vaults in parallel', async () => {
    const { client, requests, maxInFlight } = countingClient();
    const checkout = await stockVault(client);
    const other = await client.vaults.create({ name: 'shared/ops' });
    await client.secrets.create(other.id, {
      name: 'smtp relay',
      value: { 'pass/word': 'mail-pw' },
    });
    requests.length = 0;

    const env = await client.secrets.resolveReferences({
      DATABASE_PASSWORD: `vault://${checkout.id}/database/password`,
      DATABASE_URL: `vault://${checkout.id}/database/url`,
      STRIPE_KEY: `vault://${encodeURIComponent(checkout.id)}/stripe/apiKey`,
      SMTP_PASSWORD: `vault://${other.id}/smtp%20relay/pass%2Fword`,
      PLAIN: 'postgres://not-a-reference',
      UNSET: undefined,
    });

    expect(env).toEqual({
      DATABASE_PASSWORD: PASSWORD,
      DATABASE_URL,
      STRIPE_KEY: API_KEY,
      SMTP_PASSWORD: 'mail-pw',
      PLAIN: 'postgres://not-a-reference',
      UNSET: undefined,
    });
    expect(requests.sort()).toEqual(
      [
        `GET /v1/vaults/${checkout.id}/secrets/values`,
        `GET /v1/vaults/${other.id}/secrets/values`,
      ].sort(),
    );
    expect(maxInFlight()).toBe(2);
  });

  it.each([
    'vault://',
    'vault://vlt_1/database',
    'vault://vlt_1/database/password/extra',
    'vault://vlt_1//password',
    'vault://vlt_1/data%ZZbase/password',
  ])('refuses the malformed reference %s before any request', async (reference) => {
    const { client, requests } = countingClient();
    const error = await rejectionOf(
      client.secrets.resolveReferences({ GOOD: 'vault://vlt_1/a/b', BAD: reference }),
    );
    expect(error).toBeInstanceOf(SecretReferenceError);
    expect((error as SecretReferenceError).reference).toBe(reference);
    expect(requests).toEqual([]);
  });

  it.each([
    ['a secret', 'redis/url'],
    ['a key', 'database/user'],
  ])('names a reference to %s the vault does not have', async (_what, tail) => {
    const client = countingClient().client;
    const vault = await stockVault(client);
    const reference = `vault://${vault.id}/${tail}`;
    const error = await rejectionOf(client.secrets.resolveReferences({ X: reference }));
    expect(error).toBeInstanceOf(SecretReferenceError);
    expect((error as SecretReferenceError).reference).toBe(reference);
    expect((error as Error).message).toContain(reference);
  });
});

describe('createSecretCache', () => {
  const T0 = new Date('2026-06-01T12:00:00.000Z');

  async function cacheSetup(options: Partial<Parameters<typeof createSecretCache>[1]> = {}) {
    const { client, requests } = countingClient();
    const vault = await stockVault(client);
    requests.length = 0;
    // The clocks only (the cache measures ttl on performance.now()); requests run for real.
    vi.useFakeTimers({ toFake: ['Date', 'performance'], now: T0 });
    const cache = createSecretCache(client, { ttl: 60_000, ...options });
    const valuesRequests = () => requests.filter((request) => request.endsWith('/values')).length;
    return { client, vault, cache, valuesRequests };
  }

  const advanceClock = (ms: number) => vi.advanceTimersByTime(ms);

  it('serves from memory within ttl, and shares one request between concurrent callers', async () => {
    const { vault, cache, valuesRequests } = await cacheSetup();
    const [first, second] = await Promise.all([cache.load(vault.id), cache.load(vault.id)]);
    expect(first).toBe(second);
    advanceClock(59_000);
    expect(await cache.load(vault.id)).toBe(first);
    expect(valuesRequests()).toBe(1);
    expect(first.database?.password).toBe(PASSWORD);
  });

  it('answers a stale value at once and refreshes in the background, telling onChange', async () => {
    const onChange = vi.fn();
    const { client, vault, cache, valuesRequests } = await cacheSetup({ onChange });
    const first = await cache.load(vault.id);
    const [database] = (await client.secrets.list(vault.id)).data.filter(
      (s) => s.name === 'database',
    );
    await client.secrets.update(database?.id ?? '', {
      value: { url: DATABASE_URL, password: 'rotated' },
    });

    advanceClock(73_000);
    expect(await cache.load(vault.id)).toBe(first);
    await vi.waitFor(() => expect(onChange).toHaveBeenCalledTimes(1));
    expect(onChange.mock.calls[0]?.[0]).toBe(vault.id);
    const refreshed = await cache.load(vault.id);
    expect(refreshed.database?.password).toBe('rotated');
    expect(valuesRequests()).toBe(2);
  });

  it('tells onChange when a secret expires on the service, moved by the mock clock', async () => {
    const onChange = vi.fn();
    const { client, vault, cache } = await cacheSetup({ onChange });
    await client.secrets.create(vault.id, {
      name: 'temporary',
      value: { token: 'short-lived-token' },
      expired_at: new Date(mock.clock.now() + 5 * 60_000).toISOString(),
      delete_after_expired: true,
    });
    expect(Object.keys(await cache.load(vault.id)).sort()).toEqual([
      'database',
      'stripe',
      'temporary',
    ]);

    mock.clock.advance(10 * 60_000);
    advanceClock(73_000);
    await cache.load(vault.id);
    await vi.waitFor(() => expect(onChange).toHaveBeenCalledTimes(1));
    expect(Object.keys(onChange.mock.calls[0]?.[1] as object).sort()).toEqual([
      'database',
      'stripe',
    ]);
  });

  it('does not call onChange when a refresh brings the same values', async () => {
    const onChange = vi.fn();
    const { vault, cache, valuesRequests } = await cacheSetup({ onChange });
    await cache.load(vault.id);
    advanceClock(73_000);
    await cache.load(vault.id);
    await vi.waitFor(() => expect(valuesRequests()).toBe(2));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(onChange).not.toHaveBeenCalled();
  });

  it('keeps serving the last good value through failing refreshes up to maxStale, then throws their error', async () => {
    const { vault, cache } = await cacheSetup({ maxStale: 300_000 });
    const good = await cache.load(vault.id);
    mock.faults.inject(
      { method: 'GET', path: '/v1/vaults/:vaultId/secrets/values' },
      { kind: 'status', status: 503 },
    );

    advanceClock(60_000 + 299_000);
    expect(await cache.load(vault.id)).toBe(good);
    advanceClock(2_000);
    const error = await rejectionOf(cache.load(vault.id));
    expect(error).toBeInstanceOf(InternalServerError);

    mock.faults.clear();
    const recovered = await cache.load(vault.id);
    expect(recovered.database?.password).toBe(PASSWORD);
  });

  it('keeps the last good value forever by default, as the AWS caching client does', async () => {
    const { vault, cache } = await cacheSetup();
    const good = await cache.load(vault.id);
    mock.faults.inject(
      { method: 'GET', path: '/v1/vaults/:vaultId/secrets/values' },
      { kind: 'network-error' },
    );
    advanceClock(30 * 24 * 60 * 60_000);
    expect(await cache.load(vault.id)).toBe(good);
  });

  it('caches per vault whatever the schema, and clear() forgets everything', async () => {
    const { vault, cache, valuesRequests } = await cacheSetup();
    const schema = z.object({ stripe: z.object({ apiKey: z.string() }) });
    const typed = await cache.load(vault.id, { schema });
    expect(typed.stripe.apiKey).toBe(API_KEY);
    await cache.load(vault.id);
    expect(valuesRequests()).toBe(1);
    cache.clear();
    await cache.load(vault.id, { schema });
    expect(valuesRequests()).toBe(2);
  });
});
