/**
 * The fast path of response and input checking must accept exactly what zod accepts: for every
 * schema of the API, values that are valid, valid but for one field, or anything at all get the
 * same verdict from `check` as from zod itself, and zod's issues whenever they fail.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { check, checkItems } from '../../src/core/validation.js';
import * as api from '../../src/index.js';

const schemas = (Object.entries(api) as Array<[string, unknown]>).filter(
  (entry): entry is [string, z.ZodMiniType] =>
    typeof entry[1] === 'object' && entry[1] !== null && '_zod' in entry[1],
);

const secret = {
  id: 'sec_1',
  vault_id: 'vlt_1',
  name: 'db',
  type: 'login',
  expired_at: null,
  delete_after_expired: false,
  is_archived: false,
  created_at: '2025-01-31T09:30:00.000Z',
};
const user = { id: 'usr_1', name: 'Ada', email: 'ada@example.com' };
/** One valid value per schema, to mutate a field at a time. */
const samples: Record<string, unknown> = {
  Secret: secret,
  SecretWithValue: { ...secret, value: { username: 'app', password: 'pw' } },
  SecretValue: { username: 'app', password: 'pw' },
  SecretCreateParams: { name: 'db', value: { password: 'pw' }, type: 'login', expired_at: null },
  Vault: {
    id: 'vlt_1',
    org_id: 'org_1',
    name: 'Payments',
    icon_index: 2,
    color: '#0ea5e9',
    team_id: null,
    role: 'admin',
    created_at: '2025-01-31T09:30:00.000Z',
  },
  VaultCreateParams: { name: 'Payments', icon_index: 3, color: '#abcdef', team_id: 'tm_1' },
  VaultMember: {
    id: 'vm_1',
    vault_id: 'vlt_1',
    user,
    role: 'member',
    created_at: '2025-01-31T09:30:00.000Z',
  },
  User: user,
  ListParams: { limit: 10, cursor: 'abc' },
  AuditEntry: {
    id: 'aud_1',
    action: 'secret.value.read',
    resource: 'secret',
    user_name: 'Ada',
    ip_address: '127.0.0.1',
    success: true,
    type: 'read',
    time: '2025-01-31T09:30:00.000Z',
  },
};

function sameVerdict(schema: z.ZodMiniType, value: unknown): void {
  const fast = check(schema, value);
  const zod = z.safeParse(schema, value);
  expect(fast.ok).toBe(zod.success);
  if (fast.ok) expect(fast.value).toBe(value);
}

// Values as JSON gives them, and the odd shapes code can pass as input.
const oddValues = fc.oneof(
  fc.anything(),
  fc.jsonValue(),
  fc.constantFrom(
    Number.NaN,
    Number.POSITIVE_INFINITY,
    -0,
    1.5,
    [],
    // A hole reads as undefined.
    // biome-ignore lint/suspicious/noSparseArray: the point of the case
    [, 'x'],
    Object.create(null),
    { [Symbol('s')]: 'x' },
    JSON.parse('{"__proto__": 1}'),
    { constructor: class Other {} },
    new Date(0),
    new Map(),
  ),
);

describe('check accepts exactly what zod accepts', () => {
  it('finds the schemas to test', () => {
    expect(schemas.length).toBeGreaterThan(25);
    for (const name of Object.keys(samples)) {
      expect(schemas.map(([schemaName]) => schemaName)).toContain(name);
    }
  });

  it('on valid values, each with one field replaced by anything', () => {
    for (const [name, sample] of Object.entries(samples)) {
      const schema = schemas.find(([schemaName]) => schemaName === name)?.[1];
      if (schema === undefined) throw new Error(name);
      sameVerdict(schema, sample);
      expect(check(schema, sample).ok).toBe(true);
      const keys = Object.keys(sample as object);
      fc.assert(
        fc.property(fc.constantFrom(...keys, 'extra'), oddValues, (key, value) => {
          sameVerdict(schema, { ...(sample as object), [key]: value });
        }),
        { numRuns: 150 },
      );
    }
  });

  it('on arbitrary values, for every schema', () => {
    fc.assert(
      fc.property(fc.constantFrom(...schemas), oddValues, ([, schema], value) => {
        sameVerdict(schema, value);
      }),
      { numRuns: 2000 },
    );
  });

  it('on lists of valid and invalid items', () => {
    const list = z.array(api.SecretWithValue);
    const good = samples.SecretWithValue as object;
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constant(good), oddValues), { maxLength: 6 }), (items) =>
        sameVerdict(list, items),
      ),
      { numRuns: 500 },
    );
  });

  it('item by item, with the issues zod gives at each item path', () => {
    const list = z.array(api.SecretWithValue);
    const good = samples.SecretWithValue as object;
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constant(good), oddValues), { maxLength: 6 }), (items) => {
        const mine = checkItems(api.SecretWithValue, items, ['data']);
        const zod = z.safeParse(list, items);
        expect(mine.ok).toBe(zod.success);
        if (mine.ok) expect(mine.value).toBe(items);
        else {
          const zodPaths = (zod.error?.issues ?? []).map((issue) => ['data', ...issue.path]);
          expect(mine.issues.map((issue) => issue.path)).toEqual(zodPaths);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('when Object.prototype has an enumerable key, a string or not', () => {
    const cases: Array<[z.ZodMiniType, unknown]> = [
      [api.SecretValue, { username: 'app', password: 'pw' }],
      [api.SecretValue, { username: 'app', password: 7 }],
      [api.SecretWithValue, samples.SecretWithValue],
    ];
    for (const inherited of ['text', 1]) {
      // Only the verdicts are taken while the prototype is polluted: the test runner itself
      // would trip over the key.
      let verdicts: Array<[boolean, boolean]>;
      Object.defineProperty(Object.prototype, 'polluted', {
        value: inherited,
        enumerable: true,
        configurable: true,
        writable: true,
      });
      try {
        verdicts = cases.map(([schema, value]) => [
          check(schema, value).ok,
          z.safeParse(schema, value).success,
        ]);
      } finally {
        delete (Object.prototype as { polluted?: unknown }).polluted;
      }
      expect(verdicts.map(([fast]) => fast)).toEqual(verdicts.map(([, zod]) => zod));
      expect(verdicts.map(([fast]) => fast)).toEqual([true, false, true]);
    }
  });
});
