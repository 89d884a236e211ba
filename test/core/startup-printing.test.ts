/**
 * Printing what `load` and `toEnv` give never shows a value, in the cases a plain hook on each
 * object misses: a schema that freezes its output, keys named like the printing hooks, and the
 * record of variables `toEnv` builds. A schema that throws is a `SecretsSchemaError` without the
 * value its message quoted.
 */
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { SecretsSchemaError, type StandardSchemaV1, toEnv } from '../../src/index.js';
import { printedByConsole } from '../console-capture.js';
import { createClient, ok, route, secret } from '../helpers.js';
import { rejectionOf } from '../rejection.js';

const PASSWORD = 'correct-horse-battery-staple';
const DATABASE_URL = 'postgres://app@db.internal:5432/app';
const API_KEY = 'sk_live_51HqLyjWDarjtT1zdp7dc';
const HOOK_KEY_VALUE = 'value-under-a-key-named-toJSON';
const VALUES = [PASSWORD, DATABASE_URL, API_KEY, HOOK_KEY_VALUE];

/** The vault every test loads: `database` and `stripe`, plus whatever a test adds. */
function serveVault(extra: ReturnType<typeof secret>[] = []) {
  route('get', '/vaults/:vaultId/secrets/values', () =>
    ok([
      secret({ id: 'sec_1', name: 'database', value: { url: DATABASE_URL, password: PASSWORD } }),
      secret({ id: 'sec_2', name: 'stripe', value: { apiKey: API_KEY } }),
      ...extra,
    ]),
  );
}

/** Every way a value gets printed: inspect at any depth, JSON, a real console, alone and nested. */
function printings(value: unknown): string[] {
  const printed = printedByConsole((console) => {
    console.log(value);
    console.log('%o %j', { context: value }, value);
  });
  return [
    inspect(value),
    inspect(value, { depth: Number.POSITIVE_INFINITY }),
    inspect({ context: { config: value } }, { depth: Number.POSITIVE_INFINITY }),
    JSON.stringify(value),
    JSON.stringify({ context: { config: value } }),
    String(JSON.stringify([value])),
    printed,
  ];
}

function expectNoValueIn(texts: readonly string[]): void {
  for (const text of texts) {
    for (const value of VALUES) expect(text).not.toContain(value);
    expect(text).toContain('[REDACTED]');
  }
}

describe('printing a loaded record', () => {
  it('redacts the output of a schema that freezes it (zod .readonly()), which stays frozen', async () => {
    serveVault();
    const schema = z
      .object({
        database: z.object({ url: z.string(), password: z.string() }).readonly(),
        stripe: z.object({ apiKey: z.string() }),
      })
      .readonly();

    const config = await createClient().secrets.load('vlt_1', { schema });

    expectNoValueIn(printings(config));
    expectNoValueIn(printings(config.database));
    expectNoValueIn(printings(config.stripe));
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.database)).toBe(true);
    expect(config.database.password).toBe(PASSWORD);
    expect({ ...config.stripe }).toEqual({ apiKey: API_KEY });
  });

  it('redacts objects holding a key named toJSON, which a vault editor may choose', async () => {
    serveVault([
      secret({
        id: 'sec_3',
        name: 'webhook',
        value: { toJSON: HOOK_KEY_VALUE, url: DATABASE_URL },
      }),
      secret({ id: 'sec_4', name: 'toJSON', value: { password: PASSWORD } }),
    ]);

    const loaded = await createClient().secrets.load('vlt_1');

    expectNoValueIn(printings(loaded));
    expectNoValueIn(printings(loaded.webhook));
    expectNoValueIn(printings(loaded.database));
    expect(loaded.webhook?.url).toBe(DATABASE_URL);
    // The printing hook keeps the name; toEnv still reads the value stored under it, in the
    // record or in a spread copy of it.
    expect(toEnv(loaded)).toMatchObject({
      WEBHOOK_TOJSON: HOOK_KEY_VALUE,
      WEBHOOK_URL: DATABASE_URL,
      TOJSON_PASSWORD: PASSWORD,
    });
    expect(toEnv({ webhook: { ...loaded.webhook } })).toEqual({
      WEBHOOK_TOJSON: HOOK_KEY_VALUE,
      WEBHOOK_URL: DATABASE_URL,
    });
  });

  it('redacts a schema output whose keys are named like the printing hooks', async () => {
    serveVault();
    const schema = z
      .object({ stripe: z.object({ apiKey: z.string() }) })
      .transform(({ stripe }) => ({
        toJSON: HOOK_KEY_VALUE,
        [Symbol.for('nodejs.util.inspect.custom')]: 'not a function',
        apiKey: stripe.apiKey,
      }));

    const config = await createClient().secrets.load('vlt_1', { schema });

    expectNoValueIn(printings(config));
    expect(config.apiKey).toBe(API_KEY);
  });
});

describe('printing what toEnv gives', () => {
  it('shows [REDACTED], while Object.assign, spreads, entries and reads see the real strings', async () => {
    serveVault();
    const env = toEnv(await createClient().secrets.load('vlt_1'), { prefix: 'STARTUP_TEST_' });
    const expected = {
      STARTUP_TEST_DATABASE_URL: DATABASE_URL,
      STARTUP_TEST_DATABASE_PASSWORD: PASSWORD,
      STARTUP_TEST_STRIPE_APIKEY: API_KEY,
    };

    expectNoValueIn(printings(env));
    expect(env.STARTUP_TEST_DATABASE_PASSWORD).toBe(PASSWORD);
    expect({ ...env }).toEqual(expected);
    expect(Object.fromEntries(Object.entries(env))).toEqual(expected);
    const target: Record<string, string> = {};
    Object.assign(target, env);
    expect(Object.keys(target).sort()).toEqual(Object.keys(expected).sort());
    try {
      Object.assign(process.env, env);
      expect(process.env.STARTUP_TEST_STRIPE_APIKEY).toBe(API_KEY);
    } finally {
      for (const name of Object.keys(expected)) delete process.env[name];
    }
  });

  it('writes an array of a schema output as the JSON of its real values', async () => {
    serveVault();
    const schema = z
      .object({ database: z.object({ url: z.string(), password: z.string() }) })
      .transform(({ database }) => ({ database: { hosts: [database.url, database.password] } }));

    const env = toEnv(await createClient().secrets.load('vlt_1', { schema }));

    expect(env.DATABASE_HOSTS).toBe(JSON.stringify([DATABASE_URL, PASSWORD]));
    expectNoValueIn(printings(env));
  });
});

describe('a schema that throws', () => {
  it('is a SecretsSchemaError scrubbed of every value, without the original error as cause', async () => {
    serveVault();
    const throwing = z.object({
      stripe: z.object({
        apiKey: z.string().transform((value) => {
          throw new Error(`cannot parse ${value}`);
        }),
      }),
    });
    const throwingString: StandardSchemaV1 = {
      '~standard': {
        version: 1,
        vendor: 'hand-written',
        validate: () => {
          throw `no good: ${PASSWORD}`;
        },
      },
    };

    for (const schema of [throwing, throwingString]) {
      const error = await rejectionOf(createClient().secrets.load('vlt_1', { schema }));

      expect(error).toBeInstanceOf(SecretsSchemaError);
      expect((error as Error).cause).toBeUndefined();
      const text = `${(error as Error).message} ${JSON.stringify(error)} ${inspect(error)}`;
      for (const value of VALUES) expect(text).not.toContain(value);
      expect((error as SecretsSchemaError).issues[0]?.message).toContain('[REDACTED]');
    }
  });
});
