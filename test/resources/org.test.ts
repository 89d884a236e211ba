import { describe, expect, it } from 'vitest';
import type { InvitationCreateParams } from '../../src/index.js';
import {
  createClient,
  invitation,
  noContent,
  ok,
  organization,
  orgMember,
  route,
} from '../helpers.js';
import {
  CALLER_KEY,
  describePathParameters,
  expectSent,
  type IdCall,
  issuePaths,
  recordEverything,
  refusal,
  SUCCESS_ANSWERS,
  UUID_V4,
} from './resource-helpers.js';

describe('client.org', () => {
  describe('get', () => {
    it("fetches the caller's organization with GET /v1/org", async () => {
      const seen = route('get', '/org', () => ok(organization()));
      const org = await createClient().org.get();

      expect(seen).toHaveLength(1);
      expectSent(seen[0], { method: 'GET', rawPath: '/v1/org' });
      expect(seen[0]?.headers.has('idempotency-key')).toBe(false);
      expect(org).toEqual(organization());
    });

    it('accepts a plan it has never seen and fields it does not know', async () => {
      route('get', '/org', () => ok(organization({ plan: 'galactic', seats: 250 })));
      const org = await createClient().org.get();
      expect(org).toEqual(organization({ plan: 'galactic', seats: 250 }));
      expect(org.plan).toBe('galactic');
    });

    it('gives the request id of an organization get through withResponse', async () => {
      const answer = ok(organization());
      const requestId = answer.headers.get('x-request-id');
      route('get', '/org', () => answer);
      const result = await createClient().org.get().withResponse();
      expect(result.data).toEqual(organization());
      expect(result.requestId).toBe(requestId);
      expect(result.replayed).toBe(false);
    });
  });
});

describe('client.org.members', () => {
  describe('list', () => {
    it('lists organization members with GET /v1/org/members', async () => {
      const seen = route('get', '/org/members', () =>
        ok([orgMember(), orgMember({ id: 'om_2', role: 'owner' })], { nextCursor: null }),
      );
      const page = await createClient().org.members.list();

      expect(seen).toHaveLength(1);
      expectSent(seen[0], { method: 'GET', rawPath: '/v1/org/members' });
      expect(seen[0]?.headers.has('idempotency-key')).toBe(false);
      expect(page.data).toEqual([orgMember(), orgMember({ id: 'om_2', role: 'owner' })]);
      expect(page.nextCursor).toBeNull();
    });

    it('sends limit and cursor when listing organization members', async () => {
      const seen = route('get', '/org/members', () => ok([orgMember()], { nextCursor: 'cur_2' }));
      const page = await createClient().org.members.list(
        { limit: 99, cursor: 'cur_1' },
        { idempotencyKey: CALLER_KEY },
      );

      expectSent(seen[0], {
        method: 'GET',
        rawPath: '/v1/org/members',
        search: '?limit=99&cursor=cur_1',
      });
      expect(seen[0]?.headers.has('idempotency-key')).toBe(false);
      expect(page.data).toEqual([orgMember()]);
      expect(page.nextCursor).toBe('cur_2');
    });

    it.each([0, 101, 1.5])('refuses limit %s on an organization member list', async (limit) => {
      const sent = recordEverything();
      const error = await refusal(createClient().org.members.list({ limit }));
      expect(issuePaths(error)).toEqual(['limit']);
      expect(sent()).toEqual([]);
    });

    it('accepts member statuses and roles it has never seen, and unknown fields', async () => {
      const member = orgMember({ status: 'on_leave', role: 'auditor', last_seen_at: null });
      route('get', '/org/members', () => ok([member], { nextCursor: null }));
      const page = await createClient().org.members.list();
      expect(page.data).toEqual([member]);
      expect(page.data[0]?.status).toBe('on_leave');
    });
  });

  describe('update', () => {
    it("changes a member's role with PATCH /v1/org/members/{memberId}", async () => {
      const seen = route('patch', '/org/members/:id', () => ok(orgMember({ role: 'member' })));
      const updated = await createClient().org.members.update('om_1', { role: 'member' });

      expect(seen).toHaveLength(1);
      expectSent(seen[0], {
        method: 'PATCH',
        rawPath: '/v1/org/members/om_1',
        body: { role: 'member' },
      });
      expect(seen[0]?.headers.has('idempotency-key')).toBe(false);
      expect(updated).toEqual(orgMember({ role: 'member' }));
    });

    it('sends role owner on a member update, which transfers ownership', async () => {
      const seen = route('patch', '/org/members/:id', () => ok(orgMember({ role: 'owner' })));
      const updated = await createClient().org.members.update('om_1', { role: 'owner' });
      expect(seen[0]?.body).toEqual({ role: 'owner' });
      expect(updated.role).toBe('owner');
    });

    it('refuses a member update without a role before sending', async () => {
      const sent = recordEverything();
      const error = await refusal(createClient().org.members.update('om_1', {} as never));
      expect(issuePaths(error)).toEqual(['role']);
      expect(sent()).toEqual([]);
    });

    it('accepts an updated member with a status it has never seen', async () => {
      route('patch', '/org/members/:id', () => ok(orgMember({ status: 'suspended_by_scim' })));
      const updated = await createClient().org.members.update('om_1', { role: 'admin' });
      expect(updated).toEqual(orgMember({ status: 'suspended_by_scim' }));
    });
  });

  describe('delete', () => {
    it('removes a member with DELETE /v1/org/members/{memberId} and resolves to undefined', async () => {
      const seen = route('delete', '/org/members/:id', () => noContent());
      const result = await createClient().org.members.delete('om_1', {
        idempotencyKey: CALLER_KEY,
      });

      expect(seen).toHaveLength(1);
      expectSent(seen[0], { method: 'DELETE', rawPath: '/v1/org/members/om_1' });
      expect(seen[0]?.headers.has('idempotency-key')).toBe(false);
      expect(result).toBeUndefined();
    });

    it('resolves to undefined when a member delete is answered 200 with an envelope', async () => {
      route('delete', '/org/members/:id', () => ok(null));
      await expect(createClient().org.members.delete('om_1')).resolves.toBeUndefined();
    });
  });
});

describe('client.org.invitations', () => {
  describe('list', () => {
    it('lists invitations with GET /v1/org/invitations', async () => {
      const seen = route('get', '/org/invitations', () =>
        ok([invitation(), invitation({ id: 'inv_2', status: 'accepted' })], { nextCursor: null }),
      );
      const page = await createClient().org.invitations.list();

      expect(seen).toHaveLength(1);
      expectSent(seen[0], { method: 'GET', rawPath: '/v1/org/invitations' });
      expect(seen[0]?.headers.has('idempotency-key')).toBe(false);
      expect(page.data).toEqual([invitation(), invitation({ id: 'inv_2', status: 'accepted' })]);
      expect(page.nextCursor).toBeNull();
    });

    it('sends limit and cursor when listing invitations', async () => {
      const seen = route('get', '/org/invitations', () =>
        ok([invitation()], { nextCursor: 'cur_2' }),
      );
      const page = await createClient().org.invitations.list(
        { limit: 3, cursor: 'cur_1' },
        { idempotencyKey: CALLER_KEY },
      );

      expectSent(seen[0], {
        method: 'GET',
        rawPath: '/v1/org/invitations',
        search: '?limit=3&cursor=cur_1',
      });
      expect(seen[0]?.headers.has('idempotency-key')).toBe(false);
      expect(page.nextCursor).toBe('cur_2');
    });

    it.each([0, 101, 1.5])('refuses limit %s on an invitation list', async (limit) => {
      const sent = recordEverything();
      const error = await refusal(createClient().org.invitations.list({ limit }));
      expect(issuePaths(error)).toEqual(['limit']);
      expect(sent()).toEqual([]);
    });

    it('accepts invitation statuses it has never seen, and unknown fields', async () => {
      const bounced = invitation({ status: 'bounced', resent_count: 2 });
      route('get', '/org/invitations', () => ok([bounced], { nextCursor: null }));
      const page = await createClient().org.invitations.list();
      expect(page.data).toEqual([bounced]);
      expect(page.data[0]?.status).toBe('bounced');
    });
  });

  describe('create', () => {
    it('invites with POST /v1/org/invitations and returns the invitation', async () => {
      const seen = route('post', '/org/invitations', () => ok(invitation(), { status: 201 }));
      const created = await createClient().org.invitations.create({
        email: 'grace@example.com',
        role: 'member',
      });

      expect(seen).toHaveLength(1);
      expectSent(seen[0], {
        method: 'POST',
        rawPath: '/v1/org/invitations',
        body: { email: 'grace@example.com', role: 'member' },
      });
      expect(seen[0]?.headers.get('idempotency-key')).toMatch(UUID_V4);
      expect(created).toEqual(invitation());
    });

    it.each(SUCCESS_ANSWERS)(
      'accepts an invitation create answered $status (Location: $location)',
      async ({ status, location }) => {
        route('post', '/org/invitations', () =>
          ok(invitation(), {
            status,
            headers: location ? { Location: '/v1/org/invitations/inv_1' } : {},
          }),
        );
        await expect(
          createClient().org.invitations.create({ email: 'grace@example.com', role: 'member' }),
        ).resolves.toEqual(invitation());
      },
    );

    it.each([
      ['email', { role: 'member' }],
      ['role', { email: 'grace@example.com' }],
    ])('refuses an invitation without %s before sending', async (field, params) => {
      const sent = recordEverything();
      const error = await refusal(
        createClient().org.invitations.create(params as unknown as InvitationCreateParams),
      );
      expect(issuePaths(error)).toEqual([field]);
      expect(sent()).toEqual([]);
    });

    it('refuses an invitation with role owner before sending', async () => {
      const sent = recordEverything();
      const error = await refusal(
        createClient().org.invitations.create({ email: 'grace@example.com', role: 'owner' }),
      );
      expect(issuePaths(error)).toEqual(['role']);
      expect(sent()).toEqual([]);
    });

    it('accepts a created invitation with a status it has never seen', async () => {
      route('post', '/org/invitations', () =>
        ok(invitation({ status: 'queued', invite_url: 'https://x' }), { status: 201 }),
      );
      const created = await createClient().org.invitations.create({
        email: 'grace@example.com',
        role: 'member',
      });
      expect(created).toEqual(invitation({ status: 'queued', invite_url: 'https://x' }));
    });
  });
});

/** Every organization method with a path parameter. */
const idCalls: IdCall[] = [
  {
    call: 'org.members.update',
    param: 'memberId',
    method: 'patch',
    pattern: '/org/members/:id',
    run: (c, id) => c.org.members.update(id, { role: 'admin' }),
    rawPath: (s) => `/v1/org/members/${s}`,
    answer: () => ok(orgMember()),
  },
  {
    call: 'org.members.delete',
    param: 'memberId',
    method: 'delete',
    pattern: '/org/members/:id',
    run: (c, id) => c.org.members.delete(id),
    rawPath: (s) => `/v1/org/members/${s}`,
    answer: () => noContent(),
  },
];

describePathParameters('client.org', idCalls);
