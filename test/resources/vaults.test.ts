import { describe, expect, it } from 'vitest';
import { RequestValidationError, type VaultCreateParams } from '../../src/index.js';
import { createClient, noContent, ok, route, TOKEN, user, vault, vaultMember } from '../helpers.js';
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

describe('client.vaults', () => {
  it('creates a vault with a JSON body, bearer token and a generated Idempotency-Key', async () => {
    const seen = route('post', '/vaults', () => ok(vault(), { status: 201 }));
    const created = await createClient().vaults.create({ name: 'Payments', color: '#0EA5E9' });

    expect(created).toEqual(vault());
    expect(seen).toHaveLength(1);
    const [request] = seen;
    expect(request?.method).toBe('POST');
    expect(request?.rawPath).toBe('/v1/vaults');
    expect(request?.headers.get('authorization')).toBe(`Bearer ${TOKEN}`);
    expect(request?.headers.get('content-type')).toBe('application/json');
    expect(request?.headers.get('idempotency-key')).toMatch(/^[0-9a-f-]{36}$/);
    expect(request?.body).toEqual({ name: 'Payments', color: '#0EA5E9' });
  });

  it('deletes a vault and resolves to undefined on 204', async () => {
    const seen = route('delete', '/vaults/:id', () => noContent());
    await expect(createClient().vaults.delete('vlt_1')).resolves.toBeUndefined();
    expect(seen[0]?.headers.has('idempotency-key')).toBe(false);
  });

  it('refuses a colour that is not #RRGGBB before sending', async () => {
    const seen = route('post', '/vaults', () => ok(vault(), { status: 201 }));
    const error = await createClient()
      .vaults.create({ name: 'x', color: 'red' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).issues[0]?.path).toEqual(['color']);
    expect(seen).toHaveLength(0);
  });

  describe('list', () => {
    it('lists vaults with GET /v1/vaults and no query, returning the first page', async () => {
      const seen = route('get', '/vaults', () =>
        ok([vault(), vault({ id: 'vlt_2', name: 'Infra' })], { nextCursor: null }),
      );
      const page = await createClient().vaults.list();

      expect(seen).toHaveLength(1);
      expectSent(seen[0], { method: 'GET', rawPath: '/v1/vaults' });
      expect(seen[0]?.headers.has('idempotency-key')).toBe(false);
      expect(page.data).toEqual([vault(), vault({ id: 'vlt_2', name: 'Infra' })]);
      expect(page.nextCursor).toBeNull();
    });

    it('sends limit and cursor as query parameters and exposes the next cursor', async () => {
      const seen = route('get', '/vaults', () => ok([vault()], { nextCursor: 'cur_next' }));
      const page = await createClient().vaults.list({ limit: 10, cursor: 'cur_1' });

      expectSent(seen[0], {
        method: 'GET',
        rawPath: '/v1/vaults',
        search: '?limit=10&cursor=cur_1',
      });
      expect(page.data).toEqual([vault()]);
      expect(page.nextCursor).toBe('cur_next');
    });

    it.each([0, 101, 1.5])('refuses limit %s before sending', async (limit) => {
      const sent = recordEverything();
      const error = await refusal(createClient().vaults.list({ limit }));
      expect(issuePaths(error)).toEqual(['limit']);
      expect(sent()).toEqual([]);
    });

    it('keeps fields it does not know on listed vaults', async () => {
      route('get', '/vaults', () =>
        ok([vault({ description: 'new field', labels: ['a'] })], { nextCursor: null }),
      );
      const page = await createClient().vaults.list();
      expect(page.data).toEqual([vault({ description: 'new field', labels: ['a'] })]);
    });
  });

  describe('create', () => {
    it('sends every optional field of a vault create as JSON and returns the vault', async () => {
      const seen = route('post', '/vaults', () =>
        ok(vault({ team_id: 'team_1' }), {
          status: 201,
          headers: { Location: '/v1/vaults/vlt_1' },
        }),
      );
      const created = await createClient().vaults.create({
        name: 'Payments',
        team_id: 'team_1',
        icon_index: 3,
        color: '#0ea5e9',
      });

      expect(seen).toHaveLength(1);
      expectSent(seen[0], {
        method: 'POST',
        rawPath: '/v1/vaults',
        body: { name: 'Payments', team_id: 'team_1', icon_index: 3, color: '#0ea5e9' },
      });
      expect(seen[0]?.headers.get('idempotency-key')).toMatch(UUID_V4);
      expect(created).toEqual(vault({ team_id: 'team_1' }));
    });

    it('sends team_id null on a vault create', async () => {
      const seen = route('post', '/vaults', () => ok(vault(), { status: 201 }));
      await createClient().vaults.create({ name: 'Payments', team_id: null });
      expect(seen[0]?.body).toEqual({ name: 'Payments', team_id: null });
    });

    it('refuses a vault create without a name before sending', async () => {
      const sent = recordEverything();
      const error = await refusal(
        createClient().vaults.create({ color: '#0EA5E9' } as unknown as VaultCreateParams),
      );
      expect(issuePaths(error)).toEqual(['name']);
      expect(sent()).toEqual([]);
    });

    it.each(['red', '#0EA5E', '#0EA5E99', '0EA5E9', '#GGGGGG'])(
      'refuses the colour %j on a vault create before sending',
      async (color) => {
        const sent = recordEverything();
        const error = await refusal(createClient().vaults.create({ name: 'x', color }));
        expect(issuePaths(error)).toEqual(['color']);
        expect(sent()).toEqual([]);
      },
    );

    it('refuses a vault create body over 1 MB before sending', async () => {
      const sent = recordEverything();
      await refusal(createClient().vaults.create({ name: 'n'.repeat(1_000_001) }));
      expect(sent()).toEqual([]);
    });

    it('keeps fields it does not know on a created vault', async () => {
      route('post', '/vaults', () => ok(vault({ archived: false }), { status: 201 }));
      const created = await createClient().vaults.create({ name: 'Payments' });
      expect(created).toEqual(vault({ archived: false }));
    });
  });

  describe('get', () => {
    it('fetches a vault with GET /v1/vaults/{vaultId}', async () => {
      const seen = route('get', '/vaults/:id', () => ok(vault()));
      const found = await createClient().vaults.get('vlt_1');

      expect(seen).toHaveLength(1);
      expectSent(seen[0], { method: 'GET', rawPath: '/v1/vaults/vlt_1' });
      expect(seen[0]?.headers.has('idempotency-key')).toBe(false);
      expect(found).toEqual(vault());
    });

    it('keeps fields it does not know on a fetched vault', async () => {
      route('get', '/vaults/:id', () => ok(vault({ description: 'new field', labels: ['a'] })));
      const found = await createClient().vaults.get('vlt_1');
      expect(found).toEqual(vault({ description: 'new field', labels: ['a'] }));
      expect((found as unknown as { description: string }).description).toBe('new field');
    });
  });

  describe('update', () => {
    it('patches a vault with only the fields given and returns the vault', async () => {
      const seen = route('patch', '/vaults/:id', () => ok(vault({ name: 'Billing' })));
      const updated = await createClient().vaults.update('vlt_1', {
        name: 'Billing',
        icon_index: 7,
        color: '#A1B2C3',
      });

      expect(seen).toHaveLength(1);
      expectSent(seen[0], {
        method: 'PATCH',
        rawPath: '/v1/vaults/vlt_1',
        body: { name: 'Billing', icon_index: 7, color: '#A1B2C3' },
      });
      expect(updated).toEqual(vault({ name: 'Billing' }));
    });

    it('sends team_id null to take a vault out of its team', async () => {
      const seen = route('patch', '/vaults/:id', () => ok(vault()));
      await createClient().vaults.update('vlt_1', { team_id: null });
      expect(seen[0]?.body).toEqual({ team_id: null });
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

    it.each(['red', '#12345', '#1234567', 'A1B2C3'])(
      'refuses the colour %j on a vault update before sending',
      async (color) => {
        const sent = recordEverything();
        const error = await refusal(createClient().vaults.update('vlt_1', { color }));
        expect(issuePaths(error)).toEqual(['color']);
        expect(sent()).toEqual([]);
      },
    );
  });

  describe('delete', () => {
    it('deletes a vault with DELETE /v1/vaults/{vaultId} and no body', async () => {
      const seen = route('delete', '/vaults/:id', () => noContent());
      const result = await createClient().vaults.delete('vlt_1', { idempotencyKey: CALLER_KEY });

      expect(seen).toHaveLength(1);
      expectSent(seen[0], { method: 'DELETE', rawPath: '/v1/vaults/vlt_1' });
      expect(seen[0]?.headers.has('idempotency-key')).toBe(false);
      expect(result).toBeUndefined();
    });

    it('resolves to undefined when a vault delete is answered 200 with an envelope', async () => {
      route('delete', '/vaults/:id', () => ok(null));
      await expect(createClient().vaults.delete('vlt_1')).resolves.toBeUndefined();
    });
  });
});

describe('client.vaults.members', () => {
  describe('list', () => {
    it('lists the members of a vault with GET /v1/vaults/{vaultId}/members', async () => {
      const seen = route('get', '/vaults/:id/members', () =>
        ok([vaultMember(), vaultMember({ id: 'vm_2', role: 'member' })], { nextCursor: null }),
      );
      const page = await createClient().vaults.members.list('vlt_1');

      expect(seen).toHaveLength(1);
      expectSent(seen[0], { method: 'GET', rawPath: '/v1/vaults/vlt_1/members' });
      expect(seen[0]?.headers.has('idempotency-key')).toBe(false);
      expect(page.data).toEqual([vaultMember(), vaultMember({ id: 'vm_2', role: 'member' })]);
      expect(page.nextCursor).toBeNull();
    });

    it('sends limit and cursor when listing vault members', async () => {
      const seen = route('get', '/vaults/:id/members', () =>
        ok([vaultMember()], { nextCursor: 'cur_2' }),
      );
      const page = await createClient().vaults.members.list(
        'vlt_1',
        { limit: 100, cursor: 'cur_1' },
        { idempotencyKey: CALLER_KEY },
      );

      expectSent(seen[0], {
        method: 'GET',
        rawPath: '/v1/vaults/vlt_1/members',
        search: '?limit=100&cursor=cur_1',
      });
      expect(seen[0]?.headers.has('idempotency-key')).toBe(false);
      expect(page.nextCursor).toBe('cur_2');
    });

    it.each([0, 101, 1.5])('refuses limit %s on a vault member list', async (limit) => {
      const sent = recordEverything();
      const error = await refusal(createClient().vaults.members.list('vlt_1', { limit }));
      expect(issuePaths(error)).toEqual(['limit']);
      expect(sent()).toEqual([]);
    });
  });

  describe('create', () => {
    it('adds a member with POST /v1/vaults/{vaultId}/members and returns the member', async () => {
      const seen = route('post', '/vaults/:id/members', () => ok(vaultMember(), { status: 201 }));
      const member = await createClient().vaults.members.create('vlt_1', {
        user_id: 'usr_1',
        role: 'editor',
      });

      expect(seen).toHaveLength(1);
      expectSent(seen[0], {
        method: 'POST',
        rawPath: '/v1/vaults/vlt_1/members',
        body: { user_id: 'usr_1', role: 'editor' },
      });
      expect(seen[0]?.headers.get('idempotency-key')).toMatch(UUID_V4);
      expect(member).toEqual(vaultMember());
    });

    it.each([
      ['user_id', { role: 'editor' }],
      ['role', { user_id: 'usr_1' }],
    ])('refuses a vault member create without %s', async (field, params) => {
      const sent = recordEverything();
      const error = await refusal(createClient().vaults.members.create('vlt_1', params as never));
      expect(issuePaths(error)).toEqual([field]);
      expect(sent()).toEqual([]);
    });

    it.each(['owner', 'viewer', 'Admin', ''])(
      'refuses the vault role %j on a vault member create',
      async (role) => {
        const sent = recordEverything();
        const error = await refusal(
          createClient().vaults.members.create('vlt_1', { user_id: 'usr_1', role } as never),
        );
        expect(issuePaths(error)).toEqual(['role']);
        expect(sent()).toEqual([]);
      },
    );
  });

  describe('update', () => {
    it('changes a role with PATCH and returns only id, vault_id and role', async () => {
      const seen = route('patch', '/vaults/:vaultId/members/:memberId', () =>
        ok({ id: 'vm_1', vault_id: 'vlt_1', role: 'admin' }),
      );
      const updated = await createClient().vaults.members.update('vlt_1', 'vm_1', {
        role: 'admin',
      });

      expect(seen).toHaveLength(1);
      expectSent(seen[0], {
        method: 'PATCH',
        rawPath: '/v1/vaults/vlt_1/members/vm_1',
        body: { role: 'admin' },
      });
      expect(seen[0]?.headers.has('idempotency-key')).toBe(false);
      expect(updated).toEqual({ id: 'vm_1', vault_id: 'vlt_1', role: 'admin' });
    });

    it('accepts a full member where only id, vault_id and role are promised', async () => {
      route('patch', '/vaults/:vaultId/members/:memberId', () =>
        ok(vaultMember({ role: 'admin' })),
      );
      const updated = await createClient().vaults.members.update('vlt_1', 'vm_1', {
        role: 'admin',
      });
      expect(updated).toEqual(vaultMember({ role: 'admin' }));
      expect((updated as unknown as { user: unknown }).user).toEqual(user);
    });

    it('refuses a vault member update without a role', async () => {
      const sent = recordEverything();
      const error = await refusal(
        createClient().vaults.members.update('vlt_1', 'vm_1', {} as never),
      );
      expect(issuePaths(error)).toEqual(['role']);
      expect(sent()).toEqual([]);
    });

    it('refuses a vault member update to a role outside admin, editor and member', async () => {
      const sent = recordEverything();
      const error = await refusal(
        createClient().vaults.members.update('vlt_1', 'vm_1', { role: 'owner' } as never),
      );
      expect(issuePaths(error)).toEqual(['role']);
      expect(sent()).toEqual([]);
    });
  });

  describe('delete', () => {
    it('removes a member with DELETE /v1/vaults/{vaultId}/members/{memberId}', async () => {
      const seen = route('delete', '/vaults/:vaultId/members/:memberId', () => noContent());
      const result = await createClient().vaults.members.delete('vlt_1', 'vm_1', {
        idempotencyKey: CALLER_KEY,
      });

      expect(seen).toHaveLength(1);
      expectSent(seen[0], { method: 'DELETE', rawPath: '/v1/vaults/vlt_1/members/vm_1' });
      expect(seen[0]?.headers.has('idempotency-key')).toBe(false);
      expect(result).toBeUndefined();
    });
  });
});

/** Every vault method with a path parameter, varying one parameter at a time. */
const idCalls: IdCall[] = [
  {
    call: 'vaults.get',
    param: 'vaultId',
    method: 'get',
    pattern: '/vaults/:id',
    run: (c, id) => c.vaults.get(id),
    rawPath: (s) => `/v1/vaults/${s}`,
    answer: () => ok(vault()),
  },
  {
    call: 'vaults.update',
    param: 'vaultId',
    method: 'patch',
    pattern: '/vaults/:id',
    run: (c, id) => c.vaults.update(id, { name: 'x' }),
    rawPath: (s) => `/v1/vaults/${s}`,
    answer: () => ok(vault()),
  },
  {
    call: 'vaults.delete',
    param: 'vaultId',
    method: 'delete',
    pattern: '/vaults/:id',
    run: (c, id) => c.vaults.delete(id),
    rawPath: (s) => `/v1/vaults/${s}`,
    answer: () => noContent(),
  },
  {
    call: 'vaults.members.list',
    param: 'vaultId',
    method: 'get',
    pattern: '/vaults/:id/members',
    run: (c, id) => c.vaults.members.list(id),
    rawPath: (s) => `/v1/vaults/${s}/members`,
    answer: () => ok([], { nextCursor: null }),
  },
  {
    call: 'vaults.members.create',
    param: 'vaultId',
    method: 'post',
    pattern: '/vaults/:id/members',
    run: (c, id) => c.vaults.members.create(id, { user_id: 'usr_1', role: 'member' }),
    rawPath: (s) => `/v1/vaults/${s}/members`,
    answer: () => ok(vaultMember(), { status: 201 }),
  },
  {
    call: 'vaults.members.update',
    param: 'vaultId',
    method: 'patch',
    pattern: '/vaults/:vaultId/members/:memberId',
    run: (c, id) => c.vaults.members.update(id, 'vm_1', { role: 'member' }),
    rawPath: (s) => `/v1/vaults/${s}/members/vm_1`,
    answer: () => ok({ id: 'vm_1', vault_id: 'vlt_1', role: 'member' }),
  },
  {
    call: 'vaults.members.update',
    param: 'memberId',
    method: 'patch',
    pattern: '/vaults/:vaultId/members/:memberId',
    run: (c, id) => c.vaults.members.update('vlt_1', id, { role: 'member' }),
    rawPath: (s) => `/v1/vaults/vlt_1/members/${s}`,
    answer: () => ok({ id: 'vm_1', vault_id: 'vlt_1', role: 'member' }),
  },
  {
    call: 'vaults.members.delete',
    param: 'vaultId',
    method: 'delete',
    pattern: '/vaults/:vaultId/members/:memberId',
    run: (c, id) => c.vaults.members.delete(id, 'vm_1'),
    rawPath: (s) => `/v1/vaults/${s}/members/vm_1`,
    answer: () => noContent(),
  },
  {
    call: 'vaults.members.delete',
    param: 'memberId',
    method: 'delete',
    pattern: '/vaults/:vaultId/members/:memberId',
    run: (c, id) => c.vaults.members.delete('vlt_1', id),
    rawPath: (s) => `/v1/vaults/vlt_1/members/${s}`,
    answer: () => noContent(),
  },
];

describePathParameters('client.vaults', idCalls);
