/**
 * `createQueryOptions`: every method of the client as TanStack Query options, one namespace per
 * file (`vaults.ts`, `secrets.ts`, `teams.ts`, `org.ts`, `audit.ts`), each describing its methods
 * with the builders of `builders.ts`.
 */
import type { SecretsVault } from '@secrets-vault/sdk';
import { type AuditQueries, auditQueries } from './audit.js';
import { queryBuilders } from './builders.js';
import { type OrgQueries, orgQueries } from './org.js';
import { type SecretsQueries, secretsQueries } from './secrets.js';
import { type TeamsQueries, teamsQueries } from './teams.js';
import type { SecretsVaultQueryKey } from './types.js';
import { type VaultsQueries, vaultsQueries } from './vaults.js';

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
  readonly vaults: VaultsQueries;
  /** `client.secrets`, without the startup-only `load` and `resolveReferences`. */
  readonly secrets: SecretsQueries;
  /** `client.teams`. */
  readonly teams: TeamsQueries;
  /** `client.org`. */
  readonly org: OrgQueries;
  /** `client.audit`; every write of these options invalidates it. */
  readonly audit: AuditQueries;
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
  const build = queryBuilders(options.scope ?? 'secrets-vault');
  return {
    key: () => build.key(),
    vaults: vaultsQueries(client, build),
    secrets: secretsQueries(client, build),
    teams: teamsQueries(client, build),
    org: orgQueries(client, build),
    audit: auditQueries(client, build),
  };
}
