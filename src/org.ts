/**
 * `@secrets-vault/sdk/org`: the organization namespace (its members and invitations) on its own,
 * for an app that uses nothing else of the API and wants nothing else in its bundle. `new
 * Org(options)` takes the client's options; errors and the other types come from
 * `@secrets-vault/sdk`, as ever.
 *
 * @example
 * ```ts
 * import { Org } from '@secrets-vault/sdk/org';
 *
 * const org = new Org({ baseUrl: location.origin, token: sessionStorage.token });
 * ```
 *
 * @packageDocumentation
 */
export {
  Invitation,
  InvitationCreateParams,
  InvitationListParams,
  Invitations,
  Org,
  Organization,
  OrgMember,
  OrgMemberListParams,
  OrgMembers,
  OrgMemberUpdateParams,
} from './resources/org.js';
