import { describe, it } from 'vitest';
import { team, teamMember } from '../helpers.js';
import {
  describeMethods,
  expectRefusedBeforeSending,
  one,
  page,
  type ResourceMethod,
} from './resource-helpers.js';

const methods: ResourceMethod[] = [
  {
    call: 'teams.list',
    route: 'GET /teams',
    answer: page(team(), { member_count: 4 }),
    run: (client, _ids, query, options) => client.teams.list(query, options),
  },
  {
    call: 'teams.create',
    route: 'POST /teams',
    answer: one(team()),
    run: (client) => client.teams.create({ name: 'Platform' }),
  },
  {
    call: 'teams.get',
    route: 'GET /teams/{teamId}',
    answer: one(team(), { description: 'infra people' }),
    run: (client, ids) => client.teams.get(ids.teamId),
  },
  {
    call: 'teams.update',
    route: 'PATCH /teams/{teamId}',
    answer: one(team()),
    run: (client, ids) => client.teams.update(ids.teamId, { name: 'x' }),
  },
  {
    call: 'teams.delete',
    route: 'DELETE /teams/{teamId}',
    run: (client, ids) => client.teams.delete(ids.teamId),
  },
  {
    call: 'teams.members.list',
    route: 'GET /teams/{teamId}/members',
    answer: page(teamMember(), { added_by: 'usr_9' }),
    run: (client, ids, query, options) => client.teams.members.list(ids.teamId, query, options),
  },
  {
    call: 'teams.members.create',
    route: 'POST /teams/{teamId}/members',
    answer: one(teamMember()),
    run: (client, ids) => client.teams.members.create(ids.teamId, { user_id: 'usr_1' }),
  },
  {
    call: 'teams.members.delete',
    route: 'DELETE /teams/{teamId}/members/{memberId}',
    run: (client, ids) => client.teams.members.delete(ids.teamId, ids.memberId),
  },
];

describeMethods('client.teams', methods);

describe('client.teams input', () => {
  it('refuses a team create body over 1 MB before sending', async () => {
    await expectRefusedBeforeSending((client) =>
      client.teams.create({ name: 'n'.repeat(1_000_001) }),
    );
  });

  it.each(['green', '#22C55', '#22C55E0', '22C55E', '#22C55G'])(
    'refuses the colour %j on a team update before sending',
    async (color) => {
      await expectRefusedBeforeSending(
        (client) => client.teams.update('team_1', { color }),
        ['color'],
      );
    },
  );
});
