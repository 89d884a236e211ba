/**
 * The caller's organization, its members and its invitations.
 */
import * as z from 'zod/mini';
import type { APIPromise } from '../core/api-promise.js';
import type { RequestOptions } from '../core/options.js';
import type { PagePromise } from '../core/pagination.js';
import { APIResource, ListParams, User } from './shared.js';

/** The organization of the calling token. */
export const Organization = z.object({
  id: z.string(),
  name: z.string(),
  /** The subscription plan; any string may appear. */
  plan: z.string(),
  emoji_icon: z.string(),
  color: z.string(),
  created_at: z.string(),
});
/** The organization of the calling token. */
export type Organization = z.infer<typeof Organization>;

/** A member of the organization, with their role (`member`, `admin`, `owner`, …) and status. */
export const OrgMember = z.object({
  id: z.string(),
  org_id: z.string(),
  user: User,
  email: z.string(),
  /** Values include `member`, `admin` and `owner`; any string may appear. */
  role: z.string(),
  /** Such as `active`; any string may appear. */
  status: z.string(),
  created_at: z.string(),
});
/** A member of the organization, with their role (`member`, `admin`, `owner`, …) and status. */
export type OrgMember = z.infer<typeof OrgMember>;

/** Body of {@link OrgMembers.update}: the member's new role. Setting `owner` transfers ownership. */
export const OrgMemberUpdateParams = z.object({
  role: z.string().check(z.minLength(1, 'must be a role such as member, admin or owner')),
});
/** Body of {@link OrgMembers.update}: the member's new role. Setting `owner` transfers ownership. */
export type OrgMemberUpdateParams = z.infer<typeof OrgMemberUpdateParams>;

/** Query parameters of {@link OrgMembers.list}. */
export const OrgMemberListParams = ListParams;
/** Query parameters of {@link OrgMembers.list}. */
export type OrgMemberListParams = ListParams;

/** An invitation for someone to join the organization with a role. */
export const Invitation = z.object({
  id: z.string(),
  org_id: z.string(),
  invitee_email: z.string(),
  role: z.string(),
  /** Such as `pending`; any string may appear. */
  status: z.string(),
  expires_at: z.string(),
  created_at: z.string(),
});
/** An invitation for someone to join the organization with a role. */
export type Invitation = z.infer<typeof Invitation>;

/** Body of {@link Invitations.create}: who to invite and with which role (never `owner`). */
export const InvitationCreateParams = z.object({
  email: z.string(),
  role: z.string().check(
    z.minLength(1, 'must be a role such as member or admin'),
    // The service never grants "owner" by invitation: ownership moves only by a role change.
    z.refine(
      (role) => role !== 'owner',
      'cannot be "owner": ownership is transferred, not invited',
    ),
  ),
});
/** Body of {@link Invitations.create}: who to invite and with which role (never `owner`). */
export type InvitationCreateParams = z.infer<typeof InvitationCreateParams>;

/** Query parameters of {@link Invitations.list}. */
export const InvitationListParams = ListParams;
/** Query parameters of {@link Invitations.list}. */
export type InvitationListParams = ListParams;

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
      method: 'GET',
      path: '/org',
      expected: { kind: 'data', schema: Organization },
      options,
    });
  }
}
