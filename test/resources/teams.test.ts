import { describe, expect, it } from 'vitest';
import type { TeamCreateParams } from '../../src/index.js';
import { createClient, noContent, ok, route, team, teamMember } from '../helpers.js';
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

describe('client.teams', () => {
  describe('list', () => {
    it('lists teams with GET /v1/teams and no query, returning the first page', async () => {
      const seen = route('get', '/teams', () =>
        ok([team(), team({ id: 'team_2', name: 'Security' })], { nextCursor: null }),
      );
      const page = await createClient().teams.list();

      expect(seen).toHaveLength(1);
      expectSent(seen[0], { method: 'GET', rawPath: '/v1/teams' });
      expect(seen[0]?.headers.has('idempotency-key')).toBe(false);
      expect(page.data).toEqual([team(), team({ id: 'team_2', name: 'Security' })]);
      expect(page.nextCursor).toBeNull();
    });

    it('sends limit and cursor when listing teams and exposes the next cursor', async () => {
      const seen = route('get', '/teams', () => ok([team()], { nextCursor: 'cur_2' }));
      const page = await createClient().teams.list(
        { limit: 50, cursor: 'cur_1' },
        { idempotencyKey: CALLER_KEY },
      );

      expectSent(seen[0], {
        method: 'GET',
        rawPath: '/v1/teams',
        search: '?limit=50&cursor=cur_1',
      });
      expect(seen[0]?.headers.has('idempotency-key')).toBe(false);
      expect(page.data).toEqual([team()]);
      expect(page.nextCursor).toBe('cur_2');
    });

    it.each([0, 101, 1.5])('refuses limit %s on a team list before sending', async (limit) => {
      const sent = recordEverything();
      const error = await refusal(createClient().teams.list({ limit }));
      expect(issuePaths(error)).toEqual(['limit']);
      expect(sent()).toEqual([]);
    });

    it('keeps fields it does not know on listed teams', async () => {
      route('get', '/teams', () => ok([team({ member_count: 4 })], { nextCursor: null }));
      const page = await createClient().teams.list();
      expect(page.data).toEqual([team({ member_count: 4 })]);
    });
  });

  describe('create', () => {
    it('creates a team with POST /v1/teams and returns the team', async () => {
      const seen = route('post', '/teams', () =>
        ok(team(), { status: 201, headers: { Location: '/v1/teams/team_1' } }),
      );
      const created = await createClient().teams.create({ name: 'Platform' });

      expect(seen).toHaveLength(1);
      expectSent(seen[0], { method: 'POST', rawPath: '/v1/teams', body: { name: 'Platform' } });
      expect(seen[0]?.headers.get('idempotency-key')).toMatch(UUID_V4);
      expect(created).toEqual(team());
    });

    it('sends a 255-character printable caller key unchanged', async () => {
      const seen = route('post', '/teams', () => ok(team(), { status: 201 }));
      const key = `${'~'.repeat(127)} ${'!'.repeat(127)}`;
      await createClient().teams.create({ name: 'Platform' }, { idempotencyKey: key });
      expect(seen[0]?.headers.get('idempotency-key')).toBe(key);
    });

    it('refuses a team create without a name before sending', async () => {
      const sent = recordEverything();
      const error = await refusal(createClient().teams.create({} as unknown as TeamCreateParams));
      expect(issuePaths(error)).toEqual(['name']);
      expect(sent()).toEqual([]);
    });

    it('refuses a team create body over 1 MB before sending', async () => {
      const sent = recordEverything();
      await refusal(createClient().teams.create({ name: 'n'.repeat(1_000_001) }));
      expect(sent()).toEqual([]);
    });
  });

  describe('get', () => {
    it('fetches a team with GET /v1/teams/{teamId}', async () => {
      const seen = route('get', '/teams/:id', () => ok(team()));
      const found = await createClient().teams.get('team_1', { idempotencyKey: CALLER_KEY });

      expect(seen).toHaveLength(1);
      expectSent(seen[0], { method: 'GET', rawPath: '/v1/teams/team_1' });
      expect(seen[0]?.headers.has('idempotency-key')).toBe(false);
      expect(found).toEqual(team());
    });

    it('keeps fields it does not know on a fetched team', async () => {
      route('get', '/teams/:id', () => ok(team({ description: 'infra people' })));
      const found = await createClient().teams.get('team_1');
      expect(found).toEqual(team({ description: 'infra people' }));
    });
  });

  describe('update', () => {
    it('patches a team with only the fields given and returns the team', async () => {
      const seen = route('patch', '/teams/:id', () =>
        ok(team({ name: 'Infra', color: '#ff00AA' })),
      );
      const updated = await createClient().teams.update('team_1', {
        name: 'Infra',
        icon_index: 0,
        color: '#ff00AA',
      });

      expect(seen).toHaveLength(1);
      expectSent(seen[0], {
        method: 'PATCH',
        rawPath: '/v1/teams/team_1',
        body: { name: 'Infra', icon_index: 0, color: '#ff00AA' },
      });
      expect(updated).toEqual(team({ name: 'Infra', color: '#ff00AA' }));
    });

    it.each(['green', '#22C55', '#22C55E0', '22C55E', '#22C55G'])(
      'refuses the colour %j on a team update before sending',
      async (color) => {
        const sent = recordEverything();
        const error = await refusal(createClient().teams.update('team_1', { color }));
        expect(issuePaths(error)).toEqual(['color']);
        expect(sent()).toEqual([]);
      },
    );
  });

  describe('delete', () => {
    it('deletes a team with DELETE /v1/teams/{teamId} and resolves to undefined', async () => {
      const seen = route('delete', '/teams/:id', () => noContent());
      const result = await createClient().teams.delete('team_1', { idempotencyKey: CALLER_KEY });

      expect(seen).toHaveLength(1);
      expectSent(seen[0], { method: 'DELETE', rawPath: '/v1/teams/team_1' });
      expect(seen[0]?.headers.has('idempotency-key')).toBe(false);
      expect(result).toBeUndefined();
    });

    it('resolves to undefined when a team delete is answered 200 with an envelope', async () => {
      route('delete', '/teams/:id', () => ok(null));
      await expect(createClient().teams.delete('team_1')).resolves.toBeUndefined();
    });
  });
});

describe('client.teams.members', () => {
  describe('list', () => {
    it('lists the members of a team with GET /v1/teams/{teamId}/members', async () => {
      const seen = route('get', '/teams/:id/members', () =>
        ok([teamMember(), teamMember({ id: 'tm_2' })], { nextCursor: null }),
      );
      const page = await createClient().teams.members.list('team_1');

      expect(seen).toHaveLength(1);
      expectSent(seen[0], { method: 'GET', rawPath: '/v1/teams/team_1/members' });
      expect(seen[0]?.headers.has('idempotency-key')).toBe(false);
      expect(page.data).toEqual([teamMember(), teamMember({ id: 'tm_2' })]);
      expect(page.nextCursor).toBeNull();
    });

    it('sends limit and cursor when listing team members', async () => {
      const seen = route('get', '/teams/:id/members', () =>
        ok([teamMember()], { nextCursor: 'cur_2' }),
      );
      const page = await createClient().teams.members.list(
        'team_1',
        { limit: 2, cursor: 'cur_1' },
        { idempotencyKey: CALLER_KEY },
      );

      expectSent(seen[0], {
        method: 'GET',
        rawPath: '/v1/teams/team_1/members',
        search: '?limit=2&cursor=cur_1',
      });
      expect(seen[0]?.headers.has('idempotency-key')).toBe(false);
      expect(page.nextCursor).toBe('cur_2');
    });

    it.each([0, 101, 1.5])('refuses limit %s on a team member list', async (limit) => {
      const sent = recordEverything();
      const error = await refusal(createClient().teams.members.list('team_1', { limit }));
      expect(issuePaths(error)).toEqual(['limit']);
      expect(sent()).toEqual([]);
    });

    it('keeps fields it does not know on listed team members', async () => {
      route('get', '/teams/:id/members', () =>
        ok([teamMember({ added_by: 'usr_9' })], { nextCursor: null }),
      );
      const page = await createClient().teams.members.list('team_1');
      expect(page.data).toEqual([teamMember({ added_by: 'usr_9' })]);
    });
  });

  describe('create', () => {
    it('adds a member with POST /v1/teams/{teamId}/members and returns the member', async () => {
      const seen = route('post', '/teams/:id/members', () => ok(teamMember(), { status: 201 }));
      const member = await createClient().teams.members.create('team_1', { user_id: 'usr_1' });

      expect(seen).toHaveLength(1);
      expectSent(seen[0], {
        method: 'POST',
        rawPath: '/v1/teams/team_1/members',
        body: { user_id: 'usr_1' },
      });
      expect(seen[0]?.headers.get('idempotency-key')).toMatch(UUID_V4);
      expect(member).toEqual(teamMember());
    });

    it('refuses a team member create without user_id before sending', async () => {
      const sent = recordEverything();
      const error = await refusal(createClient().teams.members.create('team_1', {} as never));
      expect(issuePaths(error)).toEqual(['user_id']);
      expect(sent()).toEqual([]);
    });
  });

  describe('delete', () => {
    it('removes a member with DELETE /v1/teams/{teamId}/members/{memberId}', async () => {
      const seen = route('delete', '/teams/:teamId/members/:memberId', () => noContent());
      const result = await createClient().teams.members.delete('team_1', 'tm_1', {
        idempotencyKey: CALLER_KEY,
      });

      expect(seen).toHaveLength(1);
      expectSent(seen[0], { method: 'DELETE', rawPath: '/v1/teams/team_1/members/tm_1' });
      expect(seen[0]?.headers.has('idempotency-key')).toBe(false);
      expect(result).toBeUndefined();
    });
  });
});

/** Every team method with a path parameter, varying one parameter at a time. */
const idCalls: IdCall[] = [
  {
    call: 'teams.get',
    param: 'teamId',
    method: 'get',
    pattern: '/teams/:id',
    run: (c, id) => c.teams.get(id),
    rawPath: (s) => `/v1/teams/${s}`,
    answer: () => ok(team()),
  },
  {
    call: 'teams.update',
    param: 'teamId',
    method: 'patch',
    pattern: '/teams/:id',
    run: (c, id) => c.teams.update(id, { name: 'x' }),
    rawPath: (s) => `/v1/teams/${s}`,
    answer: () => ok(team()),
  },
  {
    call: 'teams.delete',
    param: 'teamId',
    method: 'delete',
    pattern: '/teams/:id',
    run: (c, id) => c.teams.delete(id),
    rawPath: (s) => `/v1/teams/${s}`,
    answer: () => noContent(),
  },
  {
    call: 'teams.members.list',
    param: 'teamId',
    method: 'get',
    pattern: '/teams/:id/members',
    run: (c, id) => c.teams.members.list(id),
    rawPath: (s) => `/v1/teams/${s}/members`,
    answer: () => ok([], { nextCursor: null }),
  },
  {
    call: 'teams.members.create',
    param: 'teamId',
    method: 'post',
    pattern: '/teams/:id/members',
    run: (c, id) => c.teams.members.create(id, { user_id: 'usr_1' }),
    rawPath: (s) => `/v1/teams/${s}/members`,
    answer: () => ok(teamMember(), { status: 201 }),
  },
  {
    call: 'teams.members.delete',
    param: 'teamId',
    method: 'delete',
    pattern: '/teams/:teamId/members/:memberId',
    run: (c, id) => c.teams.members.delete(id, 'tm_1'),
    rawPath: (s) => `/v1/teams/${s}/members/tm_1`,
    answer: () => noContent(),
  },
  {
    call: 'teams.members.delete',
    param: 'memberId',
    method: 'delete',
    pattern: '/teams/:teamId/members/:memberId',
    run: (c, id) => c.teams.members.delete('team_1', id),
    rawPath: (s) => `/v1/teams/team_1/members/${s}`,
    answer: () => noContent(),
  },
];

describePathParameters('client.teams', idCalls);
