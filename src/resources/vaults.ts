/**
 * Vaults and their members: the `vaults` namespace and `vaults.members`.
 */
import * as z from 'zod/mini';
import type { APIPromise } from '../core/api-promise.js';
import type { RequestOptions } from '../core/options.js';
import type { PagePromise } from '../core/pagination.js';
import { APIResource, HexColor, integer, ListParams, User, VaultRole } from './shared.js';

/** A vault: a named container of secrets, owned by an organization and maybe a team. */
export interface Vault {
  /** The vault's identifier. */
  id: string;
  /** The identifier of the organization that owns the vault. */
  org_id: string;
  /** The vault's display name. */
  name: string;
  /** Which icon the vault shows, as an integer index. */
  icon_index: number;
  /** The vault's colour, in the form `#RRGGBB`. */
  color: string;
  /** The identifier of the team the vault belongs to, or `null` when it belongs to no team. */
  team_id: string | null;
  /** The caller's own role on this vault. */
  role: VaultRole;
  /** When the vault was created: an ISO 8601 UTC timestamp, such as `2025-01-31T09:30:00.000Z`. */
  created_at: string;
}
/** Checks a `Vault` received from the service; unknown keys are tolerated. */
export const Vault = z.object({
  id: z.string(),
  org_id: z.string(),
  name: z.string(),
  icon_index: z.number(),
  color: z.string(),
  team_id: z.nullable(z.string()),
  role: VaultRole,
  created_at: z.string(),
}) satisfies z.ZodMiniType<Vault>;

/** Body of {@link Vaults.create}: a `name`, and optionally a team, icon and colour. */
export interface VaultCreateParams {
  /** The vault's display name. */
  name: string;
  /** The identifier of the team the vault belongs to; `null` or omitted for no team. */
  team_id?: string | null | undefined;
  /** Which icon the vault shows, as an integer index; omitted, the service's default. */
  icon_index?: number | undefined;
  /** The vault's colour, in the form `#RRGGBB`; omitted, the service's default. */
  color?: string | undefined;
}
/** Checks a `VaultCreateParams` body before it is sent. */
export const VaultCreateParams = z.object({
  name: z.string(),
  team_id: z.optional(z.nullable(z.string())),
  icon_index: z.optional(integer('must be an integer')),
  color: z.optional(HexColor),
}) satisfies z.ZodMiniType<VaultCreateParams, VaultCreateParams>;

/** Body of {@link Vaults.update}: omitted fields keep their value; `team_id: null` leaves the team. */
export interface VaultUpdateParams {
  /** A new display name; omitted, the name is kept. */
  name?: string | undefined;
  /** The team the vault moves to, or `null` to leave its team; omitted, the team is kept. */
  team_id?: string | null | undefined;
  /** A new icon, as an integer index; omitted, the icon is kept. */
  icon_index?: number | undefined;
  /** A new colour, in the form `#RRGGBB`; omitted, the colour is kept. */
  color?: string | undefined;
}
/** Checks a `VaultUpdateParams` body before it is sent. */
export const VaultUpdateParams = z.object({
  name: z.optional(z.string()),
  team_id: z.optional(z.nullable(z.string())),
  icon_index: z.optional(integer('must be an integer')),
  color: z.optional(HexColor),
}) satisfies z.ZodMiniType<VaultUpdateParams, VaultUpdateParams>;

/** Query parameters of {@link Vaults.list}. */
export type VaultListParams = ListParams;
/** Checks `VaultListParams` before they are sent. */
export const VaultListParams = ListParams;

/** A user's membership of a vault, with their role on it. */
export interface VaultMember {
  /** The membership's identifier: the `memberId` of the member calls. */
  id: string;
  /** The identifier of the vault. */
  vault_id: string;
  /** The member. */
  user: User;
  /** The member's role on the vault. */
  role: VaultRole;
  /** When the user was added to the vault: an ISO 8601 UTC timestamp. */
  created_at: string;
}
/** Checks a `VaultMember` received from the service; unknown keys are tolerated. */
export const VaultMember = z.object({
  id: z.string(),
  vault_id: z.string(),
  user: User,
  role: VaultRole,
  created_at: z.string(),
}) satisfies z.ZodMiniType<VaultMember>;

/** Body of {@link VaultMembers.create}: the user to add and their role. */
export interface VaultMemberCreateParams {
  /** The identifier of the user to add. */
  user_id: string;
  /** The role the user gets on the vault. */
  role: VaultRole;
}
/** Checks a `VaultMemberCreateParams` body before it is sent. */
export const VaultMemberCreateParams = z.object({
  user_id: z.string(),
  role: VaultRole,
}) satisfies z.ZodMiniType<VaultMemberCreateParams, VaultMemberCreateParams>;

/** Body of {@link VaultMembers.update}: the member's new role. */
export interface VaultMemberUpdateParams {
  /** The member's new role on the vault. */
  role: VaultRole;
}
/** Checks a `VaultMemberUpdateParams` body before it is sent. */
export const VaultMemberUpdateParams = z.object({
  role: VaultRole,
}) satisfies z.ZodMiniType<VaultMemberUpdateParams, VaultMemberUpdateParams>;

/** What {@link VaultMembers.update} returns: only `id`, `vault_id` and `role`, not the full member. */
export interface VaultMemberUpdateResponse {
  /** The membership's identifier. */
  id: string;
  /** The identifier of the vault. */
  vault_id: string;
  /** The member's role on the vault, after the change. */
  role: VaultRole;
}
/** Checks a `VaultMemberUpdateResponse` received from the service; unknown keys are tolerated. */
export const VaultMemberUpdateResponse = z.object({
  id: z.string(),
  vault_id: z.string(),
  role: VaultRole,
}) satisfies z.ZodMiniType<VaultMemberUpdateResponse>;

/** Query parameters of {@link VaultMembers.list}. */
export type VaultMemberListParams = ListParams;
/** Checks `VaultMemberListParams` before they are sent. */
export const VaultMemberListParams = ListParams;

/** The members of a vault: `client.vaults.members`. */
export class VaultMembers extends APIResource {
  /**
   * Lists the members of a vault, newest first.
   *
   * @example
   * ```ts
   * for await (const member of client.vaults.members.list(vaultId)) {
   *   console.log(member.user.email, member.role);
   * }
   * ```
   */
  list(
    vaultId: string,
    params: VaultMemberListParams = {},
    options?: RequestOptions,
  ): PagePromise<VaultMember> {
    return this.core.list({
      operation: 'vaults.members.list',
      method: 'GET',
      path: '/vaults/{vaultId}/members',
      pathParams: { vaultId },
      query: { value: params, schema: VaultMemberListParams },
      expected: { kind: 'page', schema: VaultMember },
      options,
    });
  }

  /**
   * Adds a user to a vault with a role. Sent with an `Idempotency-Key`, so retries never add twice.
   *
   * @example
   * ```ts
   * const member = await client.vaults.members.create(vaultId, { user_id: userId, role: 'editor' });
   * ```
   */
  create(
    vaultId: string,
    params: VaultMemberCreateParams,
    options?: RequestOptions,
  ): APIPromise<VaultMember> {
    return this.core.request({
      operation: 'vaults.members.create',
      method: 'POST',
      path: '/vaults/{vaultId}/members',
      pathParams: { vaultId },
      body: { value: params, schema: VaultMemberCreateParams },
      idempotent: true,
      expected: { kind: 'data', schema: VaultMember },
      options,
    });
  }

  /**
   * Changes a member's role on a vault.
   *
   * @example
   * ```ts
   * const { role } = await client.vaults.members.update(vaultId, memberId, { role: 'admin' });
   * ```
   */
  update(
    vaultId: string,
    memberId: string,
    params: VaultMemberUpdateParams,
    options?: RequestOptions,
  ): APIPromise<VaultMemberUpdateResponse> {
    return this.core.request({
      operation: 'vaults.members.update',
      method: 'PATCH',
      path: '/vaults/{vaultId}/members/{memberId}',
      pathParams: { vaultId, memberId },
      body: { value: params, schema: VaultMemberUpdateParams },
      expected: { kind: 'data', schema: VaultMemberUpdateResponse },
      options,
    });
  }

  /**
   * Removes a member from a vault.
   *
   * @example
   * ```ts
   * await client.vaults.members.delete(vaultId, memberId);
   * ```
   */
  delete(vaultId: string, memberId: string, options?: RequestOptions): APIPromise<void> {
    return this.core.request({
      operation: 'vaults.members.delete',
      method: 'DELETE',
      path: '/vaults/{vaultId}/members/{memberId}',
      pathParams: { vaultId, memberId },
      expected: { kind: 'nothing' },
      options,
    });
  }
}

/** Vaults: `client.vaults`. */
export class Vaults extends APIResource {
  /** The members of a vault and their roles. */
  readonly members: VaultMembers = new VaultMembers(this.core);

  /**
   * Lists every vault visible to the caller, newest first.
   *
   * @example
   * ```ts
   * for await (const vault of client.vaults.list()) console.log(vault.name);
   * const firstPage = await client.vaults.list({ limit: 10 });
   * ```
   */
  list(params: VaultListParams = {}, options?: RequestOptions): PagePromise<Vault> {
    return this.core.list({
      operation: 'vaults.list',
      method: 'GET',
      path: '/vaults',
      query: { value: params, schema: VaultListParams },
      expected: { kind: 'page', schema: Vault },
      options,
    });
  }

  /**
   * Creates a vault; the caller becomes its admin. Sent with an `Idempotency-Key`, so retries
   * never create a second vault.
   *
   * @example
   * ```ts
   * const vault = await client.vaults.create({ name: 'Payments', color: '#0EA5E9' });
   * ```
   */
  create(params: VaultCreateParams, options?: RequestOptions): APIPromise<Vault> {
    return this.core.request({
      operation: 'vaults.create',
      method: 'POST',
      path: '/vaults',
      body: { value: params, schema: VaultCreateParams },
      idempotent: true,
      expected: { kind: 'data', schema: Vault },
      options,
    });
  }

  /**
   * Fetches one vault.
   *
   * @example
   * ```ts
   * const vault = await client.vaults.get(vaultId);
   * ```
   */
  get(vaultId: string, options?: RequestOptions): APIPromise<Vault> {
    return this.core.request({
      operation: 'vaults.get',
      method: 'GET',
      path: '/vaults/{vaultId}',
      pathParams: { vaultId },
      expected: { kind: 'data', schema: Vault },
      options,
    });
  }

  /**
   * Changes a vault's name, team, icon or colour; omitted fields keep their value.
   *
   * @example
   * ```ts
   * const vault = await client.vaults.update(vaultId, { team_id: null });
   * ```
   */
  update(vaultId: string, params: VaultUpdateParams, options?: RequestOptions): APIPromise<Vault> {
    return this.core.request({
      operation: 'vaults.update',
      method: 'PATCH',
      path: '/vaults/{vaultId}',
      pathParams: { vaultId },
      body: { value: params, schema: VaultUpdateParams },
      expected: { kind: 'data', schema: Vault },
      options,
    });
  }

  /**
   * Deletes a vault.
   *
   * @example
   * ```ts
   * await client.vaults.delete(vaultId);
   * ```
   */
  delete(vaultId: string, options?: RequestOptions): APIPromise<void> {
    return this.core.request({
      operation: 'vaults.delete',
      method: 'DELETE',
      path: '/vaults/{vaultId}',
      pathParams: { vaultId },
      expected: { kind: 'nothing' },
      options,
    });
  }
}
