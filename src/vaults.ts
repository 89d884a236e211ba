/**
 * `@secrets-vault/sdk/vaults`: the vaults namespace (with its members) on its own, for an app that
 * uses nothing else of the API and wants nothing else in its bundle. `new Vaults(options)` takes
 * the client's options; errors and the other types come from `@secrets-vault/sdk`, as ever.
 *
 * @example
 * ```ts
 * import { Vaults } from '@secrets-vault/sdk/vaults';
 *
 * const vaults = new Vaults({ baseUrl: location.origin, token: sessionStorage.token });
 * ```
 *
 * @packageDocumentation
 */
export {
  Vault,
  VaultCreateParams,
  VaultListParams,
  VaultMember,
  VaultMemberCreateParams,
  VaultMemberListParams,
  VaultMembers,
  VaultMemberUpdateParams,
  VaultMemberUpdateResponse,
  Vaults,
  VaultUpdateParams,
} from './resources/vaults.js';
