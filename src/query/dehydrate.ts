/**
 * Secret values out of persisted and server-rendered caches: the mark of the queries and
 * mutations that hold them, and the `dehydrate` rules that leave the marked ones out.
 */

/**
 * What the queries and mutations that hold secret values add (the reads of values, and the writes
 * whose variables carry one): they leave the cache as soon as nothing shows them, and `meta` marks
 * them for {@link shouldDehydrateQuery} and {@link shouldDehydrateMutation}, so that a persisted
 * or server-rendered cache never carries a value.
 */
export const HOLDS_VALUES = { gcTime: 0, meta: { secretValues: true } } as const;

/**
 * Whether `dehydrate` (and so a persister or a server-rendered page) may keep a query: TanStack's
 * own rule (successful queries only), except the queries that hold secret values. Pass
 * {@link shouldDehydrateMutation} with it.
 *
 * @example
 * ```ts
 * import { shouldDehydrateQuery } from '@secrets-vault/sdk/query';
 * import { dehydrate } from '@tanstack/query-core';
 *
 * const state = dehydrate(queryClient, { shouldDehydrateQuery });
 * ```
 */
export function shouldDehydrateQuery(query: {
  readonly state: { readonly status: string };
  readonly meta?: Readonly<Record<string, unknown>> | undefined;
}): boolean {
  return query.state.status === 'success' && query.meta?.secretValues !== true;
}

/**
 * Whether `dehydrate` (and so a persister) may keep a mutation: TanStack's own rule (paused
 * mutations only, such as a write made offline, so that it can resume after a reload), except
 * the mutations whose variables carry a secret value (`secrets.create`, `secrets.update`).
 * TanStack's rule alone would write the value of a secret created offline to storage.
 *
 * @example
 * ```ts
 * import { shouldDehydrateMutation, shouldDehydrateQuery } from '@secrets-vault/sdk/query';
 * import { dehydrate } from '@tanstack/query-core';
 *
 * const state = dehydrate(queryClient, { shouldDehydrateQuery, shouldDehydrateMutation });
 * ```
 */
export function shouldDehydrateMutation(mutation: {
  readonly state: { readonly isPaused: boolean };
  readonly meta?: Readonly<Record<string, unknown>> | undefined;
}): boolean {
  return mutation.state.isPaused && mutation.meta?.secretValues !== true;
}
