/**
 * Vaults and their members as TanStack Query options: `q.vaults` and `q.vaults.members`.
 */
import type {
  SecretsVault,
  Vault,
  VaultCreateParams,
  VaultListParams,
  VaultMember,
  VaultMemberCreateParams,
  VaultMemberListParams,
  VaultMemberUpdateParams,
  VaultMemberUpdateResponse,
  VaultUpdateParams,
} from '@secrets-vault/sdk';
import type { QueryBuilders } from './builders.js';
import type { ListMethod, MutationMethod, QueryMethod, SecretsVaultQueryKey } from './types.js';

/**
 * `client.vaults` as query options; `q.vaults.key()` is the prefix of every vault and vault
 * member key.
 * @inline
 */
export interface VaultsQueries {
  /** `[scope, 'vaults']`. */
  key(): SecretsVaultQueryKey;
  /** `client.vaults.list(params?)`. */
  readonly list: ListMethod<[], VaultListParams, Vault>;
  /** `client.vaults.get(vaultId)`. */
  readonly get: QueryMethod<[vaultId: string], Vault>;
  /** `client.vaults.create(params)`: variables are the params. */
  readonly create: MutationMethod<[], VaultCreateParams, Vault>;
  /** `client.vaults.update(vaultId, params)`: `vaultId` bound, variables are the params. */
  readonly update: MutationMethod<[vaultId: string], VaultUpdateParams, Vault>;
  /** `client.vaults.delete(vaultId)`: variables are the vault id. */
  readonly delete: MutationMethod<[], string, void>;
  /** `client.vaults.members`. */
  readonly members: VaultMembersQueries;
}

/**
 * `client.vaults.members` as query options.
 * @inline
 */
export interface VaultMembersQueries {
  /** `[scope, 'vaults', 'members']`. */
  key(): SecretsVaultQueryKey;
  /** `client.vaults.members.list(vaultId, params?)`. */
  readonly list: ListMethod<[vaultId: string], VaultMemberListParams, VaultMember>;
  /** `client.vaults.members.create(vaultId, params)`: `vaultId` bound. */
  readonly create: MutationMethod<[vaultId: string], VaultMemberCreateParams, VaultMember>;
  /** `client.vaults.members.update(vaultId, memberId, params)`: both ids bound. */
  readonly update: MutationMethod<
    [vaultId: string, memberId: string],
    VaultMemberUpdateParams,
    VaultMemberUpdateResponse
  >;
  /** `client.vaults.members.delete(vaultId, memberId)`: `vaultId` bound, variables the member id. */
  readonly delete: MutationMethod<[vaultId: string], string, void>;
}

/** The options of `client.vaults` and `client.vaults.members`, built with `build`'s scope. */
export function vaultsQueries(client: SecretsVault, build: QueryBuilders): VaultsQueries {
  const { key, read, list, write } = build;
  return {
    key: () => key('vaults'),
    list: list(['vaults', 'list'], [], (o, params: VaultListParams) =>
      client.vaults.list(params, o),
    ),
    get: read(['vaults', 'get'], ['vaultId'], (o, vaultId) => client.vaults.get(vaultId, o)),
    create: write(
      ['vaults', 'create'],
      [],
      (o, params: VaultCreateParams) => client.vaults.create(params, o),
      () => [key('vaults', 'list')],
    ),
    update: write(
      ['vaults', 'update'],
      ['vaultId'],
      (o, vaultId, params: VaultUpdateParams) => client.vaults.update(vaultId, params, o),
      ({ vaultId }) => [key('vaults', 'list'), key('vaults', 'get', vaultId)],
    ),
    // The id is the variables, unknown here: every vault key (lists, gets, members) and every
    // secret key (the vault's secrets are gone with it).
    delete: write(
      ['vaults', 'delete'],
      [],
      (o, vaultId: string) => client.vaults.delete(vaultId, o),
      () => [key('vaults'), key('secrets')],
    ),
    members: {
      key: () => key('vaults', 'members'),
      list: list(
        ['vaults', 'members', 'list'],
        ['vaultId'],
        (o, vaultId, params: VaultMemberListParams) =>
          client.vaults.members.list(vaultId, params, o),
      ),
      create: write(
        ['vaults', 'members', 'create'],
        ['vaultId'],
        (o, vaultId, params: VaultMemberCreateParams) =>
          client.vaults.members.create(vaultId, params, o),
        ({ vaultId }) => [key('vaults', 'members', 'list', vaultId)],
      ),
      update: write(
        ['vaults', 'members', 'update'],
        ['vaultId', 'memberId'],
        (o, vaultId, memberId, params: VaultMemberUpdateParams) =>
          client.vaults.members.update(vaultId, memberId, params, o),
        ({ vaultId }) => [key('vaults', 'members', 'list', vaultId)],
      ),
      delete: write(
        ['vaults', 'members', 'delete'],
        ['vaultId'],
        (o, vaultId, memberId: string) => client.vaults.members.delete(vaultId, memberId, o),
        ({ vaultId }) => [key('vaults', 'members', 'list', vaultId)],
      ),
    },
  };
}
