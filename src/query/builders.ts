/**
 * The three kinds of method of `createQueryOptions` (a read, a list, a write) and the key of a
 * path, under one scope: the machinery every namespace file describes its methods with.
 */
import type { PageData, RequestOptions } from '@secrets-vault/sdk';
import { queryRetry } from './retry.js';
import type {
  ListMethod,
  MutationMethod,
  MutationRequestOptions,
  QueryMethod,
  QueryRequestOptions,
  SecretsVaultQueryKey,
  SecretsVaultQueryOptions,
} from './types.js';

/**
 * The names of a method's leading ids, in the order the client method takes them, such as
 * `['vaultId', 'memberId']`: their count is how many arguments are ids, and a write's
 * invalidation rule reads the ids by these names.
 */
export type IdNames = readonly string[];

/** The ids themselves, one string per name and in the same order: a method's leading arguments. */
export type Ids<TNames extends IdNames> = { -readonly [K in keyof TNames]: string };

/** The ids by name, as a write's invalidation rule receives them: `{ vaultId, memberId }`. */
export type IdsByName<TNames extends IdNames> = { readonly [Name in TNames[number]]: string };

/** What a read or a write adds to its options: the marks of the ones that hold secret values. */
type Extra<TData> = Pick<SecretsVaultQueryOptions<TData>, 'gcTime' | 'meta'>;

/** The builders {@link queryBuilders} returns, which each namespace describes its methods with. */
export type QueryBuilders = ReturnType<typeof queryBuilders>;

/**
 * The builders of one scope: `key` (a key under the scope), `audit` (the audit log's key, which
 * every write invalidates), and `read`, `list` and `write`,
 * each given a method's path (its key's namespace and name), the names of its leading ids, and
 * the client call. Every key is `[scope, ...path, ...ids, params?]`: the names never enter it.
 */
export function queryBuilders(scope: string) {
  const key = (...parts: readonly unknown[]): SecretsVaultQueryKey => [scope, ...parts];
  // Every write is recorded in the audit log, so every write's success leaves it stale.
  const audit = key('audit');

  /** A read: the ids named by `idNames`, then the request options. */
  function read<const TNames extends IdNames, TData>(
    path: readonly string[],
    idNames: TNames,
    call: (options: RequestOptions, ...ids: Ids<TNames>) => PromiseLike<TData>,
    extra: Extra<TData> = {},
  ): QueryMethod<Ids<TNames>, TData> {
    const count = idNames.length;
    return {
      key: (...args) => key(...path, ...prefix(args)),
      queryOptions: (...input) => {
        const ids = input.slice(0, count) as Ids<TNames>;
        const options = input[count] as QueryRequestOptions | undefined;
        return {
          queryKey: key(...path, ...ids),
          queryFn: async ({ signal }) => call({ ...options, signal }, ...ids),
          retry: queryRetry,
          ...extra,
        };
      },
    };
  }

  /** A list: the ids named by `idNames`, then the list parameters, then the request options. */
  function list<const TNames extends IdNames, TParams extends object, TItem>(
    path: readonly string[],
    idNames: TNames,
    call: (
      options: RequestOptions,
      ...args: [...ids: Ids<TNames>, params: TParams]
    ) => PromiseLike<PageData<TItem>>,
  ): ListMethod<Ids<TNames>, TParams, TItem> {
    const count = idNames.length;
    const split = (input: readonly unknown[]) => ({
      ids: input.slice(0, count) as Ids<TNames>,
      params: (input[count] ?? {}) as TParams,
      options: input[count + 1] as QueryRequestOptions | undefined,
    });
    const fetchPage = async (
      ids: Ids<TNames>,
      params: TParams,
      options: RequestOptions,
    ): Promise<PageData<TItem>> => {
      const page = await call(options, ...ids, params);
      // Plain data, never the Page instance: TanStack's structural sharing keeps the references
      // of an unchanged refetch only for plain objects, and `dehydrate` keeps only plain data.
      return { data: page.data, nextCursor: page.nextCursor };
    };
    return {
      key: (...args) =>
        key(
          ...path,
          ...prefix(args).map((arg, index) => (index === count ? plainParams(arg) : arg)),
        ),
      queryOptions: (...input) => {
        const { ids, params, options } = split(input);
        return {
          queryKey: key(...path, ...ids, plainParams(params)),
          queryFn: ({ signal }) => fetchPage(ids, params, { ...options, signal }),
          retry: queryRetry,
        };
      },
      infiniteQueryOptions: (...input) => {
        const { ids, params, options } = split(input);
        // The page param is the cursor; a `cursor` given anyway (untyped callers) is dropped.
        const { cursor: _ignored, ...first } = params as TParams & { cursor?: unknown };
        return {
          queryKey: key(...path, ...ids, plainParams(first), 'infinite'),
          queryFn: ({ signal, pageParam }) =>
            fetchPage(
              ids,
              (pageParam === null ? first : { ...first, cursor: pageParam }) as TParams,
              { ...options, signal },
            ),
          initialPageParam: null,
          getNextPageParam: (lastPage) => lastPage.nextCursor ?? undefined,
          retry: queryRetry,
        };
      },
    };
  }

  /**
   * A write: the ids named by `idNames` bound when the options are built, then the variables,
   * then the request options. `invalidates` gets the bound ids by name and returns the keys its
   * success leaves stale; the audit log is added to them.
   */
  function write<const TNames extends IdNames, TVariables, TData>(
    path: readonly string[],
    idNames: TNames,
    call: (
      options: RequestOptions,
      ...args: [...ids: Ids<TNames>, variables: TVariables]
    ) => PromiseLike<TData>,
    // Not a source of inference: the names alone say which ids there are.
    invalidates: (ids: NoInfer<IdsByName<TNames>>) => SecretsVaultQueryKey[],
    extra: Extra<TData> = {},
  ): MutationMethod<Ids<TNames>, TVariables, TData> {
    const count = idNames.length;
    return {
      key: (...args) => key(...path, ...prefix(args)),
      mutationOptions: (...input) => {
        const ids = input.slice(0, count) as Ids<TNames>;
        const options = (input[count] ?? {}) as MutationRequestOptions;
        const byName = Object.fromEntries(
          idNames.map((name, index) => [name, ids[index]]),
        ) as IdsByName<TNames>;
        const keys = [...invalidates(byName), audit];
        return {
          mutationKey: key(...path, ...ids),
          mutationFn: async (variables) => call(options, ...ids, variables),
          retry: false,
          ...extra,
          meta: { ...extra.meta, invalidates: keys },
          onSuccess: async (_data, _variables, _onMutateResult, context) => {
            await Promise.all(
              keys.map((queryKey) => context.client.invalidateQueries({ queryKey })),
            );
          },
        };
      },
    };
  }

  return { key, audit, read, list, write };
}

/** The arguments up to the first one left out: a key prefix never has holes. */
function prefix(args: readonly unknown[]): unknown[] {
  const end = args.indexOf(undefined);
  return end === -1 ? [...args] : args.slice(0, end);
}

/**
 * List parameters as a key part: plain JSON, keys sorted, `undefined` values dropped, so that
 * `{ limit: 20 }` and `{ cursor: undefined, limit: 20 }` are one cache entry.
 */
function plainParams(params: unknown): Record<string, unknown> {
  if (typeof params !== 'object' || params === null) return {};
  return Object.fromEntries(
    Object.entries(params)
      .filter(([, value]) => value !== undefined)
      .sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0)),
  );
}
