import { describe, expect, it } from 'vitest';
import type { SecretsVault } from '../../src/index.js';
import { createClient, ok, route, secret } from '../helpers.js';
import {
  array,
  describeMethods,
  expectRefusedBeforeSending,
  one,
  page,
  type ResourceMethod,
} from './resource-helpers.js';

/** A string that must never appear in an error message. */
const SECRET_STRING = 'hunter2-pa55w0rd-7c1d';
const withValue = (overrides: Record<string, unknown> = {}) => ({
  ...secret(overrides),
  value: { username: 'app', password: SECRET_STRING },
});

const methods: ResourceMethod[] = [
  {
    call: 'secrets.list',
    route: 'GET /vaults/{vaultId}/secrets',
    answer: page(secret(), { type: 'ssh_key', rotation_days: 30 }),
    run: (client, ids, query, options) => client.secrets.list(ids.vaultId, query, options),
  },
  {
    call: 'secrets.create',
    route: 'POST /vaults/{vaultId}/secrets',
    answer: one(secret(), { type: 'totp', version: 1 }),
    run: (client, ids) => client.secrets.create(ids.vaultId, { name: 'n', value: { a: 'b' } }),
  },
  {
    call: 'secrets.update',
    route: 'PATCH /secrets/{secretId}',
    answer: one(secret()),
    run: (client, ids) => client.secrets.update(ids.secretId, { name: 'n' }),
  },
  {
    call: 'secrets.delete',
    route: 'DELETE /secrets/{secretId}',
    run: (client, ids) => client.secrets.delete(ids.secretId),
  },
  {
    call: 'secrets.getValue',
    route: 'GET /secrets/{secretId}/value',
    answer: one(withValue(), { type: 'ssh_key', fingerprint: 'SHA256:abc' }),
    run: (client, ids) => client.secrets.getValue(ids.secretId),
  },
  {
    call: 'secrets.listValues',
    route: 'GET /vaults/{vaultId}/secrets/values',
    answer: array(withValue(), { type: 'certificate', tags: ['prod'] }),
    run: (client, ids) => client.secrets.listValues(ids.vaultId),
  },
];

describeMethods('client.secrets', methods);

/** Sends `value` as a secret's value through a create. */
const create = {
  call: 'secrets.create',
  run: (client: SecretsVault, value: unknown) =>
    client.secrets.create('vlt_1', { name: 'db', value } as never),
};
/** Sends `value` as a secret's new value through an update. */
const update = {
  call: 'secrets.update',
  run: (client: SecretsVault, value: unknown) => client.secrets.update('sec_1', { value } as never),
};

describe('client.secrets values', () => {
  it('sends an empty object as a secret value', async () => {
    const seen = route('post', '/vaults/:id/secrets', () => ok(secret(), { status: 201 }));
    await create.run(createClient(), {});
    expect(seen[0]?.body).toEqual({ name: 'db', value: {} });
  });

  it('returns an empty array for a vault without live secrets', async () => {
    route('get', '/vaults/:id/secrets/values', () => ok([]));
    await expect(createClient().secrets.listValues('vlt_1')).resolves.toEqual([]);
  });

  it('refuses a secret create without a name, without quoting the value', async () => {
    const error = await expectRefusedBeforeSending(
      (client) => client.secrets.create('vlt_1', { value: { password: SECRET_STRING } } as never),
      ['name'],
    );
    expect(error.message).not.toContain(SECRET_STRING);
  });

  // validation.test.ts refuses an array and a number on create, and a nested object on update.
  it.each([
    { ...create, shape: 'a string', value: SECRET_STRING, path: 'value' },
    { ...create, shape: 'null', value: null, path: 'value' },
    {
      ...create,
      shape: 'an object with a boolean',
      value: { password: SECRET_STRING, tls: true },
      path: 'value.tls',
    },
    {
      ...create,
      shape: 'a nested object',
      value: { db: { password: SECRET_STRING } },
      path: 'value.db',
    },
    { ...update, shape: 'an array', value: [SECRET_STRING], path: 'value' },
    {
      ...update,
      shape: 'an object with a number',
      value: { password: SECRET_STRING, port: 5432 },
      path: 'value.port',
    },
  ])('$call refuses a value that is $shape, without quoting it', async (testCase) => {
    const error = await expectRefusedBeforeSending(
      (client) => testCase.run(client, testCase.value),
      [testCase.path],
    );
    expect(error.message).toContain(testCase.path);
    expect(error.message).not.toContain(SECRET_STRING);
    expect(error.message).not.toContain('5432');
  });

  it.each([create, update])(
    '$call refuses a body over 1 MB of JSON before sending, without quoting it',
    async (testCase) => {
      const blob = `${SECRET_STRING}${'x'.repeat(1_000_001)}`;
      const error = await expectRefusedBeforeSending((client) => testCase.run(client, { blob }));
      expect(error.message).not.toContain(SECRET_STRING);
    },
  );

  it('counts the body size in bytes, refusing 500,001 two-byte characters', async () => {
    await expectRefusedBeforeSending((client) => create.run(client, { blob: 'é'.repeat(500_001) }));
  });
});
