/**
 * The retry rule of TanStack queries built on the SDK: one retry loop, the SDK's.
 */
// The package root, not a relative path: `instanceof` must test the class every other entry
// uses, and a copy bundled into this entry would be another class.
import { SecretsVaultError } from '@secrets-vault/sdk';

/** TanStack Query's own default: three retries after the first failure. */
const TANSTACK_DEFAULT_RETRIES = 3;

/**
 * TanStack's `retry` for queries that call the SDK: never for a `SecretsVaultError`, and
 * TanStack's default (three retries) for anything else, such as an error thrown by code of your
 * own in a `queryFn`. The SDK has already retried what is worth retrying (connection
 * failures, timeouts, 429 and 5xx, with jittered backoff, `Retry-After` and a retry budget), and
 * a 4xx is a verdict a retry would only repeat; TanStack's retries on top would multiply the
 * requests (a lasting 503 would cost 4 × (1 + maxRetries) of them).
 *
 * Every `queryOptions` and `infiniteQueryOptions` of this entry sets it; set it as a default
 * for queries of your own that call the SDK.
 *
 * @example
 * ```ts
 * const queryClient = new QueryClient({ defaultOptions: { queries: { retry: queryRetry } } });
 * ```
 */
export function queryRetry(failureCount: number, error: unknown): boolean {
  if (error instanceof SecretsVaultError) return false;
  return failureCount < TANSTACK_DEFAULT_RETRIES;
}
