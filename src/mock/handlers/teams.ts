/**
 * Teams and team members in the mock.
 */
import { has, readColor, readIconIndex, readName, readString } from '../fields.js';
import { paginate } from '../paginate.js';
import { MockError, notFound, type RequestContext, type RouteDefinition } from '../pipeline.js';
import type { TeamRecord } from '../store.js';
import { orgUser } from './vaults.js';

/** A team of the caller's organization: 404 for any other id. */
function teamFor(context: RequestContext): TeamRecord {
  const team = context.store.teams.get(context.params.teamId ?? '');
  if (team === undefined || team.org_id !== context.principal.orgId) throw notFound('Team');
  return team;
}

export const teamRoutes: RouteDefinition[] = [
  {
    method: 'GET',
    path: '/teams',
    action: 'org.team.list',
    auditType: 'read',
    resource: (_params, orgId) => `org:${orgId}`,
    handle(context) {
      context.requireOrgRole('member');
      const teams = [...context.store.teams.values()].filter(
        (team) => team.org_id === context.principal.orgId,
      );
      return paginate(context, 'teams', teams, (team) => team.created_at);
    },
  },
  {
    method: 'POST',
    path: '/teams',
    action: 'org.team.create',
    auditType: 'write',
    idempotent: true,
    resource: (_params, orgId) => `org:${orgId}`,
    handle(context) {
      context.requireOrgRole('admin');
      const { store, body } = context;
      const team: TeamRecord = {
        id: store.newId(),
        org_id: context.principal.orgId,
        name: readName(body),
        icon_index: has(body, 'icon_index') ? readIconIndex(body) : 0,
        color: has(body, 'color') ? readColor(body) : '#6B7280',
        created_at: store.timestamp(),
      };
      store.teams.set(team.id, team);
      return {
        status: 201,
        data: team,
        location: `/v1/teams/${team.id}`,
        resource: `team:${team.id}`,
      };
    },
  },
  {
    method: 'GET',
    path: '/teams/:teamId',
    action: 'org.team.read',
    auditType: 'read',
    resource: (params) => `team:${params.teamId}`,
    handle(context) {
      context.requireOrgRole('member');
      return { status: 200, data: teamFor(context) };
    },
  },
  {
    method: 'PATCH',
    path: '/teams/:teamId',
    action: 'org.team.update',
    auditType: 'write',
    resource: (params) => `team:${params.teamId}`,
    handle(context) {
      const team = teamFor(context);
      context.requireOrgRole('admin');
      const { body } = context;
      const changes: Partial<TeamRecord> = {};
      if (has(body, 'name')) changes.name = readName(body);
      if (has(body, 'icon_index')) changes.icon_index = readIconIndex(body);
      if (has(body, 'color')) changes.color = readColor(body);
      Object.assign(team, changes);
      return { status: 200, data: team };
    },
  },
  {
    method: 'DELETE',
    path: '/teams/:teamId',
    action: 'org.team.delete',
    auditType: 'delete',
    resource: (params) => `team:${params.teamId}`,
    handle(context) {
      const team = teamFor(context);
      context.requireOrgRole('admin');
      const { store } = context;
      store.teams.delete(team.id);
      for (const [id, member] of store.teamMembers)
        if (member.team_id === team.id) store.teamMembers.delete(id);
      // Deleting a team leaves its vaults without a team rather than deleting them.
      for (const vault of store.vaults.values())
        if (vault.team_id === team.id) vault.team_id = null;
      return { status: 204 };
    },
  },
  {
    method: 'GET',
    path: '/teams/:teamId/members',
    action: 'team.member.list',
    auditType: 'read',
    resource: (params) => `team:${params.teamId}`,
    handle(context) {
      const team = teamFor(context);
      context.requireOrgRole('member');
      const members = [...context.store.teamMembers.values()].filter(
        (member) => member.team_id === team.id,
      );
      return paginate(context, `team-members:${team.id}`, members, (member) => member.created_at);
    },
  },
  {
    method: 'POST',
    path: '/teams/:teamId/members',
    action: 'team.member.create',
    auditType: 'write',
    idempotent: true,
    resource: (params) => `team:${params.teamId}`,
    handle(context) {
      const team = teamFor(context);
      context.requireOrgRole('admin');
      const { store } = context;
      const user = orgUser(context, readString(context.body, 'user_id'));
      for (const member of store.teamMembers.values()) {
        if (member.team_id === team.id && member.user.id === user.id) {
          throw new MockError(409, 'conflict', 'The user is already a member of this team');
        }
      }
      const member = { id: store.newId(), team_id: team.id, user, created_at: store.timestamp() };
      store.teamMembers.set(member.id, member);
      return { status: 201, data: member, resource: `team_member:${member.id}` };
    },
  },
  {
    method: 'DELETE',
    path: '/teams/:teamId/members/:memberId',
    action: 'team.member.delete',
    auditType: 'delete',
    resource: (params) => `team_member:${params.memberId}`,
    handle(context) {
      const team = teamFor(context);
      context.requireOrgRole('admin');
      const member = context.store.teamMembers.get(context.params.memberId ?? '');
      if (member === undefined || member.team_id !== team.id) throw notFound('Team member');
      context.store.teamMembers.delete(member.id);
      return { status: 204 };
    },
  },
];
