import { describe, expect, it } from 'vitest';
import type { SecretCreateParams, SecretUpdateParams } from '../../src/index.js';
import { createClient, noContent, ok, route, secret } from '../helpers.js';
import {
  CALLER_KEY,
  describePathParameters,
  expectSent,
  type IdCall,
  issuePaths,
  recordEverything,
  refusal,
  UUID_V4,
} from './resource-helpers.js';

/** A string that must never appear in an error message. */
const SECRET_STRING = 'hunter2-pa55w0rd-7c1d';
const VALUE = { username: 'app', password: SECRET_STRING };
const withValue = (overrides: Record<string, unknown> = {}) => ({
  ...secret(overrides),
  value: VALUE,
});

describe('client.secrets', () => {
  describe('list', () => {
    it('lists the secrets of a vault with GET /v1/vaults/{vaultId}/secrets', async () => {
      const seen = route('get', '/vaults/:id/secrets', () =>
        ok([secret(), secret({ id: 'sec_2', name: 'db' })], { nextCursor: null }),
      );
      const page = await createClient().secrets.list('vlt_1');

      expect(seen).toHaveLength(1);
      expectSent(seen[0], { method: 'GET', rawPath: '/v1/vaults/vlt_1/secrets' });
      expect(seen[0]?.headers.has('idempotency-key')).toBe(false);
      expect(page.data).toEqual([secret(), secret({ id: 'sec_2', name: 'db' })]);
      expect(page.nextCursor).toBeNull();
    });

    it('sends limit and cursor when listing secrets and exposes the next cursor', async () => {
      const seen = route('get', '/vaults/:id/secrets', () =>
        ok([secret()], { nextCursor: 'cur_2' }),
      );
      const page = await createClient().secrets.list(
        'vlt_1',
        { limit: 1, cursor: 'cur_1' },
        { idempotencyKey: CALLER_KEY },
      );

      expectSent(seen[0], {
        method: 'GET',
        rawPath: '/v1/vaults/vlt_1/secrets',
        search: '?limit=1&cursor=cur_1',
      });
      expect(seen[0]?.headers.has('idempotency-key')).toBe(false);
      expect(page.data).toEqual([secret()]);
      expect(page.nextCursor).toBe('cur_2');
    });

    it.each([0, 101, 1.5])('refuses limit %s on a secret list before sending', async (limit) => {
      const sent = recordEverything();
      const error = await refusal(createClient().secrets.list('vlt_1', { limit }));
      expect(issuePaths(error)).toEqual(['limit']);
      expect(sent()).toEqual([]);
    });

    it('accepts a secret type it has never seen and fields it does not know', async () => {
      route('get', '/vaults/:id/secrets', () =>
        ok([secret({ type: 'ssh_key', rotation_days: 30 })], { nextCursor: null }),
      );
      const page = await createClient().secrets.list('vlt_1');
      expect(page.data).toEqual([secret({ type: 'ssh_key', rotation_days: 30 })]);
      expect(page.data[0]?.type).toBe('ssh_key');
    });
  });

  describe('create', () => {
    it('creates a secret with POST /v1/vaults/{vaultId}/secrets and returns its metadata', async () => {
      const seen = route('post', '/vaults/:id/secrets', () =>
        ok(secret(), { status: 201, headers: { Location: '/v1/secrets/sec_1' } }),
      );
      const created = await createClient().secrets.create('vlt_1', {
        name: 'stripe',
        value: VALUE,
      });

      expect(seen).toHaveLength(1);
      expectSent(seen[0], {
        method: 'POST',
        rawPath: '/v1/vaults/vlt_1/secrets',
        body: { name: 'stripe', value: VALUE },
      });
      expect(seen[0]?.headers.get('idempotency-key')).toMatch(UUID_V4);
      expect(created).toEqual(secret());
    });

    it('sends the optional type, expiry and delete_after_expired of a secret create', async () => {
      const answer = secret({
        type: 'login',
        expired_at: '2027-01-01T00:00:00.000Z',
        delete_after_expired: true,
      });
      const seen = route('post', '/vaults/:id/secrets', () => ok(answer, { status: 201 }));
      const created = await createClient().secrets.create('vlt_1', {
        name: 'stripe',
        value: { api_key: 'sk_live_1' },
        type: 'login',
        expired_at: '2027-01-01T00:00:00.000Z',
        delete_after_expired: true,
      });

      expect(seen[0]?.body).toEqual({
        name: 'stripe',
        value: { api_key: 'sk_live_1' },
        type: 'login',
        expired_at: '2027-01-01T00:00:00.000Z',
        delete_after_expired: true,
      });
      expect(created).toEqual(answer);
    });

    it('sends an empty object as a secret value', async () => {
      const seen = route('post', '/vaults/:id/secrets', () => ok(secret(), { status: 201 }));
      await createClient().secrets.create('vlt_1', { name: 'empty', value: {} });
      expect(seen[0]?.body).toEqual({ name: 'empty', value: {} });
    });

    it.each([
      ['name', { value: VALUE }],
      ['value', { name: 'stripe' }],
    ])('refuses a secret create without %s before sending', async (field, params) => {
      const sent = recordEverything();
      const error = await refusal(
        createClient().secrets.create('vlt_1', params as unknown as SecretCreateParams),
      );
      expect(issuePaths(error)).toEqual([field]);
      expect(error.message).not.toContain(SECRET_STRING);
      expect(sent()).toEqual([]);
    });

    it.each([
      { shape: 'an array', value: [SECRET_STRING], path: 'value' },
      { shape: 'a string', value: SECRET_STRING, path: 'value' },
      { shape: 'null', value: null, path: 'value' },
      {
        shape: 'an object with a number',
        value: { password: SECRET_STRING, port: 5432 },
        path: 'value.port',
      },
      {
        shape: 'an object with a boolean',
        value: { password: SECRET_STRING, tls: true },
        path: 'value.tls',
      },
      { shape: 'a nested object', value: { db: { password: SECRET_STRING } }, path: 'value.db' },
    ])('refuses a secret value that is $shape, without quoting it', async ({ value, path }) => {
      const sent = recordEverything();
      const error = await refusal(
        createClient().secrets.create('vlt_1', {
          name: 'db',
          value,
        } as unknown as SecretCreateParams),
      );
      expect(issuePaths(error)).toEqual([path]);
      expect(error.message).toContain(path);
      expect(error.message).not.toContain(SECRET_STRING);
      expect(error.message).not.toContain('5432');
      expect(sent()).toEqual([]);
    });

    it('refuses a secret create over 1 MB of JSON before sending, without quoting it', async () => {
      const sent = recordEverything();
      const blob = `${SECRET_STRING}${'x'.repeat(1_000_001)}`;
      const error = await refusal(
        createClient().secrets.create('vlt_1', { name: 'big', value: { blob } }),
      );
      expect(error.message).not.toContain(SECRET_STRING);
      expect(sent()).toEqual([]);
    });

    it('counts the body size in bytes, refusing 500,001 two-byte characters', async () => {
      const sent = recordEverything();
      await refusal(
        createClient().secrets.create('vlt_1', {
          name: 'big',
          value: { blob: 'é'.repeat(500_001) },
        }),
      );
      expect(sent()).toEqual([]);
    });

    it('sends a secret create of exactly 1,000,000 bytes of JSON', async () => {
      const seen = route('post', '/vaults/:id/secrets', () => ok(secret(), { status: 201 }));
      const overhead = JSON.stringify({ name: 'big', value: { blob: '' } }).length;
      const blob = 'x'.repeat(1_000_000 - overhead);
      await createClient().secrets.create('vlt_1', { name: 'big', value: { blob } });
      expect(seen).toHaveLength(1);
      expect(seen[0]?.body).toEqual({ name: 'big', value: { blob } });
    });

    it('keeps fields it does not know on a created secret', async () => {
      route('post', '/vaults/:id/secrets', () =>
        ok(secret({ type: 'totp', version: 1 }), { status: 201 }),
      );
      const created = await createClient().secrets.create('vlt_1', {
        name: 'stripe',
        value: VALUE,
      });
      expect(created).toEqual(secret({ type: 'totp', version: 1 }));
    });
  });

  describe('update', () => {
    it('patches a secret with PATCH /v1/secrets/{secretId} and returns its metadata', async () => {
      const seen = route('patch', '/secrets/:id', () => ok(secret({ name: 'stripe-live' })));
      const updated = await createClient().secrets.update('sec_1', {
        name: 'stripe-live',
        value: { api_key: 'sk_live_2' },
      });

      expect(seen).toHaveLength(1);
      expectSent(seen[0], {
        method: 'PATCH',
        rawPath: '/v1/secrets/sec_1',
        body: { name: 'stripe-live', value: { api_key: 'sk_live_2' } },
      });
      expect(seen[0]?.headers.has('idempotency-key')).toBe(false);
      expect(updated).toEqual(secret({ name: 'stripe-live' }));
    });

    it('sends only the name when only the name changes', async () => {
      const seen = route('patch', '/secrets/:id', () => ok(secret({ name: 'renamed' })));
      await createClient().secrets.update('sec_1', { name: 'renamed' });
      expect(seen[0]?.body).toEqual({ name: 'renamed' });
    });

    it.each([
      { shape: 'an array', value: [SECRET_STRING], path: 'value' },
      {
        shape: 'an object with a number',
        value: { password: SECRET_STRING, port: 5432 },
        path: 'value.port',
      },
      { shape: 'a nested object', value: { db: { password: SECRET_STRING } }, path: 'value.db' },
    ])(
      'refuses a secret update whose value is $shape, without quoting it',
      async ({ value, path }) => {
        const sent = recordEverything();
        const error = await refusal(
          createClient().secrets.update('sec_1', { value } as unknown as SecretUpdateParams),
        );
        expect(issuePaths(error)).toEqual([path]);
        expect(error.message).not.toContain(SECRET_STRING);
        expect(error.message).not.toContain('5432');
        expect(sent()).toEqual([]);
      },
    );

    it('refuses a secret update over 1 MB of JSON before sending', async () => {
      const sent = recordEverything();
      const error = await refusal(
        createClient().secrets.update('sec_1', {
          value: { blob: `${SECRET_STRING}${'x'.repeat(1_000_001)}` },
        }),
      );
      expect(error.message).not.toContain(SECRET_STRING);
      expect(sent()).toEqual([]);
    });
  });

  describe('delete', () => {
    it('archives a secret with DELETE /v1/secrets/{secretId} and resolves to undefined', async () => {
      const seen = route('delete', '/secrets/:id', () => noContent());
      const result = await createClient().secrets.delete('sec_1', { idempotencyKey: CALLER_KEY });

      expect(seen).toHaveLength(1);
      expectSent(seen[0], { method: 'DELETE', rawPath: '/v1/secrets/sec_1' });
      expect(seen[0]?.headers.has('idempotency-key')).toBe(false);
      expect(result).toBeUndefined();
    });

    it('resolves to undefined when a secret delete is answered 200 with an envelope', async () => {
      route('delete', '/secrets/:id', () => ok(null));
      await expect(createClient().secrets.delete('sec_1')).resolves.toBeUndefined();
    });
  });

  describe('getValue', () => {
    it('reads a secret with GET /v1/secrets/{secretId}/value: metadata plus value', async () => {
      const seen = route('get', '/secrets/:id/value', () => ok(withValue()));
      const result = await createClient().secrets.getValue('sec_1');

      expect(seen).toHaveLength(1);
      expectSent(seen[0], { method: 'GET', rawPath: '/v1/secrets/sec_1/value' });
      expect(seen[0]?.headers.has('idempotency-key')).toBe(false);
      expect(result).toEqual(withValue());
      expect(result.value).toEqual({ username: 'app', password: SECRET_STRING });
      expect(result.name).toBe('stripe');
    });

    it('accepts an unseen secret type and unknown fields beside the value', async () => {
      route('get', '/secrets/:id/value', () =>
        ok(withValue({ type: 'ssh_key', fingerprint: 'SHA256:abc' })),
      );
      const result = await createClient().secrets.getValue('sec_1');
      expect(result).toEqual(withValue({ type: 'ssh_key', fingerprint: 'SHA256:abc' }));
    });
  });

  describe('listValues', () => {
    it('reads every live secret of a vault with GET /v1/vaults/{vaultId}/secrets/values', async () => {
      const second = {
        ...secret({ id: 'sec_2', name: 'db', type: 'login' }),
        value: { host: 'db.internal', password: 'pw' },
      };
      const seen = route('get', '/vaults/:id/secrets/values', () => ok([withValue(), second]));
      const result = await createClient().secrets.listValues('vlt_1');

      expect(seen).toHaveLength(1);
      expectSent(seen[0], { method: 'GET', rawPath: '/v1/vaults/vlt_1/secrets/values' });
      expect(seen[0]?.headers.has('idempotency-key')).toBe(false);
      expect(Array.isArray(result)).toBe(true);
      expect(result).toEqual([withValue(), second]);
      expect(result[1]?.value).toEqual({ host: 'db.internal', password: 'pw' });
    });

    it('returns an empty array for a vault without live secrets', async () => {
      route('get', '/vaults/:id/secrets/values', () => ok([]));
      await expect(createClient().secrets.listValues('vlt_1')).resolves.toEqual([]);
    });

    it('accepts unseen secret types and unknown fields on every item', async () => {
      route('get', '/vaults/:id/secrets/values', () =>
        ok([withValue({ type: 'certificate', tags: ['prod'] })]),
      );
      const result = await createClient().secrets.listValues('vlt_1');
      expect(result).toEqual([withValue({ type: 'certificate', tags: ['prod'] })]);
    });
  });
});

/** Every secret method with a path parameter. */
const idCalls: IdCall[] = [
  {
    call: 'secrets.list',
    param: 'vaultId',
    method: 'get',
    pattern: '/vaults/:id/secrets',
    run: (c, id) => c.secrets.list(id),
    rawPath: (s) => `/v1/vaults/${s}/secrets`,
    answer: () => ok([], { nextCursor: null }),
  },
  {
    call: 'secrets.create',
    param: 'vaultId',
    method: 'post',
    pattern: '/vaults/:id/secrets',
    run: (c, id) => c.secrets.create(id, { name: 'n', value: { a: 'b' } }),
    rawPath: (s) => `/v1/vaults/${s}/secrets`,
    answer: () => ok(secret(), { status: 201 }),
  },
  {
    call: 'secrets.update',
    param: 'secretId',
    method: 'patch',
    pattern: '/secrets/:id',
    run: (c, id) => c.secrets.update(id, { name: 'n' }),
    rawPath: (s) => `/v1/secrets/${s}`,
    answer: () => ok(secret()),
  },
  {
    call: 'secrets.delete',
    param: 'secretId',
    method: 'delete',
    pattern: '/secrets/:id',
    run: (c, id) => c.secrets.delete(id),
    rawPath: (s) => `/v1/secrets/${s}`,
    answer: () => noContent(),
  },
  {
    call: 'secrets.getValue',
    param: 'secretId',
    method: 'get',
    pattern: '/secrets/:id/value',
    run: (c, id) => c.secrets.getValue(id),
    rawPath: (s) => `/v1/secrets/${s}/value`,
    answer: () => ok(withValue()),
  },
  {
    call: 'secrets.listValues',
    param: 'vaultId',
    method: 'get',
    pattern: '/vaults/:id/secrets/values',
    run: (c, id) => c.secrets.listValues(id),
    rawPath: (s) => `/v1/vaults/${s}/secrets/values`,
    answer: () => ok([]),
  },
];

describePathParameters('client.secrets', idCalls);
