import { describe, expect, it } from 'vitest';
import { createClient, invitation, ok, organization, orgMember, route } from '../helpers.js';
import {
  describeMethods,
  expectRefusedBeforeSending,
  one,
  page,
  type ResourceMethod,
} from './resource-helpers.js';

const methods: ResourceMethod[] = [
  {
    call: 'org.get',
    route: 'GET /org',
    answer: one(organization(), { plan: 'galactic', seats: 250 }),
    run: (client) => client.org.get(),
  },
  {
    call: 'org.members.list',
    route: 'GET /org/members',
    answer: page(orgMember(), { status: 'on_leave', role: 'auditor', last_seen_at: null }),
    run: (client, _ids, query, options) => client.org.members.list(query, options),
  },
  {
    call: 'org.members.update',
    route: 'PATCH /org/members/{memberId}',
    answer: one(orgMember(), { status: 'suspended_by_scim' }),
    run: (client, ids) => client.org.members.update(ids.memberId, { role: 'admin' }),
  },
  {
    call: 'org.members.delete',
    route: 'DELETE /org/members/{memberId}',
    run: (client, ids) => client.org.members.delete(ids.memberId),
  },
  {
    call: 'org.invitations.list',
    route: 'GET /org/invitations',
    answer: page(invitation(), { status: 'bounced', resent_count: 2 }),
    run: (client, _ids, query, options) => client.org.invitations.list(query, options),
  },
  {
    call: 'org.invitations.create',
    route: 'POST /org/invitations',
    answer: one(invitation(), { status: 'queued', invite_url: 'https://x' }),
    run: (client) => client.org.invitations.create({ email: 'grace@example.com', role: 'member' }),
  },
];

describeMethods('client.org', methods);

describe('client.org', () => {
  it('gives the request id of an organization get through withResponse', async () => {
    const answer = ok(organization());
    const requestId = answer.headers.get('x-request-id');
    route('get', '/org', () => answer);
    const result = await createClient().org.get().withResponse();
    expect(result.data).toEqual(organization());
    expect(result.requestId).toBe(requestId);
    expect(result.replayed).toBe(false);
  });

  it('refuses an invitation without a role before sending', async () => {
    await expectRefusedBeforeSending(
      (client) => client.org.invitations.create({ email: 'grace@example.com' } as never),
      ['role'],
    );
  });
});
