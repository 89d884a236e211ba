/**
 * Teams and their members: the `teams` namespace and `teams.members`.
 */
import * as z from 'zod/mini';
import type { APIPromise } from '../core/api-promise.js';
import type { RequestOptions } from '../core/options.js';
import type { PagePromise } from '../core/pagination.js';
import { APIResource, HexColor, integer, ListParams, User } from './shared.js';

/** A team: a group of users inside an organization; vaults may belong to it. */
export interface Team {
  /** The team's identifier. */
  id: string;
  /** The identifier of the organization the team belongs to. */
  org_id: string;
  /** The team's display name. */
  name: string;
  /** Which icon the team shows, as an integer index. */
  icon_index: number;
  /** The team's colour, in the form `#RRGGBB`. */
  color: string;
  /** When the team was created: an ISO 8601 UTC timestamp. */
  created_at: string;
}
/** Checks a `Team` received from the service; unknown keys are tolerated. */
export const Team = z.object({
  id: z.string(),
  org_id: z.string(),
  name: z.string(),
  icon_index: z.number(),
  color: z.string(),
  created_at: z.string(),
}) satisfies z.ZodMiniType<Team>;

/** Body of {@link Teams.create}. */
export interface TeamCreateParams {
  /** The team's display name. */
  name: string;
}
/** Checks a `TeamCreateParams` body before it is sent. */
export const TeamCreateParams = z.object({
  name: z.string(),
}) satisfies z.ZodMiniType<TeamCreateParams, TeamCreateParams>;

/** Body of {@link Teams.update}: omitted fields keep their value. */
export interface TeamUpdateParams {
  /** A new display name; omitted, the name is kept. */
  name?: string | undefined;
  /** A new icon, as an integer index; omitted, the icon is kept. */
  icon_index?: number | undefined;
  /** A new colour, in the form `#RRGGBB`; omitted, the colour is kept. */
  color?: string | undefined;
}
/** Checks a `TeamUpdateParams` body before it is sent. */
export const TeamUpdateParams = z.object({
  name: z.optional(z.string()),
  icon_index: z.optional(integer('must be an integer')),
  color: z.optional(HexColor),
}) satisfies z.ZodMiniType<TeamUpdateParams, TeamUpdateParams>;

/** Query parameters of {@link Teams.list}. */
export type TeamListParams = ListParams;
/** Checks `TeamListParams` before they are sent. */
export const TeamListParams = ListParams;

/** A user's membership of a team; membership carries no role. */
export interface TeamMember {
  /** The membership's identifier: the `memberId` of {@link TeamMembers.delete}. */
  id: string;
  /** The identifier of the team. */
  team_id: string;
  /** The member. */
  user: User;
  /** When the user was added to the team: an ISO 8601 UTC timestamp. */
  created_at: string;
}
/** Checks a `TeamMember` received from the service; unknown keys are tolerated. */
export const TeamMember = z.object({
  id: z.string(),
  team_id: z.string(),
  user: User,
  created_at: z.string(),
}) satisfies z.ZodMiniType<TeamMember>;

/** Body of {@link TeamMembers.create}: the user to add. */
export interface TeamMemberCreateParams {
  /** The identifier of the user to add. */
  user_id: string;
}
/** Checks a `TeamMemberCreateParams` body before it is sent. */
export const TeamMemberCreateParams = z.object({
  user_id: z.string(),
}) satisfies z.ZodMiniType<TeamMemberCreateParams, TeamMemberCreateParams>;

/** Query parameters of {@link TeamMembers.list}. */
export type TeamMemberListParams = ListParams;
/** Checks `TeamMemberListParams` before they are sent. */
export const TeamMemberListParams = ListParams;

/** The members of a team: `client.teams.members`. There is no update: membership has no role. */
export class TeamMembers extends APIResource {
  /**
   * Lists the members of a team, newest first.
   *
   * @example
   * ```ts
   * const members = await client.teams.members.list(teamId).toArray();
   * ```
   */
  list(
    teamId: string,
    params: TeamMemberListParams = {},
    options?: RequestOptions,
  ): PagePromise<TeamMember> {
    return this.core.list({
      operation: 'teams.members.list',
      method: 'GET',
      path: '/teams/{teamId}/members',
      pathParams: { teamId },
      query: { value: params, schema: TeamMemberListParams },
      expected: { kind: 'page', schema: TeamMember },
      options,
    });
  }

  /**
   * Adds a user to a team. Sent with an `Idempotency-Key`, so retries never add twice.
   *
   * @example
   * ```ts
   * const member = await client.teams.members.create(teamId, { user_id: userId });
   * ```
   */
  create(
    teamId: string,
    params: TeamMemberCreateParams,
    options?: RequestOptions,
  ): APIPromise<TeamMember> {
    return this.core.request({
      operation: 'teams.members.create',
      method: 'POST',
      path: '/teams/{teamId}/members',
      pathParams: { teamId },
      body: { value: params, schema: TeamMemberCreateParams },
      idempotent: true,
      expected: { kind: 'data', schema: TeamMember },
      options,
    });
  }

  /**
   * Removes a member from a team.
   *
   * @example
   * ```ts
   * await client.teams.members.delete(teamId, memberId);
   * ```
   */
  delete(teamId: string, memberId: string, options?: RequestOptions): APIPromise<void> {
    return this.core.request({
      operation: 'teams.members.delete',
      method: 'DELETE',
      path: '/teams/{teamId}/members/{memberId}',
      pathParams: { teamId, memberId },
      expected: { kind: 'nothing' },
      options,
    });
  }
}

/** Teams: `client.teams`. */
export class Teams extends APIResource {
  /** The members of a team. */
  readonly members: TeamMembers = new TeamMembers(this.core);

  /**
   * Lists the teams of the caller's organization, newest first.
   *
   * @example
   * ```ts
   * for await (const team of client.teams.list()) console.log(team.name);
   * ```
   */
  list(params: TeamListParams = {}, options?: RequestOptions): PagePromise<Team> {
    return this.core.list({
      operation: 'teams.list',
      method: 'GET',
      path: '/teams',
      query: { value: params, schema: TeamListParams },
      expected: { kind: 'page', schema: Team },
      options,
    });
  }

  /**
   * Creates a team. Sent with an `Idempotency-Key`, so retries never create a second team.
   *
   * @example
   * ```ts
   * const team = await client.teams.create({ name: 'Platform' });
   * ```
   */
  create(params: TeamCreateParams, options?: RequestOptions): APIPromise<Team> {
    return this.core.request({
      operation: 'teams.create',
      method: 'POST',
      path: '/teams',
      body: { value: params, schema: TeamCreateParams },
      idempotent: true,
      expected: { kind: 'data', schema: Team },
      options,
    });
  }

  /**
   * Fetches one team.
   *
   * @example
   * ```ts
   * const team = await client.teams.get(teamId);
   * ```
   */
  get(teamId: string, options?: RequestOptions): APIPromise<Team> {
    return this.core.request({
      operation: 'teams.get',
      method: 'GET',
      path: '/teams/{teamId}',
      pathParams: { teamId },
      expected: { kind: 'data', schema: Team },
      options,
    });
  }

  /**
   * Changes a team's name, icon or colour; omitted fields keep their value.
   *
   * @example
   * ```ts
   * const team = await client.teams.update(teamId, { color: '#22C55E' });
   * ```
   */
  update(teamId: string, params: TeamUpdateParams, options?: RequestOptions): APIPromise<Team> {
    return this.core.request({
      operation: 'teams.update',
      method: 'PATCH',
      path: '/teams/{teamId}',
      pathParams: { teamId },
      body: { value: params, schema: TeamUpdateParams },
      expected: { kind: 'data', schema: Team },
      options,
    });
  }

  /**
   * Deletes a team.
   *
   * @example
   * ```ts
   * await client.teams.delete(teamId);
   * ```
   */
  delete(teamId: string, options?: RequestOptions): APIPromise<void> {
    return this.core.request({
      operation: 'teams.delete',
      method: 'DELETE',
      path: '/teams/{teamId}',
      pathParams: { teamId },
      expected: { kind: 'nothing' },
      options,
    });
  }
}
