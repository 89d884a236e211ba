/**
 * `@secrets-vault/sdk/query`: TanStack Query 5 options for every method of the client (keys,
 * query functions, infinite lists, mutations that invalidate what they change), the retry
 * rule that keeps TanStack from retrying on top of the SDK, and the `dehydrate` rules that keep
 * secret values out of persisted and server-rendered caches. Plain objects, no dependency on
 * TanStack.
 *
 * @packageDocumentation
 */

export {
  type CreateQueryOptionsOptions,
  createQueryOptions,
  type SecretsVaultQueries,
} from './create-query-options.js';
export { shouldDehydrateMutation, shouldDehydrateQuery } from './dehydrate.js';
export { queryRetry } from './retry.js';
export type {
  ListMethod,
  MutationCallbackContext,
  MutationMethod,
  MutationRequestOptions,
  QueryInvalidator,
  QueryMethod,
  QueryRequestOptions,
  SecretsVaultInfiniteQueryOptions,
  SecretsVaultMutationMeta,
  SecretsVaultMutationOptions,
  SecretsVaultQueryKey,
  SecretsVaultQueryMeta,
  SecretsVaultQueryOptions,
  SecretsVaultRetryRule,
} from './types.js';
