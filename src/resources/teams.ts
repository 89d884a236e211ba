/**
 * Teams and their members: the `teams` namespace and `teams.members`.
 */
import * as z from 'zod/mini';
import type { APIPromise } from '../core/api-promise.js';
import type { RequestOptions } from '../core/options.js';
import type { PagePromise } from '../core/pagination.js';
import { APIResource, HexColor, ListParams, User } from './shared.js';

/** A team: a group of users inside an organization; vaults may belong to it. */
export const Team = z.object({
  id: z.string(),
  org_id: z.string(),
  name: z.string(),
  icon_index: z.number(),
  color: z.string(),
  created_at: z.string(),
});
/** A team: a group of users inside an organization; vaults may belong to it. */
export type Team = z.infer<typeof Team>;

/** Body of {@link Teams.create}. */
export const TeamCreateParams = z.object({ name: z.string() });
/** Body of {@link Teams.create}. */
export type TeamCreateParams = z.infer<typeof TeamCreateParams>;

/** Body of {@link Teams.update}: omitted fields keep their value. */
export const TeamUpdateParams = z.object({
  name: z.optional(z.string()),
  icon_index: z.optional(z.int()),
  color: z.optional(HexColor),
});
/** Body of {@link Teams.update}: omitted fields keep their value. */
export type TeamUpdateParams = z.infer<typeof TeamUpdateParams>;

/** Query parameters of {@link Teams.list}. */
export const TeamListParams = ListParams;
/** Query parameters of {@link Teams.list}. */
export type TeamListParams = ListParams;

/** A user's membership of a team; membership carries no role. */
export const TeamMember = z.object({
  id: z.string(),
  team_id: z.string(),
  user: User,
  created_at: z.string(),
});
/** A user's membership of a team; membership carries no role. */
export type TeamMember = z.infer<typeof TeamMember>;

/** Body of {@link TeamMembers.create}: the user to add. */
export const TeamMemberCreateParams = z.object({ user_id: z.string() });
/** Body of {@link TeamMembers.create}: the user to add. */
export type TeamMemberCreateParams = z.infer<typeof TeamMemberCreateParams>;

/** Query parameters of {@link TeamMembers.list}. */
export const TeamMemberListParams = ListParams;
/** Query parameters of {@link TeamMembers.list}. */
export type TeamMemberListParams = ListParams;

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
      method: 'DELETE',
      path: '/teams/{teamId}',
      pathParams: { teamId },
      expected: { kind: 'nothing' },
      options,
    });
  }
}
