/**
 * The retry rule of TanStack queries built on the SDK: one retry loop, the SDK's.
 */
// The package root, not a relative path: `instanceof` must test the class every other entry
// uses, and a copy bundled into this entry would be another class.
import { SecretsVaultError } from '@secrets-vault/sdk';

/**
 * TanStack Query's own default `retry`: none on a server, three in a browser. A server is what
 * TanStack's own test takes for one: no `window`, or Deno.
 */
function tanstackDefaultRetries(): number {
  return typeof window === 'undefined' || 'Deno' in globalThis ? 0 : 3;
}

/**
 * TanStack's `retry` for queries that call the SDK: never for a `SecretsVaultError`, and
 * TanStack's own default for anything else, such as an error thrown by code of your own in a
 * `queryFn`: no retry on a server (no `window`, or Deno), three in a browser. The SDK has already
 * retried what is worth retrying (connection failures, timeouts, 429 and 5xx, with jittered
 * backoff, `Retry-After` and a retry budget), and a 4xx is a verdict a retry would only repeat;
 * TanStack's retries on top would multiply the requests (in a browser, a lasting 503 would cost
 * 4 × (1 + maxRetries) of them). It knows the SDK's errors from either of its builds (ES module
 * or CommonJS), should a process load both.
 *
 * Every `queryOptions` and `infiniteQueryOptions` of this entry sets it; set it as a default
 * for queries of your own that call the SDK. It tells a server the way TanStack does by
 * default; an `environmentManager.setIsServer` override of yours is not seen.
 *
 * @example
 * ```ts
 * import { queryRetry } from '@secrets-vault/sdk/query';
 * import { QueryClient } from '@tanstack/query-core';
 *
 * const queryClient = new QueryClient({ defaultOptions: { queries: { retry: queryRetry } } });
 * ```
 */
export function queryRetry(failureCount: number, error: unknown): boolean {
  if (error instanceof SecretsVaultError) return false;
  return failureCount < tanstackDefaultRetries();
}
