/**
 * The caller's organization, its members and its invitations.
 */
import * as z from 'zod/mini';
import type { APIPromise } from '../core/api-promise.js';
import type { RequestOptions } from '../core/options.js';
import type { PagePromise } from '../core/pagination.js';
import { APIResource, ListParams, nonEmpty, User } from './shared.js';

/** The organization of the calling token. */
export interface Organization {
  /** The organization's identifier. */
  id: string;
  /** The organization's display name. */
  name: string;
  /** The subscription plan, such as `free`; an open string: any value may appear. */
  plan: string;
  /** The organization's icon, an emoji. */
  emoji_icon: string;
  /** The organization's colour, in the form `#RRGGBB`. */
  color: string;
  /** When the organization was created: an ISO 8601 UTC timestamp. */
  created_at: string;
}
/** Checks an `Organization` received from the service; unknown keys are tolerated. */
export const Organization = z.object({
  id: z.string(),
  name: z.string(),
  plan: z.string(),
  emoji_icon: z.string(),
  color: z.string(),
  created_at: z.string(),
}) satisfies z.ZodMiniType<Organization>;

/** A member of the organization, with their role (`member`, `admin`, `owner`, …) and status. */
export interface OrgMember {
  /** The membership's identifier: the `memberId` of the member calls. */
  id: string;
  /** The identifier of the organization. */
  org_id: string;
  /** The member. */
  user: User;
  /** The member's email address. */
  email: string;
  /**
   * The member's role in the organization; values include `member`, `admin` and `owner`, but it
   * is an open string: any value may appear.
   */
  role: string;
  /** The membership's status, such as `active`; an open string: any value may appear. */
  status: string;
  /** When the user joined the organization: an ISO 8601 UTC timestamp. */
  created_at: string;
}
/** Checks an `OrgMember` received from the service; unknown keys are tolerated. */
export const OrgMember = z.object({
  id: z.string(),
  org_id: z.string(),
  user: User,
  email: z.string(),
  role: z.string(),
  status: z.string(),
  created_at: z.string(),
}) satisfies z.ZodMiniType<OrgMember>;

/** Body of {@link OrgMembers.update}: the member's new role. Setting `owner` transfers ownership. */
export interface OrgMemberUpdateParams {
  /**
   * The member's new role, such as `member`, `admin` or `owner`; nobody can grant a role above
   * their own, and an owner setting `owner` hands over ownership.
   */
  role: string;
}
/** Checks an `OrgMemberUpdateParams` body before it is sent. */
export const OrgMemberUpdateParams = z.object({
  role: nonEmpty('must be a role such as member, admin or owner'),
}) satisfies z.ZodMiniType<OrgMemberUpdateParams, OrgMemberUpdateParams>;

/** Query parameters of {@link OrgMembers.list}. */
export type OrgMemberListParams = ListParams;
/** Checks `OrgMemberListParams` before they are sent. */
export const OrgMemberListParams = ListParams;

/** An invitation for someone to join the organization with a role. */
export interface Invitation {
  /** The invitation's identifier. */
  id: string;
  /** The identifier of the organization the invitation is to. */
  org_id: string;
  /** The email address of the person invited. */
  invitee_email: string;
  /** The role the invitee gets on joining, never `owner`; an open string: any value may appear. */
  role: string;
  /** The invitation's status, such as `pending`; an open string: any value may appear. */
  status: string;
  /** When the invitation expires: an ISO 8601 UTC timestamp. */
  expires_at: string;
  /** When the invitation was created: an ISO 8601 UTC timestamp. */
  created_at: string;
}
/** Checks an `Invitation` received from the service; unknown keys are tolerated. */
export const Invitation = z.object({
  id: z.string(),
  org_id: z.string(),
  invitee_email: z.string(),
  role: z.string(),
  status: z.string(),
  expires_at: z.string(),
  created_at: z.string(),
}) satisfies z.ZodMiniType<Invitation>;

/** Body of {@link Invitations.create}: who to invite and with which role (never `owner`). */
export interface InvitationCreateParams {
  /** The email address of the person to invite. */
  email: string;
  /**
   * The role the invitee gets on joining, such as `member` or `admin`; never `owner`, which
   * moves only by changing an existing member's role.
   */
  role: string;
}
/** Checks an `InvitationCreateParams` body before it is sent. */
export const InvitationCreateParams = z.object({
  email: z.string(),
  role: nonEmpty('must be a role such as member or admin').check(
    // The service never grants "owner" by invitation: ownership moves only by a role change.
    z.refine(
      (role) => role !== 'owner',
      'cannot be "owner": ownership is transferred, not invited',
    ),
  ),
}) satisfies z.ZodMiniType<InvitationCreateParams, InvitationCreateParams>;

/** Query parameters of {@link Invitations.list}. */
export type InvitationListParams = ListParams;
/** Checks `InvitationListParams` before they are sent. */
export const InvitationListParams = ListParams;

/** The organization's members: `client.org.members`. */
export class OrgMembers extends APIResource {
  /**
   * Lists the members of the organization, newest first.
   *
   * @example
   * ```ts
   * const owners = (await client.org.members.list().toArray()).filter((m) => m.role === 'owner');
   * ```
   */
  list(params: OrgMemberListParams = {}, options?: RequestOptions): PagePromise<OrgMember> {
    return this.core.list({
      operation: 'org.members.list',
      method: 'GET',
      path: '/org/members',
      query: { value: params, schema: OrgMemberListParams },
      expected: { kind: 'page', schema: OrgMember },
      options,
    });
  }

  /**
   * Changes a member's role. An owner setting another member to `owner` hands over ownership;
   * nobody can grant a role above their own.
   *
   * @example
   * ```ts
   * const member = await client.org.members.update(memberId, { role: 'admin' });
   * ```
   */
  update(
    memberId: string,
    params: OrgMemberUpdateParams,
    options?: RequestOptions,
  ): APIPromise<OrgMember> {
    return this.core.request({
      operation: 'org.members.update',
      method: 'PATCH',
      path: '/org/members/{memberId}',
      pathParams: { memberId },
      body: { value: params, schema: OrgMemberUpdateParams },
      expected: { kind: 'data', schema: OrgMember },
      options,
    });
  }

  /**
   * Removes a member from the organization.
   *
   * @example
   * ```ts
   * await client.org.members.delete(memberId);
   * ```
   */
  delete(memberId: string, options?: RequestOptions): APIPromise<void> {
    return this.core.request({
      operation: 'org.members.delete',
      method: 'DELETE',
      path: '/org/members/{memberId}',
      pathParams: { memberId },
      expected: { kind: 'nothing' },
      options,
    });
  }
}

/** The organization's invitations: `client.org.invitations`. */
export class Invitations extends APIResource {
  /**
   * Lists the organization's invitations, newest first.
   *
   * @example
   * ```ts
   * for await (const invitation of client.org.invitations.list()) {
   *   console.log(invitation.invitee_email, invitation.status);
   * }
   * ```
   */
  list(params: InvitationListParams = {}, options?: RequestOptions): PagePromise<Invitation> {
    return this.core.list({
      operation: 'org.invitations.list',
      method: 'GET',
      path: '/org/invitations',
      query: { value: params, schema: InvitationListParams },
      expected: { kind: 'page', schema: Invitation },
      options,
    });
  }

  /**
   * Invites someone to the organization. Sent with an `Idempotency-Key`, so retries never invite
   * twice.
   *
   * @example
   * ```ts
   * const invitation = await client.org.invitations.create({ email: 'ada@example.com', role: 'member' });
   * ```
   */
  create(params: InvitationCreateParams, options?: RequestOptions): APIPromise<Invitation> {
    return this.core.request({
      operation: 'org.invitations.create',
      method: 'POST',
      path: '/org/invitations',
      body: { value: params, schema: InvitationCreateParams },
      idempotent: true,
      expected: { kind: 'data', schema: Invitation },
      options,
    });
  }
}

/** The caller's organization: `client.org`. */
export class Org extends APIResource {
  /** The organization's members and their roles. */
  readonly members: OrgMembers = new OrgMembers(this.core);
  /** Invitations to join the organization. */
  readonly invitations: Invitations = new Invitations(this.core);

  /**
   * Fetches the organization of the calling token.
   *
   * @example
   * ```ts
   * const org = await client.org.get();
   * console.log(org.name, org.plan);
   * ```
   */
  get(options?: RequestOptions): APIPromise<Organization> {
    return this.core.request({
      operation: 'org.get',
      method: 'GET',
      path: '/org',
      expected: { kind: 'data', schema: Organization },
      options,
    });
  }
}
