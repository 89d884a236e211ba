/**
 * The shapes `@secrets-vault/sdk/query` hands to TanStack Query, written as our own structural
 * types: the entry has no dependency on TanStack, not even a type import, and TanStack Query 5
 * accepts these objects as they are (`useQuery`, `useInfiniteQuery`, `useMutation`,
 * `queryClient.fetchQuery`, the observers).
 */
import type { PageData, RequestOptions, SecretsVaultError } from '@secrets-vault/sdk';

/**
 * A query or mutation key of this entry: `[scope, ...namespace path, method, ...ids, params?]`,
 * made of plain JSON values only, so it hashes, matches by prefix and survives `dehydrate`.
 *
 * @example
 * ```ts
 * ['secrets-vault', 'vaults', 'members', 'list', 'vlt_1', { limit: 20 }]
 * ```
 */
export type SecretsVaultQueryKey = readonly unknown[];

/**
 * Request options a query accepts: everything but `signal`, which is TanStack's own (so that a
 * cancelled or unmounted query aborts its request), and `idempotencyKey`, which reads ignore.
 */
export type QueryRequestOptions = Omit<RequestOptions, 'signal' | 'idempotencyKey'>;

/**
 * Request options a mutation accepts: everything but `idempotencyKey`, because options are built
 * once and a key given there would make every later `mutate()` replay the first one; each call
 * gets its own generated key, reused by the SDK's retries of that call.
 */
export type MutationRequestOptions = Omit<RequestOptions, 'idempotencyKey'>;

/**
 * A TanStack retry rule whose error is a `SecretsVaultError`: the type of the `retry` option of
 * this entry's objects, from which TanStack infers `SecretsVaultError` as the error type.
 */
export type SecretsVaultRetryRule = (failureCount: number, error: SecretsVaultError) => boolean;

/**
 * What `queryOptions(...)` returns: a key, a fetch that honours TanStack's `signal`, and the retry
 * rule. Pass it to `useQuery`, `queryClient.fetchQuery` or a `QueryObserver`, spread with your
 * own options (`staleTime`, `select`, `enabled`…) where needed.
 */
export interface SecretsVaultQueryOptions<TData> {
  /** The query's key, derived from the call; request options never enter it. */
  readonly queryKey: SecretsVaultQueryKey;
  /** Calls the SDK with TanStack's `signal`, so cancelling the query aborts the request. */
  readonly queryFn: (context: { readonly signal: AbortSignal }) => Promise<TData>;
  /** {@link queryRetry}: no TanStack retry on top of the SDK's own. */
  readonly retry: SecretsVaultRetryRule;
  /**
   * `0` on the queries that hold secret values (`secrets.getValue`, `secrets.listValues`): their
   * data leaves the cache as soon as no component shows it, rather than after five minutes.
   */
  readonly gcTime?: number;
  /** Marks the queries that hold secret values, which {@link shouldDehydrateQuery} leaves out. */
  readonly meta?: SecretsVaultQueryMeta;
}

/**
 * The `meta` of a query that holds secret values (a type alias, not an interface, so that it
 * fits TanStack's `Record<string, unknown>`).
 */
export type SecretsVaultQueryMeta = {
  /** The query's data holds decrypted secret values: never persist or dehydrate it. */
  readonly secretValues: true;
};

/**
 * What `infiniteQueryOptions(...)` returns: one cache entry holding every page fetched so far,
 * each page plain {@link PageData}, walked by `nextCursor`. Pass it to `useInfiniteQuery`,
 * `queryClient.fetchInfiniteQuery` or an `InfiniteQueryObserver`.
 */
export interface SecretsVaultInfiniteQueryOptions<TItem> {
  /** The list's key with an `'infinite'` marker last, so it never shares the plain list's entry. */
  readonly queryKey: SecretsVaultQueryKey;
  /** Fetches the page at `pageParam` (`null`: the first page), with TanStack's `signal`. */
  readonly queryFn: (context: {
    readonly signal: AbortSignal;
    readonly pageParam: string | null;
  }) => Promise<PageData<TItem>>;
  /** `null`: the first page is fetched without a cursor. */
  readonly initialPageParam: string | null;
  /** The last page's `nextCursor`, or `undefined` on the last page (`hasNextPage` false). */
  readonly getNextPageParam: (lastPage: PageData<TItem>) => string | undefined;
  /** {@link queryRetry}: no TanStack retry on top of the SDK's own. */
  readonly retry: SecretsVaultRetryRule;
}

/**
 * The part of TanStack's `QueryClient` a mutation's `onSuccess` uses: TanStack 5 passes the
 * client in the callback's context, so the options need no client of their own.
 */
export interface QueryInvalidator {
  /** Marks the queries whose key starts with `queryKey` stale and refetches the active ones. */
  invalidateQueries(filters: { queryKey: SecretsVaultQueryKey }): Promise<void>;
}

/** The context TanStack 5 passes to mutation callbacks, as far as this entry reads it. */
export interface MutationCallbackContext {
  /** The `QueryClient` the mutation runs in. */
  readonly client: QueryInvalidator;
}

/**
 * The `meta` of every mutation of this entry: the query keys (prefixes) its success invalidates,
 * readable by a `MutationCache` callback or devtools, and whether its variables carry a secret
 * value (a type alias, not an interface, so that it fits TanStack's `Record<string, unknown>`).
 */
export type SecretsVaultMutationMeta = {
  /** Query key prefixes invalidated when the mutation succeeds. */
  readonly invalidates: readonly SecretsVaultQueryKey[];
  /**
   * `true` on the writes whose variables may carry a secret value (`secrets.create`,
   * `secrets.update`): never persist or dehydrate them ({@link shouldDehydrateMutation}).
   */
  readonly secretValues?: true;
};

/**
 * What `mutationOptions(...)` returns: the arguments before the call's last one are bound, the
 * last one is the mutation's variables. Pass it to `useMutation` or a `MutationObserver`.
 */
export interface SecretsVaultMutationOptions<TData, TVariables> {
  /** `[scope, ...namespace path, method, ...bound arguments]`. */
  readonly mutationKey: SecretsVaultQueryKey;
  /** Calls the SDK with the bound arguments and `variables` last. */
  readonly mutationFn: (variables: TVariables) => Promise<TData>;
  /**
   * `false`: the SDK already retried where it is safe (a create reuses its `Idempotency-Key`);
   * a TanStack retry would run a new call, and for a create, under a new key. (Typed with a
   * retry rule's signature too, so that TanStack infers `SecretsVaultError` as the error type.)
   */
  readonly retry: false | SecretsVaultRetryRule;
  /**
   * `0` on the writes whose variables carry a secret value (`secrets.create`, `secrets.update`):
   * the mutation, and the value it sent, leave the `MutationCache` as soon as nothing observes
   * them, rather than five minutes later.
   */
  readonly gcTime?: number;
  /** The keys invalidated on success, and the mark of the writes that carry a secret value. */
  readonly meta: SecretsVaultMutationMeta;
  /**
   * Invalidates every key of `meta.invalidates` through `context.client`, and resolves when the
   * active queries among them have refetched, so `mutateAsync` resolves on fresh data.
   */
  readonly onSuccess: (
    data: TData,
    variables: TVariables,
    onMutateResult: unknown,
    context: MutationCallbackContext,
  ) => Promise<void>;
}

/**
 * A read method (`get`, `getValue`, `listValues`): its key builder and its query options.
 * `TArgs` are the client method's arguments without its request options.
 */
export interface QueryMethod<TArgs extends readonly unknown[], TData> {
  /**
   * The key of this method for the given arguments, or a prefix of it when some are left out:
   * `q.vaults.get.key()` matches every vault's `get`.
   */
  key(...args: Partial<TArgs>): SecretsVaultQueryKey;
  /**
   * Query options for this call; request options last (they never enter the key).
   *
   * @example
   * ```ts
   * const vault = await queryClient.fetchQuery(q.vaults.get.queryOptions(vaultId));
   * ```
   */
  queryOptions(
    ...args: [...args: TArgs, options?: QueryRequestOptions]
  ): SecretsVaultQueryOptions<TData>;
}

/**
 * A list method: its key builder, query options for one page, and infinite query options for a
 * list walked page by page. `TPath` are the ids before the list parameters.
 */
export interface ListMethod<TPath extends readonly unknown[], TParams, TItem> {
  /**
   * The key of this list for the given ids and parameters, or a prefix of it when some are left
   * out: `q.vaults.list.key()` matches every vault list, infinite ones included.
   */
  key(...args: Partial<[...path: TPath, params: TParams]>): SecretsVaultQueryKey;
  /**
   * Query options for one page, held in the cache as plain {@link PageData}.
   *
   * @example
   * ```ts
   * const page = await queryClient.fetchQuery(q.vaults.list.queryOptions({ limit: 20 }));
   * console.log(page.data.length, page.nextCursor);
   * ```
   */
  queryOptions(
    ...args: [...path: TPath, params?: TParams, options?: QueryRequestOptions]
  ): SecretsVaultQueryOptions<PageData<TItem>>;
  /**
   * Infinite query options: the first page without a cursor, each next one from the last page's
   * `nextCursor`. The parameters take no `cursor`: TanStack's page param is the cursor.
   *
   * @example
   * ```ts
   * import { InfiniteQueryObserver } from '@tanstack/query-core';
   *
   * const observer = new InfiniteQueryObserver(queryClient, q.audit.list.infiniteQueryOptions({ limit: 50 }));
   * ```
   */
  infiniteQueryOptions(
    ...args: [...path: TPath, params?: Omit<TParams, 'cursor'>, options?: QueryRequestOptions]
  ): SecretsVaultInfiniteQueryOptions<TItem>;
}

/**
 * A write method (`create`, `update`, `delete`): its mutation key builder and its mutation
 * options. `TBound` are the arguments bound when the options are built, `TVariables` the last
 * argument of the call, passed to `mutate()`.
 */
export interface MutationMethod<TBound extends readonly unknown[], TVariables, TData> {
  /** The mutation key for the given bound arguments, or a prefix of it (`useMutationState`). */
  key(...args: Partial<TBound>): SecretsVaultQueryKey;
  /**
   * Mutation options with `bound` arguments fixed; `mutate(variables)` supplies the last one.
   *
   * @example
   * ```ts
   * import { MutationObserver } from '@tanstack/query-core';
   *
   * const observer = new MutationObserver(queryClient, q.vaults.update.mutationOptions(vaultId));
   * await observer.mutate({ color: '#3366FF' });
   * ```
   */
  mutationOptions(
    ...args: [...bound: TBound, options?: MutationRequestOptions]
  ): SecretsVaultMutationOptions<TData, TVariables>;
}
