/**
 * `@secrets-vault/sdk/teams`: the teams namespace (with its members) on its own, for an app that
 * uses nothing else of the API and wants nothing else in its bundle. `new Teams(options)` takes the
 * client's options; errors and the other types come from `@secrets-vault/sdk`, as ever.
 *
 * @example
 * ```ts
 * import { Teams } from '@secrets-vault/sdk/teams';
 *
 * const teams = new Teams({ baseUrl: location.origin, token: sessionStorage.token });
 * ```
 *
 * @packageDocumentation
 */
export {
  Team,
  TeamCreateParams,
  TeamListParams,
  TeamMember,
  TeamMemberCreateParams,
  TeamMemberListParams,
  TeamMembers,
  Teams,
  TeamUpdateParams,
} from './resources/teams.js';
