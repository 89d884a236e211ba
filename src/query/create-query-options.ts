/**
 * `createQueryOptions`: every method of the client as TanStack Query options, from one table that
 * names each call, its key and, for writes, the keys its success invalidates.
 */
import type {
  AuditEntry,
  AuditListParams,
  Invitation,
  InvitationCreateParams,
  InvitationListParams,
  Organization,
  OrgMember,
  OrgMemberListParams,
  OrgMemberUpdateParams,
  PageData,
  RequestOptions,
  Secret,
  SecretCreateParams,
  SecretListParams,
  SecretsVault,
  SecretUpdateParams,
  SecretWithValue,
  Team,
  TeamCreateParams,
  TeamListParams,
  TeamMember,
  TeamMemberCreateParams,
  TeamMemberListParams,
  TeamUpdateParams,
  Vault,
  VaultCreateParams,
  VaultListParams,
  VaultMember,
  VaultMemberCreateParams,
  VaultMemberListParams,
  VaultMemberUpdateParams,
  VaultMemberUpdateResponse,
  VaultUpdateParams,
} from '@secrets-vault/sdk';
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

/** Options of {@link createQueryOptions}. */
export interface CreateQueryOptionsOptions {
  /**
   * The first element of every key: two clients (two tokens, two services) in one `QueryClient`
   * need two scopes, so that their data never mixes.
   * @default 'secrets-vault'
   */
  readonly scope?: string | undefined;
}

/**
 * The client's namespaces as TanStack Query options: `queryOptions` on every read,
 * `infiniteQueryOptions` on every list too, `mutationOptions` on every write, and `key` builders
 * to invalidate by hand. The startup-only calls (`secrets.load`, `resolveReferences`) are left
 * out: they belong to a process starting, not to a screen.
 */
export interface SecretsVaultQueries {
  /** `[scope]`: the prefix of every key of these options. */
  key(): SecretsVaultQueryKey;
  /** `client.vaults`; `q.vaults.key()` is the prefix of every vault and vault member key. */
  readonly vaults: {
    /** `[scope, 'vaults']`. */
    key(): SecretsVaultQueryKey;
    /** `client.vaults.list(params?)`. */
    readonly list: ListMethod<[], VaultListParams, Vault>;
    /** `client.vaults.get(vaultId)`. */
    readonly get: QueryMethod<[vaultId: string], Vault>;
    /** `client.vaults.create(params)`: variables are the params. */
    readonly create: MutationMethod<[], VaultCreateParams, Vault>;
    /** `client.vaults.update(vaultId, params)`: `vaultId` bound, variables are the params. */
    readonly update: MutationMethod<[vaultId: string], VaultUpdateParams, Vault>;
    /** `client.vaults.delete(vaultId)`: variables are the vault id. */
    readonly delete: MutationMethod<[], string, void>;
    /** `client.vaults.members`. */
    readonly members: {
      /** `[scope, 'vaults', 'members']`. */
      key(): SecretsVaultQueryKey;
      /** `client.vaults.members.list(vaultId, params?)`. */
      readonly list: ListMethod<[vaultId: string], VaultMemberListParams, VaultMember>;
      /** `client.vaults.members.create(vaultId, params)`: `vaultId` bound. */
      readonly create: MutationMethod<[vaultId: string], VaultMemberCreateParams, VaultMember>;
      /** `client.vaults.members.update(vaultId, memberId, params)`: both ids bound. */
      readonly update: MutationMethod<
        [vaultId: string, memberId: string],
        VaultMemberUpdateParams,
        VaultMemberUpdateResponse
      >;
      /** `client.vaults.members.delete(vaultId, memberId)`: `vaultId` bound, variables the member id. */
      readonly delete: MutationMethod<[vaultId: string], string, void>;
    };
  };
  /** `client.secrets`, without the startup-only `load` and `resolveReferences`. */
  readonly secrets: {
    /** `[scope, 'secrets']`. */
    key(): SecretsVaultQueryKey;
    /** `client.secrets.list(vaultId, params?)`. */
    readonly list: ListMethod<[vaultId: string], SecretListParams, Secret>;
    /** `client.secrets.getValue(secretId)`: a decrypted value, held in the cache. */
    readonly getValue: QueryMethod<[secretId: string], SecretWithValue>;
    /** `client.secrets.listValues(vaultId)`: decrypted values, held in the cache. */
    readonly listValues: QueryMethod<[vaultId: string], SecretWithValue[]>;
    /** `client.secrets.create(vaultId, params)`: `vaultId` bound. */
    readonly create: MutationMethod<[vaultId: string], SecretCreateParams, Secret>;
    /** `client.secrets.update(secretId, params)`: `secretId` bound. */
    readonly update: MutationMethod<[secretId: string], SecretUpdateParams, Secret>;
    /** `client.secrets.delete(secretId)`: variables are the secret id. */
    readonly delete: MutationMethod<[], string, void>;
  };
  /** `client.teams`. */
  readonly teams: {
    /** `[scope, 'teams']`. */
    key(): SecretsVaultQueryKey;
    /** `client.teams.list(params?)`. */
    readonly list: ListMethod<[], TeamListParams, Team>;
    /** `client.teams.get(teamId)`. */
    readonly get: QueryMethod<[teamId: string], Team>;
    /** `client.teams.create(params)`. */
    readonly create: MutationMethod<[], TeamCreateParams, Team>;
    /** `client.teams.update(teamId, params)`: `teamId` bound. */
    readonly update: MutationMethod<[teamId: string], TeamUpdateParams, Team>;
    /** `client.teams.delete(teamId)`: variables are the team id. */
    readonly delete: MutationMethod<[], string, void>;
    /** `client.teams.members`. */
    readonly members: {
      /** `[scope, 'teams', 'members']`. */
      key(): SecretsVaultQueryKey;
      /** `client.teams.members.list(teamId, params?)`. */
      readonly list: ListMethod<[teamId: string], TeamMemberListParams, TeamMember>;
      /** `client.teams.members.create(teamId, params)`: `teamId` bound. */
      readonly create: MutationMethod<[teamId: string], TeamMemberCreateParams, TeamMember>;
      /** `client.teams.members.delete(teamId, memberId)`: `teamId` bound, variables the member id. */
      readonly delete: MutationMethod<[teamId: string], string, void>;
    };
  };
  /** `client.org`. */
  readonly org: {
    /** `[scope, 'org']`. */
    key(): SecretsVaultQueryKey;
    /** `client.org.get()`. */
    readonly get: QueryMethod<[], Organization>;
    /** `client.org.members`. */
    readonly members: {
      /** `[scope, 'org', 'members']`. */
      key(): SecretsVaultQueryKey;
      /** `client.org.members.list(params?)`. */
      readonly list: ListMethod<[], OrgMemberListParams, OrgMember>;
      /** `client.org.members.update(memberId, params)`: `memberId` bound. */
      readonly update: MutationMethod<[memberId: string], OrgMemberUpdateParams, OrgMember>;
      /** `client.org.members.delete(memberId)`: variables are the member id. */
      readonly delete: MutationMethod<[], string, void>;
    };
    /** `client.org.invitations`. */
    readonly invitations: {
      /** `[scope, 'org', 'invitations']`. */
      key(): SecretsVaultQueryKey;
      /** `client.org.invitations.list(params?)`. */
      readonly list: ListMethod<[], InvitationListParams, Invitation>;
      /** `client.org.invitations.create(params)`. */
      readonly create: MutationMethod<[], InvitationCreateParams, Invitation>;
    };
  };
  /** `client.audit`; every write of these options invalidates it. */
  readonly audit: {
    /** `[scope, 'audit']`. */
    key(): SecretsVaultQueryKey;
    /** `client.audit.list(params?)`. */
    readonly list: ListMethod<[], AuditListParams, AuditEntry>;
  };
}

/**
 * Builds TanStack Query options for every method of `client`: stable keys of plain JSON values,
 * a `queryFn` that passes TanStack's `signal` (a cancelled query aborts its request), lists held
 * as plain `PageData` (so structural sharing and `dehydrate` work), no TanStack retries on top
 * of the SDK's ({@link queryRetry}), and mutations that invalidate what they change. It returns
 * plain objects and needs nothing from TanStack: call it once per client, at module level.
 *
 * @example
 * ```ts
 * import { SecretsVault } from '@secrets-vault/sdk';
 * import { createQueryOptions } from '@secrets-vault/sdk/query';
 * import { useInfiniteQuery, useMutation, useQuery } from '@tanstack/react-query';
 *
 * const client = new SecretsVault({ baseUrl, token });
 * const q = createQueryOptions(client);
 *
 * useQuery(q.vaults.get.queryOptions(vaultId));
 * useInfiniteQuery(q.vaults.list.infiniteQueryOptions({ limit: 20 }));
 * const update = useMutation(q.vaults.update.mutationOptions(vaultId));
 * update.mutate({ color: '#3366FF' });
 * ```
 */
export function createQueryOptions(
  client: SecretsVault,
  options: CreateQueryOptionsOptions = {},
): SecretsVaultQueries {
  const scope = options.scope ?? 'secrets-vault';
  const { read, list, write, key } = builders(scope);
  const audit = key('audit');

  return {
    key: () => key(),
    vaults: {
      key: () => key('vaults'),
      list: list(['vaults', 'list'], 0, (o, params: VaultListParams) =>
        client.vaults.list(params, o),
      ),
      get: read(['vaults', 'get'], 1, (o, vaultId: string) => client.vaults.get(vaultId, o)),
      create: write(
        ['vaults', 'create'],
        0,
        (o, params: VaultCreateParams) => client.vaults.create(params, o),
        () => [key('vaults', 'list'), audit],
      ),
      update: write(
        ['vaults', 'update'],
        1,
        (o, vaultId: string, params: VaultUpdateParams) => client.vaults.update(vaultId, params, o),
        ([vaultId]) => [key('vaults', 'list'), key('vaults', 'get', vaultId), audit],
      ),
      // The id is the variables, unknown here: every vault key (lists, gets, members) and every
      // secret key (the vault's secrets are gone with it).
      delete: write(
        ['vaults', 'delete'],
        0,
        (o, vaultId: string) => client.vaults.delete(vaultId, o),
        () => [key('vaults'), key('secrets'), audit],
      ),
      members: {
        key: () => key('vaults', 'members'),
        list: list(
          ['vaults', 'members', 'list'],
          1,
          (o, vaultId: string, params: VaultMemberListParams) =>
            client.vaults.members.list(vaultId, params, o),
        ),
        create: write(
          ['vaults', 'members', 'create'],
          1,
          (o, vaultId: string, params: VaultMemberCreateParams) =>
            client.vaults.members.create(vaultId, params, o),
          ([vaultId]) => [key('vaults', 'members', 'list', vaultId), audit],
        ),
        update: write(
          ['vaults', 'members', 'update'],
          2,
          (o, vaultId: string, memberId: string, params: VaultMemberUpdateParams) =>
            client.vaults.members.update(vaultId, memberId, params, o),
          ([vaultId]) => [key('vaults', 'members', 'list', vaultId), audit],
        ),
        delete: write(
          ['vaults', 'members', 'delete'],
          1,
          (o, vaultId: string, memberId: string) =>
            client.vaults.members.delete(vaultId, memberId, o),
          ([vaultId]) => [key('vaults', 'members', 'list', vaultId), audit],
        ),
      },
    },
    secrets: {
      key: () => key('secrets'),
      list: list(['secrets', 'list'], 1, (o, vaultId: string, params: SecretListParams) =>
        client.secrets.list(vaultId, params, o),
      ),
      getValue: read(
        ['secrets', 'getValue'],
        1,
        (o, secretId: string) => client.secrets.getValue(secretId, o),
        HOLDS_VALUES,
      ),
      listValues: read(
        ['secrets', 'listValues'],
        1,
        (o, vaultId: string) => client.secrets.listValues(vaultId, o),
        HOLDS_VALUES,
      ),
      create: write(
        ['secrets', 'create'],
        1,
        (o, vaultId: string, params: SecretCreateParams) =>
          client.secrets.create(vaultId, params, o),
        ([vaultId]) => [
          key('secrets', 'list', vaultId),
          key('secrets', 'listValues', vaultId),
          audit,
        ],
        HOLDS_VALUES,
      ),
      // Only the secret id is known, not its vault: every secret list and every listValues. Its
      // variables may hold a value (a rename alone does not, but the options cannot tell).
      update: write(
        ['secrets', 'update'],
        1,
        (o, secretId: string, params: SecretUpdateParams) =>
          client.secrets.update(secretId, params, o),
        ([secretId]) => [
          key('secrets', 'list'),
          key('secrets', 'listValues'),
          key('secrets', 'getValue', secretId),
          audit,
        ],
        HOLDS_VALUES,
      ),
      delete: write(
        ['secrets', 'delete'],
        0,
        (o, secretId: string) => client.secrets.delete(secretId, o),
        () => [key('secrets'), audit],
      ),
    },
    teams: {
      key: () => key('teams'),
      list: list(['teams', 'list'], 0, (o, params: TeamListParams) => client.teams.list(params, o)),
      get: read(['teams', 'get'], 1, (o, teamId: string) => client.teams.get(teamId, o)),
      create: write(
        ['teams', 'create'],
        0,
        (o, params: TeamCreateParams) => client.teams.create(params, o),
        () => [key('teams', 'list'), audit],
      ),
      update: write(
        ['teams', 'update'],
        1,
        (o, teamId: string, params: TeamUpdateParams) => client.teams.update(teamId, params, o),
        ([teamId]) => [key('teams', 'list'), key('teams', 'get', teamId), audit],
      ),
      // A deleted team's vaults stay, without a team: their `team_id` changes.
      delete: write(
        ['teams', 'delete'],
        0,
        (o, teamId: string) => client.teams.delete(teamId, o),
        () => [key('teams'), key('vaults', 'list'), key('vaults', 'get'), audit],
      ),
      members: {
        key: () => key('teams', 'members'),
        list: list(
          ['teams', 'members', 'list'],
          1,
          (o, teamId: string, params: TeamMemberListParams) =>
            client.teams.members.list(teamId, params, o),
        ),
        create: write(
          ['teams', 'members', 'create'],
          1,
          (o, teamId: string, params: TeamMemberCreateParams) =>
            client.teams.members.create(teamId, params, o),
          ([teamId]) => [key('teams', 'members', 'list', teamId), audit],
        ),
        delete: write(
          ['teams', 'members', 'delete'],
          1,
          (o, teamId: string, memberId: string) => client.teams.members.delete(teamId, memberId, o),
          ([teamId]) => [key('teams', 'members', 'list', teamId), audit],
        ),
      },
    },
    org: {
      key: () => key('org'),
      get: read(['org', 'get'], 0, (o) => client.org.get(o)),
      members: {
        key: () => key('org', 'members'),
        list: list(['org', 'members', 'list'], 0, (o, params: OrgMemberListParams) =>
          client.org.members.list(params, o),
        ),
        update: write(
          ['org', 'members', 'update'],
          1,
          (o, memberId: string, params: OrgMemberUpdateParams) =>
            client.org.members.update(memberId, params, o),
          () => [key('org', 'members', 'list'), audit],
        ),
        delete: write(
          ['org', 'members', 'delete'],
          0,
          (o, memberId: string) => client.org.members.delete(memberId, o),
          () => [key('org', 'members', 'list'), audit],
        ),
      },
      invitations: {
        key: () => key('org', 'invitations'),
        list: list(['org', 'invitations', 'list'], 0, (o, params: InvitationListParams) =>
          client.org.invitations.list(params, o),
        ),
        create: write(
          ['org', 'invitations', 'create'],
          0,
          (o, params: InvitationCreateParams) => client.org.invitations.create(params, o),
          () => [key('org', 'invitations', 'list'), audit],
        ),
      },
    },
    audit: {
      key: () => audit,
      list: list(['audit', 'list'], 0, (o, params: AuditListParams) =>
        client.audit.list(params, o),
      ),
    },
  };
}

/**
 * What the queries and mutations that hold secret values add (the reads of values, and the writes
 * whose variables carry one): they leave the cache as soon as nothing shows them, and `meta` marks
 * them for {@link shouldDehydrateQuery} and {@link shouldDehydrateMutation}, so that a persisted
 * or server-rendered cache never carries a value.
 */
const HOLDS_VALUES = { gcTime: 0, meta: { secretValues: true } } as const;

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

/** The three kinds of method, and the key of a path, under one scope. */
function builders(scope: string) {
  const key = (...parts: readonly unknown[]): SecretsVaultQueryKey => [scope, ...parts];

  /** A read: `arity` arguments, then the request options. */
  function read<TArgs extends unknown[], TData>(
    path: readonly string[],
    arity: TArgs['length'],
    call: (options: RequestOptions, ...args: TArgs) => PromiseLike<TData>,
    extra: Pick<SecretsVaultQueryOptions<TData>, 'gcTime' | 'meta'> = {},
  ): QueryMethod<TArgs, TData> {
    return {
      key: (...args) => key(...path, ...prefix(args)),
      queryOptions: (...input) => {
        const args = input.slice(0, arity) as TArgs;
        const options = input[arity] as QueryRequestOptions | undefined;
        return {
          queryKey: key(...path, ...args),
          queryFn: async ({ signal }) => call({ ...options, signal }, ...args),
          retry: queryRetry,
          ...extra,
        };
      },
    };
  }

  /** A list: `arity` ids, then the list parameters, then the request options. */
  function list<TPath extends unknown[], TParams extends object, TItem>(
    path: readonly string[],
    arity: TPath['length'],
    call: (options: RequestOptions, ...args: [...TPath, TParams]) => PromiseLike<PageData<TItem>>,
  ): ListMethod<TPath, TParams, TItem> {
    const split = (input: readonly unknown[]) => ({
      ids: input.slice(0, arity) as TPath,
      params: (input[arity] ?? {}) as TParams,
      options: input[arity + 1] as QueryRequestOptions | undefined,
    });
    const fetchPage = async (
      ids: TPath,
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
          ...prefix(args).map((arg, index) => (index === arity ? plainParams(arg) : arg)),
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

  /** A write: `arity` bound arguments, then the variables, then the request options. */
  function write<TBound extends unknown[], TVariables, TData>(
    path: readonly string[],
    arity: TBound['length'],
    call: (options: RequestOptions, ...args: [...TBound, TVariables]) => PromiseLike<TData>,
    // Not a source of inference: a rule that ignores the bound ids must not make them `[]`.
    invalidates: (bound: NoInfer<TBound>) => SecretsVaultQueryKey[],
    extra: Pick<SecretsVaultQueryOptions<TData>, 'gcTime' | 'meta'> = {},
  ): MutationMethod<TBound, TVariables, TData> {
    return {
      key: (...args) => key(...path, ...prefix(args)),
      mutationOptions: (...input) => {
        const bound = input.slice(0, arity) as TBound;
        const options = (input[arity] ?? {}) as MutationRequestOptions;
        const keys = invalidates(bound);
        return {
          mutationKey: key(...path, ...bound),
          mutationFn: async (variables) => call(options, ...bound, variables),
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

  return { key, read, list, write };
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
