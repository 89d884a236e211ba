/**
 * Type tests of `@secrets-vault/sdk/query`: TanStack Query 5 (query-core) accepts every kind of
 * option object as it is, without a cast, and infers the SDK's data and error types from it.
 * Compiled by vitest's typecheck (and `npm run typecheck`), never run.
 */
import type {
  AuditEntry,
  PageData,
  SecretsVault,
  SecretsVaultError,
  SecretWithValue,
  Vault,
  VaultMember,
  VaultMemberUpdateResponse,
} from '@secrets-vault/sdk';
import { createQueryOptions, queryRetry } from '@secrets-vault/sdk/query';
import {
  InfiniteQueryObserver,
  MutationObserver,
  QueryClient,
  QueryObserver,
} from '@tanstack/query-core';
import { describe, expectTypeOf, it } from 'vitest';

declare const client: SecretsVault;
const q = createQueryOptions(client);
const queryClient = new QueryClient();

describe('query options', () => {
  it('are accepted by fetchQuery, with the data type of the client method', async () => {
    const vault = await queryClient.fetchQuery(q.vaults.get.queryOptions('vlt_1'));
    expectTypeOf(vault).toEqualTypeOf<Vault>();
    const page = await queryClient.fetchQuery(q.vaults.list.queryOptions({ limit: 20 }));
    expectTypeOf(page).toEqualTypeOf<PageData<Vault>>();
    const values = await queryClient.fetchQuery(q.secrets.listValues.queryOptions('vlt_1'));
    expectTypeOf(values).toEqualTypeOf<SecretWithValue[]>();
  });

  it('are accepted by QueryObserver, with SecretsVaultError as the error type', () => {
    const observer = new QueryObserver(queryClient, q.vaults.get.queryOptions('vlt_1'));
    const result = observer.getCurrentResult();
    expectTypeOf(result.data).toEqualTypeOf<Vault | undefined>();
    expectTypeOf(result.error).toEqualTypeOf<SecretsVaultError | null>();
  });

  it('compose with TanStack options of the caller (select, staleTime, enabled)', () => {
    const observer = new QueryObserver(queryClient, {
      ...q.vaults.list.queryOptions(),
      select: (page) => page.data.map((vault) => vault.name),
      staleTime: 30_000,
      enabled: true,
    });
    expectTypeOf(observer.getCurrentResult().data).toEqualTypeOf<string[] | undefined>();
  });

  it('take request options last, and refuse a signal or an idempotency key there', () => {
    q.vaults.get.queryOptions('vlt_1', { timeout: 5_000, headers: { 'x-trace': '1' } });
    q.vaults.members.list.queryOptions('vlt_1', {}, { maxRetries: 0 });
    // @ts-expect-error TanStack's signal is the query's own
    q.vaults.get.queryOptions('vlt_1', { signal: AbortSignal.timeout(1) });
    // @ts-expect-error an id is required
    q.vaults.get.queryOptions();
  });
});

describe('infinite query options', () => {
  it('are accepted by fetchInfiniteQuery and InfiniteQueryObserver, pages as PageData', async () => {
    const data = await queryClient.fetchInfiniteQuery(
      q.vaults.members.list.infiniteQueryOptions('vlt_1', { limit: 20 }),
    );
    expectTypeOf(data.pages).toEqualTypeOf<PageData<VaultMember>[]>();
    const observer = new InfiniteQueryObserver(
      queryClient,
      q.audit.list.infiniteQueryOptions({ action: 'vault.create' }),
    );
    const result = observer.getCurrentResult();
    expectTypeOf(result.data?.pages).toEqualTypeOf<PageData<AuditEntry>[] | undefined>();
    expectTypeOf(result.error).toEqualTypeOf<SecretsVaultError | null>();
    expectTypeOf(result.hasNextPage).toEqualTypeOf<boolean>();
  });

  it('take no cursor: the page param is the cursor', () => {
    // @ts-expect-error the cursor comes from the previous page
    q.vaults.list.infiniteQueryOptions({ cursor: 'abc' });
  });
});

describe('mutation options', () => {
  it('are accepted by MutationObserver: bound arguments first, variables in mutate', async () => {
    const update = new MutationObserver(queryClient, q.vaults.update.mutationOptions('vlt_1'));
    const vault = await update.mutate({ color: '#3366FF' });
    expectTypeOf(vault).toEqualTypeOf<Vault>();
    expectTypeOf(update.getCurrentResult().error).toEqualTypeOf<SecretsVaultError | null>();

    const remove = new MutationObserver(queryClient, q.vaults.delete.mutationOptions());
    expectTypeOf(remove.mutate).parameter(0).toEqualTypeOf<string>();

    const role = new MutationObserver(
      queryClient,
      q.vaults.members.update.mutationOptions('vlt_1', 'mem_1', { timeout: 5_000 }),
    );
    expectTypeOf(await role.mutate({ role: 'editor' })).toEqualTypeOf<VaultMemberUpdateResponse>();
  });

  it('refuse an idempotency key at build time (every mutate needs its own)', () => {
    // @ts-expect-error one key for every mutate() would replay the first create
    q.vaults.create.mutationOptions({ idempotencyKey: 'job-1' });
  });

  it("let the caller wrap the options' onSuccess and keep the invalidation", () => {
    const options = q.vaults.create.mutationOptions();
    new MutationObserver(queryClient, {
      ...options,
      onSuccess: async (...args) => {
        await options.onSuccess(...args);
        expectTypeOf(args[0]).toEqualTypeOf<Vault>();
      },
    });
  });
});

describe('queryRetry', () => {
  it('fits TanStack retry options for any error type', () => {
    new QueryClient({ defaultOptions: { queries: { retry: queryRetry } } });
  });
});
