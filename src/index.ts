/**
 * `@secrets-vault/sdk`: the TypeScript client of the Secrets Vault Service.
 *
 * @packageDocumentation
 */

export { SecretsVault } from './client.js';
export { APIPromise, type APIResponse } from './core/api-promise.js';
export {
  APIConnectionError,
  APIError,
  type APIErrorInit,
  APITimeoutError,
  APIUserAbortError,
  type AttemptDetails,
  AuthenticationError,
  BadRequestError,
  type CallDetails,
  ConflictError,
  IdempotencyInProgressError,
  IdempotencyKeyReuseError,
  InternalServerError,
  InvalidCursorError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
  RateLimitError,
  RedirectError,
  RequestValidationError,
  ResponseValidationError,
  SecretReferenceError,
  SecretsSchemaError,
  SecretsVaultError,
  type SecretsVaultErrorOptions,
  UnprocessableEntityError,
  type ValidationIssue,
} from './core/errors.js';
export type { LogFields, Logger, LogLevel } from './core/logger.js';
export type { ClientOptions, RequestOptions } from './core/options.js';
export { Page, type PageData, PagePromise, type ToArrayOptions } from './core/pagination.js';
export type { RetryBudgetOptions } from './core/retry.js';
export { Audit, AuditEntry, AuditListParams } from './resources/audit.js';
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
export {
  type LoadOptions,
  Secret,
  SecretCreateParams,
  SecretListParams,
  Secrets,
  SecretUpdateParams,
  SecretValue,
  SecretWithValue,
  type StartupOptions,
} from './resources/secrets.js';
export { ListParams, User, VaultRole } from './resources/shared.js';
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
export {
  createSecretCache,
  type SecretCache,
  type SecretCacheLoadOptions,
  type SecretCacheOptions,
} from './startup/cache.js';
export type { LoadedSecrets, LoadResult } from './startup/load.js';
export type { StandardSchemaV1 } from './startup/standard-schema.js';
export { type ToEnvOptions, toEnv } from './startup/to-env.js';
