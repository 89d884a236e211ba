import { describe, expect, it } from 'vitest';
import type { SecretsVault } from '../../src/index.js';
import { createClient, ok, route, user, vault, vaultMember } from '../helpers.js';
import {
  CALLER_KEY,
  describeMethods,
  expectRefusedBeforeSending,
  one,
  page,
  type ResourceMethod,
} from './resource-helpers.js';

const methods: ResourceMethod[] = [
  {
    call: 'vaults.list',
    route: 'GET /vaults',
    answer: page(vault(), { description: 'new field', labels: ['a'] }),
    run: (client, _ids, query, options) => client.vaults.list(query, options),
  },
  {
    call: 'vaults.create',
    route: 'POST /vaults',
    answer: one(vault(), { archived: false }),
    run: (client) => client.vaults.create({ name: 'Payments' }),
  },
  {
    call: 'vaults.get',
    route: 'GET /vaults/{vaultId}',
    answer: one(vault()),
    run: (client, ids) => client.vaults.get(ids.vaultId),
  },
  {
    call: 'vaults.update',
    route: 'PATCH /vaults/{vaultId}',
    answer: one(vault()),
    run: (client, ids) => client.vaults.update(ids.vaultId, { name: 'x' }),
  },
  {
    call: 'vaults.delete',
    route: 'DELETE /vaults/{vaultId}',
    run: (client, ids) => client.vaults.delete(ids.vaultId),
  },
  {
    call: 'vaults.members.list',
    route: 'GET /vaults/{vaultId}/members',
    answer: page(vaultMember()),
    run: (client, ids, query, options) => client.vaults.members.list(ids.vaultId, query, options),
  },
  {
    call: 'vaults.members.create',
    route: 'POST /vaults/{vaultId}/members',
    answer: one(vaultMember()),
    run: (client, ids) =>
      client.vaults.members.create(ids.vaultId, { user_id: 'usr_1', role: 'member' }),
  },
  {
    call: 'vaults.members.update',
    route: 'PATCH /vaults/{vaultId}/members/{memberId}',
    // The contract promises only id, vault_id and role; a full member must come back whole.
    answer: one({ id: 'vm_1', vault_id: 'vlt_1', role: 'member' }, { user }),
    run: (client, ids) =>
      client.vaults.members.update(ids.vaultId, ids.memberId, { role: 'member' }),
  },
  {
    call: 'vaults.members.delete',
    route: 'DELETE /vaults/{vaultId}/members/{memberId}',
    run: (client, ids) => client.vaults.members.delete(ids.vaultId, ids.memberId),
  },
];

describeMethods('client.vaults', methods);

describe('client.vaults input', () => {
  const colourCalls = [
    {
      call: 'vaults.create',
      run: (client: SecretsVault, color: string) => client.vaults.create({ name: 'x', color }),
    },
    {
      call: 'vaults.update',
      run: (client: SecretsVault, color: string) => client.vaults.update('vlt_1', { color }),
    },
  ];
  const colourCases = colourCalls.flatMap((colourCall) =>
    ['#0EA5E', '#0EA5E99', '0EA5E9', '#GGGGGG'].map((color) => ({ ...colourCall, color })),
  );

  it.each(colourCases)('$call refuses the colour $color before sending', async (testCase) => {
    await expectRefusedBeforeSending((client) => testCase.run(client, testCase.color), ['color']);
  });

  it('refuses a vault create body over 1 MB before sending', async () => {
    await expectRefusedBeforeSending((client) =>
      client.vaults.create({ name: 'n'.repeat(1_000_001) }),
    );
  });

  it('does not let a caller header put an Idempotency-Key on a vault update', async () => {
    const seen = route('patch', '/vaults/:id', () => ok(vault()));
    await createClient().vaults.update(
      'vlt_1',
      { name: 'x' },
      { headers: { 'Idempotency-Key': CALLER_KEY } },
    );
    expect(seen[0]?.headers.has('idempotency-key')).toBe(false);
  });

  it('refuses a vault member create without a role before sending', async () => {
    await expectRefusedBeforeSending(
      (client) => client.vaults.members.create('vlt_1', { user_id: 'usr_1' } as never),
      ['role'],
    );
  });

  it.each([
    { call: 'create', role: 'viewer' },
    { call: 'create', role: 'Admin' },
    { call: 'create', role: '' },
    { call: 'update', role: 'owner' },
  ])(
    'vaults.members.$call refuses the role $role, outside admin, editor and member',
    async ({ call, role }) => {
      await expectRefusedBeforeSending(
        (client) =>
          call === 'create'
            ? client.vaults.members.create('vlt_1', { user_id: 'usr_1', role } as never)
            : client.vaults.members.update('vlt_1', 'vm_1', { role } as never),
        ['role'],
      );
    },
  );
});
