/**
 * The organization, its members and its invitations as TanStack Query options: `q.org`,
 * `q.org.members` and `q.org.invitations`.
 */
import type {
  Invitation,
  InvitationCreateParams,
  InvitationListParams,
  Organization,
  OrgMember,
  OrgMemberListParams,
  OrgMemberUpdateParams,
  SecretsVault,
} from '@secrets-vault/sdk';
import type { QueryBuilders } from './builders.js';
import type { ListMethod, MutationMethod, QueryMethod, SecretsVaultQueryKey } from './types.js';

/**
 * `client.org` as query options.
 * @inline
 */
export interface OrgQueries {
  /** `[scope, 'org']`. */
  key(): SecretsVaultQueryKey;
  /** `client.org.get()`. */
  readonly get: QueryMethod<[], Organization>;
  /** `client.org.members`. */
  readonly members: OrgMembersQueries;
  /** `client.org.invitations`. */
  readonly invitations: InvitationsQueries;
}

/**
 * `client.org.members` as query options.
 * @inline
 */
export interface OrgMembersQueries {
  /** `[scope, 'org', 'members']`. */
  key(): SecretsVaultQueryKey;
  /** `client.org.members.list(params?)`. */
  readonly list: ListMethod<[], OrgMemberListParams, OrgMember>;
  /** `client.org.members.update(memberId, params)`: `memberId` bound. */
  readonly update: MutationMethod<[memberId: string], OrgMemberUpdateParams, OrgMember>;
  /** `client.org.members.delete(memberId)`: variables are the member id. */
  readonly delete: MutationMethod<[], string, void>;
}

/**
 * `client.org.invitations` as query options.
 * @inline
 */
export interface InvitationsQueries {
  /** `[scope, 'org', 'invitations']`. */
  key(): SecretsVaultQueryKey;
  /** `client.org.invitations.list(params?)`. */
  readonly list: ListMethod<[], InvitationListParams, Invitation>;
  /** `client.org.invitations.create(params)`. */
  readonly create: MutationMethod<[], InvitationCreateParams, Invitation>;
}

/** The options of `client.org` and its members and invitations, built with `build`'s scope. */
export function orgQueries(client: SecretsVault, build: QueryBuilders): OrgQueries {
  const { key, read, list, write } = build;
  return {
    key: () => key('org'),
    get: read(['org', 'get'], [], (o) => client.org.get(o)),
    members: {
      key: () => key('org', 'members'),
      list: list(['org', 'members', 'list'], [], (o, params: OrgMemberListParams) =>
        client.org.members.list(params, o),
      ),
      update: write(
        ['org', 'members', 'update'],
        ['memberId'],
        (o, memberId, params: OrgMemberUpdateParams) =>
          client.org.members.update(memberId, params, o),
        () => [key('org', 'members', 'list')],
      ),
      delete: write(
        ['org', 'members', 'delete'],
        [],
        (o, memberId: string) => client.org.members.delete(memberId, o),
        () => [key('org', 'members', 'list')],
      ),
    },
    invitations: {
      key: () => key('org', 'invitations'),
      list: list(['org', 'invitations', 'list'], [], (o, params: InvitationListParams) =>
        client.org.invitations.list(params, o),
      ),
      create: write(
        ['org', 'invitations', 'create'],
        [],
        (o, params: InvitationCreateParams) => client.org.invitations.create(params, o),
        () => [key('org', 'invitations', 'list')],
      ),
    },
  };
}
