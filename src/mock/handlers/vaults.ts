/**
 * Vaults and vault members in the mock: the routes, the vault roles each operation needs, and
 * the optional fields a vault create accepts (team, icon, colour).
 */
import { has, readColor, readIconIndex, readName, readString, readVaultRole } from '../fields.js';
import { paginate } from '../paginate.js';
import {
  forbidden,
  MockError,
  notFound,
  type RequestContext,
  type RouteDefinition,
  validation,
} from '../pipeline.js';
import { VAULT_ROLES, type VaultRecord, type VaultRoleName } from '../store.js';

/**
 * The vault `id` if the caller may see it with at least `minimum`: 404 when it does not exist or
 * is invisible to the caller (never 403, so ids of other organizations leak nothing), 403 when
 * the caller sees it with a lower role.
 */
export function vaultFor(
  context: RequestContext,
  id: string | undefined,
  minimum: VaultRoleName,
): { vault: VaultRecord; role: VaultRoleName } {
  const vault = id === undefined ? undefined : context.store.vaults.get(id);
  const role = vault && context.store.vaultRoleOf(context.principal, vault);
  if (vault === undefined || role === undefined) throw notFound('Vault');
  if (VAULT_ROLES.indexOf(role) < VAULT_ROLES.indexOf(minimum)) throw forbidden();
  return { vault, role };
}

function present(vault: VaultRecord, role: VaultRoleName) {
  return { ...vault, role };
}

function readTeamId(context: RequestContext): string | null {
  const value = context.body.team_id;
  if (value === null) return null;
  if (typeof value !== 'string') throw validation('`team_id` must be a team id or null');
  const team = context.store.teams.get(value);
  if (team === undefined || team.org_id !== context.principal.orgId) {
    throw validation('`team_id` does not name a team of this organization');
  }
  return value;
}

/** A user of the caller's organization, by id: 404 for anyone else. */
export function orgUser(context: RequestContext, userId: string) {
  const membership = context.store.orgMemberOfUser(context.principal.orgId, userId);
  if (membership === undefined) throw notFound('User');
  return membership.user;
}

export const vaultRoutes: RouteDefinition[] = [
  {
    method: 'GET',
    path: '/vaults',
    action: 'org.vault.list',
    auditType: 'read',
    resource: (_params, orgId) => `org:${orgId}`,
    handle(context) {
      const visible = [...context.store.vaults.values()].flatMap((vault) => {
        const role = context.store.vaultRoleOf(context.principal, vault);
        return role === undefined ? [] : [present(vault, role)];
      });
      return paginate(context, 'vaults', visible, (vault) => vault.created_at);
    },
  },
  {
    method: 'POST',
    path: '/vaults',
    action: 'org.vault.create',
    auditType: 'write',
    idempotent: true,
    resource: (_params, orgId) => `org:${orgId}`,
    handle(context) {
      context.requireOrgRole('member');
      const { store, body, principal } = context;
      const vault: VaultRecord = {
        id: store.newId(),
        org_id: principal.orgId,
        name: readName(body),
        icon_index: has(body, 'icon_index') ? readIconIndex(body) : 0,
        color: has(body, 'color') ? readColor(body) : '#6B7280',
        team_id: has(body, 'team_id') ? readTeamId(context) : null,
        created_at: store.timestamp(),
      };
      store.vaults.set(vault.id, vault);
      // The creator becomes the vault's admin; an API key is already admin through its org role.
      if (principal.userId !== undefined) {
        const user = orgUser(context, principal.userId);
        const memberId = store.newId();
        store.vaultMembers.set(memberId, {
          id: memberId,
          vault_id: vault.id,
          user,
          role: 'admin',
          created_at: vault.created_at,
        });
      }
      return {
        status: 201,
        data: present(vault, 'admin'),
        location: `/v1/vaults/${vault.id}`,
        resource: `vault:${vault.id}`,
      };
    },
  },
  {
    method: 'GET',
    path: '/vaults/:vaultId',
    action: 'org.vault.read',
    auditType: 'read',
    resource: (params) => `vault:${params.vaultId}`,
    handle(context) {
      const { vault, role } = vaultFor(context, context.params.vaultId, 'member');
      return { status: 200, data: present(vault, role) };
    },
  },
  {
    method: 'PATCH',
    path: '/vaults/:vaultId',
    action: 'org.vault.update',
    auditType: 'write',
    resource: (params) => `vault:${params.vaultId}`,
    handle(context) {
      const { vault, role } = vaultFor(context, context.params.vaultId, 'admin');
      const { body } = context;
      // Read every field before changing any, so a bad field leaves the vault untouched.
      const changes: Partial<VaultRecord> = {};
      if (has(body, 'name')) changes.name = readName(body);
      if (has(body, 'icon_index')) changes.icon_index = readIconIndex(body);
      if (has(body, 'color')) changes.color = readColor(body);
      if (has(body, 'team_id')) changes.team_id = readTeamId(context);
      Object.assign(vault, changes);
      return { status: 200, data: present(vault, role) };
    },
  },
  {
    method: 'DELETE',
    path: '/vaults/:vaultId',
    action: 'org.vault.delete',
    auditType: 'delete',
    resource: (params) => `vault:${params.vaultId}`,
    handle(context) {
      const { vault } = vaultFor(context, context.params.vaultId, 'admin');
      const { store } = context;
      store.vaults.delete(vault.id);
      for (const [id, member] of store.vaultMembers)
        if (member.vault_id === vault.id) store.vaultMembers.delete(id);
      for (const [id, secret] of store.secrets)
        if (secret.vault_id === vault.id) store.secrets.delete(id);
      return { status: 204 };
    },
  },
  {
    method: 'GET',
    path: '/vaults/:vaultId/members',
    action: 'vault.member.list',
    auditType: 'read',
    resource: (params) => `vault:${params.vaultId}`,
    handle(context) {
      const { vault } = vaultFor(context, context.params.vaultId, 'member');
      const members = [...context.store.vaultMembers.values()].filter(
        (member) => member.vault_id === vault.id,
      );
      return paginate(context, `vault-members:${vault.id}`, members, (member) => member.created_at);
    },
  },
  {
    method: 'POST',
    path: '/vaults/:vaultId/members',
    action: 'vault.member.create',
    auditType: 'write',
    idempotent: true,
    resource: (params) => `vault:${params.vaultId}`,
    handle(context) {
      const { vault } = vaultFor(context, context.params.vaultId, 'admin');
      const { store, body } = context;
      const userId = readString(body, 'user_id');
      const role = readVaultRole(body);
      const user = orgUser(context, userId);
      for (const member of store.vaultMembers.values()) {
        if (member.vault_id === vault.id && member.user.id === user.id) {
          throw new MockError(409, 'conflict', 'The user is already a member of this vault');
        }
      }
      const member = {
        id: store.newId(),
        vault_id: vault.id,
        user,
        role,
        created_at: store.timestamp(),
      };
      store.vaultMembers.set(member.id, member);
      return { status: 201, data: member, resource: `vault_member:${member.id}` };
    },
  },
  {
    method: 'PATCH',
    path: '/vaults/:vaultId/members/:memberId',
    action: 'vault.member.update',
    auditType: 'write',
    resource: (params) => `vault_member:${params.memberId}`,
    handle(context) {
      const { vault } = vaultFor(context, context.params.vaultId, 'admin');
      const member = context.store.vaultMembers.get(context.params.memberId ?? '');
      if (member === undefined || member.vault_id !== vault.id) throw notFound('Vault member');
      member.role = readVaultRole(context.body);
      return { status: 200, data: { id: member.id, vault_id: member.vault_id, role: member.role } };
    },
  },
  {
    method: 'DELETE',
    path: '/vaults/:vaultId/members/:memberId',
    action: 'vault.member.delete',
    auditType: 'delete',
    resource: (params) => `vault_member:${params.memberId}`,
    handle(context) {
      const { vault } = vaultFor(context, context.params.vaultId, 'admin');
      const member = context.store.vaultMembers.get(context.params.memberId ?? '');
      if (member === undefined || member.vault_id !== vault.id) throw notFound('Vault member');
      context.store.vaultMembers.delete(member.id);
      return { status: 204 };
    },
  },
];
