/**
 * `@secrets-vault/sdk`: the TypeScript client of the Secrets Vault Service.
 *
 * @packageDocumentation
 */

export * from './audit.js';
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
export type {
  AttemptEnd,
  AttemptRecord,
  AttemptStart,
  OperationEnd,
  OperationRecord,
  OperationStart,
  Telemetry,
} from './core/telemetry.js';
export * from './org.js';
export { ListParams, User, VaultRole } from './resources/shared.js';
export * from './secrets.js';
export {
  createSecretCache,
  type SecretCache,
  type SecretCacheLoadOptions,
  type SecretCacheOptions,
} from './startup/cache.js';
export type { LoadedSecrets, LoadResult } from './startup/load.js';
export type { StandardSchemaV1 } from './startup/standard-schema.js';
export { type ToEnvOptions, toEnv } from './startup/to-env.js';
export * from './teams.js';
export * from './vaults.js';
