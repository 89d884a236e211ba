/**
 * Teams and their members as TanStack Query options: `q.teams` and `q.teams.members`.
 */
import type {
  SecretsVault,
  Team,
  TeamCreateParams,
  TeamListParams,
  TeamMember,
  TeamMemberCreateParams,
  TeamMemberListParams,
  TeamUpdateParams,
} from '@secrets-vault/sdk';
import type { QueryBuilders } from './builders.js';
import type { ListMethod, MutationMethod, QueryMethod, SecretsVaultQueryKey } from './types.js';

/**
 * `client.teams` as query options.
 * @inline
 */
export interface TeamsQueries {
  /** `[scope, 'teams']`. */
  key(): SecretsVaultQueryKey;
  /** `client.teams.list(params?)`. */
  readonly list: ListMethod<[], TeamListParams, Team>;
  /** `client.teams.get(teamId)`. */
  readonly get: QueryMethod<[teamId: string], Team>;
  /** `client.teams.create(params)`. */
  readonly create: MutationMethod<[], TeamCreateParams, Team>;
  /** `client.teams.update(teamId, params)`: `teamId` bound. */
  readonly update: MutationMethod<[teamId: string], TeamUpdateParams, Team>;
  /** `client.teams.delete(teamId)`: variables are the team id. */
  readonly delete: MutationMethod<[], string, void>;
  /** `client.teams.members`. */
  readonly members: TeamMembersQueries;
}

/**
 * `client.teams.members` as query options.
 * @inline
 */
export interface TeamMembersQueries {
  /** `[scope, 'teams', 'members']`. */
  key(): SecretsVaultQueryKey;
  /** `client.teams.members.list(teamId, params?)`. */
  readonly list: ListMethod<[teamId: string], TeamMemberListParams, TeamMember>;
  /** `client.teams.members.create(teamId, params)`: `teamId` bound. */
  readonly create: MutationMethod<[teamId: string], TeamMemberCreateParams, TeamMember>;
  /** `client.teams.members.delete(teamId, memberId)`: `teamId` bound, variables the member id. */
  readonly delete: MutationMethod<[teamId: string], string, void>;
}

/** The options of `client.teams` and `client.teams.members`, built with `build`'s scope. */
export function teamsQueries(client: SecretsVault, build: QueryBuilders): TeamsQueries {
  const { key, read, list, write } = build;
  return {
    key: () => key('teams'),
    list: list(['teams', 'list'], [], (o, params: TeamListParams) => client.teams.list(params, o)),
    get: read(['teams', 'get'], ['teamId'], (o, teamId) => client.teams.get(teamId, o)),
    create: write(
      ['teams', 'create'],
      [],
      (o, params: TeamCreateParams) => client.teams.create(params, o),
      () => [key('teams', 'list')],
    ),
    update: write(
      ['teams', 'update'],
      ['teamId'],
      (o, teamId, params: TeamUpdateParams) => client.teams.update(teamId, params, o),
      ({ teamId }) => [key('teams', 'list'), key('teams', 'get', teamId)],
    ),
    // A deleted team's vaults stay, without a team: their `team_id` changes.
    delete: write(
      ['teams', 'delete'],
      [],
      (o, teamId: string) => client.teams.delete(teamId, o),
      () => [key('teams'), key('vaults', 'list'), key('vaults', 'get')],
    ),
    members: {
      key: () => key('teams', 'members'),
      list: list(
        ['teams', 'members', 'list'],
        ['teamId'],
        (o, teamId, params: TeamMemberListParams) => client.teams.members.list(teamId, params, o),
      ),
      create: write(
        ['teams', 'members', 'create'],
        ['teamId'],
        (o, teamId, params: TeamMemberCreateParams) =>
          client.teams.members.create(teamId, params, o),
        ({ teamId }) => [key('teams', 'members', 'list', teamId)],
      ),
      delete: write(
        ['teams', 'members', 'delete'],
        ['teamId'],
        (o, teamId, memberId: string) => client.teams.members.delete(teamId, memberId, o),
        ({ teamId }) => [key('teams', 'members', 'list', teamId)],
      ),
    },
  };
}
