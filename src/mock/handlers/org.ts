/**
 * The organization, its members and invitations in the mock: org roles, nobody granting above
 * their own role, ownership moving by a role change, and the last owner staying.
 */
import { readString } from '../fields.js';
import { paginate } from '../paginate.js';
import {
  forbidden,
  MockError,
  notFound,
  type RequestContext,
  type RouteDefinition,
  validation,
} from '../pipeline.js';
import {
  type InvitationRecord,
  isOrgRole,
  type MockStore,
  ORG_ROLES,
  type OrgMemberRecord,
  type OrgRole,
} from '../store.js';

const INVITATION_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;

const rank = (role: string): number => ORG_ROLES.indexOf(role as OrgRole);

function memberFor(context: RequestContext): OrgMemberRecord {
  const member = context.store.orgMembers.get(context.params.memberId ?? '');
  if (member === undefined || member.org_id !== context.principal.orgId) throw notFound('Member');
  return member;
}

function ownerCount(store: MockStore, orgId: string): number {
  return [...store.orgMembers.values()].filter(
    (member) => member.org_id === orgId && member.role === 'owner',
  ).length;
}

/** Nobody acts on a member who outranks them, nor grants a role above their own. */
function assertMayManage(
  context: RequestContext,
  member: OrgMemberRecord,
  newRole?: OrgRole,
): void {
  const own = rank(context.orgRole);
  if (rank(member.role) > own) throw forbidden();
  if (newRole !== undefined && rank(newRole) > own) throw forbidden();
}

/** An invitation with its status as of now: a pending one past `expires_at` reads as expired. */
function present(store: MockStore, invitation: InvitationRecord): InvitationRecord {
  const expired =
    invitation.status === 'pending' && Date.parse(invitation.expires_at) <= store.clock.now();
  return expired ? { ...invitation, status: 'expired' } : invitation;
}

export const orgRoutes: RouteDefinition[] = [
  {
    method: 'GET',
    path: '/org',
    action: 'org.organization.read',
    auditType: 'read',
    resource: (_params, orgId) => `org:${orgId}`,
    handle(context) {
      context.requireOrgRole('member');
      const org = context.store.orgs.get(context.principal.orgId);
      if (org === undefined) throw notFound('Organization');
      return { status: 200, data: org };
    },
  },
  {
    method: 'GET',
    path: '/org/members',
    action: 'org.member.list',
    auditType: 'read',
    resource: (_params, orgId) => `org:${orgId}`,
    handle(context) {
      context.requireOrgRole('member');
      const members = [...context.store.orgMembers.values()].filter(
        (member) => member.org_id === context.principal.orgId,
      );
      return paginate(context, 'org-members', members, (member) => member.created_at);
    },
  },
  {
    method: 'PATCH',
    path: '/org/members/:memberId',
    action: 'org.member.update',
    auditType: 'write',
    resource: (params) => `org_member:${params.memberId}`,
    handle(context) {
      const member = memberFor(context);
      context.requireOrgRole('admin');
      const role = context.body.role;
      if (!isOrgRole(role)) throw validation('`role` must be one of member, admin, owner');
      assertMayManage(context, member, role);
      const { store, principal } = context;
      if (member.role === 'owner' && role !== 'owner' && ownerCount(store, member.org_id) === 1) {
        throw new MockError(409, 'conflict', 'The last owner cannot be demoted');
      }
      const caller = store.orgMemberOfUser(principal.orgId, principal.userId);
      member.role = role;
      // An owner making someone else owner hands ownership over and becomes an admin.
      if (
        role === 'owner' &&
        caller !== undefined &&
        caller.role === 'owner' &&
        caller.id !== member.id
      ) {
        caller.role = 'admin';
      }
      return { status: 200, data: member };
    },
  },
  {
    method: 'DELETE',
    path: '/org/members/:memberId',
    action: 'org.member.delete',
    auditType: 'delete',
    resource: (params) => `org_member:${params.memberId}`,
    handle(context) {
      const member = memberFor(context);
      context.requireOrgRole('admin');
      assertMayManage(context, member);
      const { store } = context;
      if (member.role === 'owner' && ownerCount(store, member.org_id) === 1) {
        throw new MockError(409, 'conflict', 'The last owner cannot be removed');
      }
      store.orgMembers.delete(member.id);
      for (const [id, vaultMember] of store.vaultMembers) {
        if (vaultMember.user.id === member.user.id) store.vaultMembers.delete(id);
      }
      for (const [id, teamMember] of store.teamMembers) {
        if (teamMember.user.id === member.user.id) store.teamMembers.delete(id);
      }
      return { status: 204 };
    },
  },
  {
    method: 'GET',
    path: '/org/invitations',
    action: 'org.invitation.list',
    auditType: 'read',
    resource: (_params, orgId) => `org:${orgId}`,
    handle(context) {
      context.requireOrgRole('admin');
      const { store } = context;
      const invitations = [...store.invitations.values()]
        .filter((invitation) => invitation.org_id === context.principal.orgId)
        .map((invitation) => present(store, invitation));
      return paginate(context, 'invitations', invitations, (invitation) => invitation.created_at);
    },
  },
  {
    method: 'POST',
    path: '/org/invitations',
    action: 'org.invitation.create',
    auditType: 'write',
    idempotent: true,
    resource: (_params, orgId) => `org:${orgId}`,
    handle(context) {
      context.requireOrgRole('admin');
      const { store, body } = context;
      const email = readString(body, 'email');
      if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw validation('`email` must be an e-mail address');
      const role = body.role;
      // "owner" cannot be granted by an invitation: ownership moves only by a role change.
      if (role === 'owner')
        throw validation('`role` cannot be owner: ownership is transferred, not invited');
      if (!isOrgRole(role)) throw validation('`role` must be one of member, admin');
      if (rank(role) > rank(context.orgRole)) throw forbidden();
      // One reading of the clock, so expires_at is exactly 7 days after created_at.
      const now = store.clock.now();
      const invitation: InvitationRecord = {
        id: store.newId(),
        org_id: context.principal.orgId,
        invitee_email: email,
        role,
        status: 'pending',
        expires_at: new Date(now + INVITATION_LIFETIME_MS).toISOString(),
        created_at: new Date(now).toISOString(),
      };
      store.invitations.set(invitation.id, invitation);
      return { status: 201, data: invitation, resource: `invitation:${invitation.id}` };
    },
  },
];
