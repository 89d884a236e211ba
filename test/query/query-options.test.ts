/**
 * `@secrets-vault/sdk/query` through TanStack's query-core, over real fetch against the stateful
 * mock: requests are counted where they reach the mock.
 */
import {
  APIUserAbortError,
  InternalServerError,
  NotFoundError,
  type PageData,
  SecretsVault,
  SecretsVaultError,
  type Vault,
} from '@secrets-vault/sdk';
import { createVaultMock } from '@secrets-vault/sdk/mock';
import {
  createQueryOptions,
  queryRetry,
  shouldDehydrateMutation,
  shouldDehydrateQuery,
} from '@secrets-vault/sdk/query';
import {
  CancelledError,
  dehydrate,
  hashKey,
  hydrate,
  InfiniteQueryObserver,
  MutationObserver,
  onlineManager,
  partialMatchKey,
  QueryClient,
  QueryObserver,
} from '@tanstack/query-core';
import { setupServer } from 'msw/node';
import {
  afterAll,
  afterEach,
  beforeAll,
  beforeEach,
  describe,
  expect,
  it,
  onTestFinished,
  vi,
} from 'vitest';

const mock = createVaultMock();
const server = setupServer(...mock.handlers);
/** Every request that reached the mock, in order. */
const requests: Request[] = [];
server.events.on('request:start', ({ request }) => {
  requests.push(request.clone()); // a clone: the mock reads the body of the original
});

beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
beforeEach(() => {
  mock.reset();
  requests.length = 0;
});
afterEach(() => vi.restoreAllMocks());
afterAll(() => server.close());

/** One SDK retry, no retry budget to drain: `1 + maxRetries` is 2 requests per call. */
const newClient = (fetch?: typeof globalThis.fetch) =>
  new SecretsVault({
    baseUrl: mock.baseUrl,
    token: mock.principals.owner.token,
    maxRetries: 1,
    retryBudget: false,
    ...(fetch === undefined ? {} : { fetch }),
  });

/** A QueryClient whose defaults would retry three times at once, as a dashboard might set. */
const newQueryClient = () =>
  new QueryClient({ defaultOptions: { queries: { retry: 3, retryDelay: 0 } } });

const requestsTo = (method: string, pathname: string) =>
  requests.filter(
    (request) => request.method === method && new URL(request.url).pathname === pathname,
  );

async function createVaults(client: SecretsVault, count: number): Promise<Vault[]> {
  const vaults: Vault[] = [];
  for (let index = 0; index < count; index += 1) {
    vaults.push(await client.vaults.create({ name: `vault-${index}` }));
  }
  requests.length = 0;
  return vaults;
}

/** Resolves with the first result of `observer` that satisfies `done`. */
function resultWhere<T extends { isFetching: boolean }>(
  observer: { subscribe(listener: (result: T) => void): () => void; getCurrentResult(): T },
  done: (result: T) => boolean,
): Promise<T> {
  return new Promise((resolve) => {
    const current = observer.getCurrentResult();
    if (done(current)) return resolve(current);
    const unsubscribe = observer.subscribe((result) => {
      if (!done(result)) return;
      unsubscribe();
      resolve(result);
    });
  });
}

describe('retries', () => {
  it('makes 1 + maxRetries requests for a lasting 503, not four times as many', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0); // no backoff wait between the SDK's attempts
    const client = newClient();
    const [vault] = await createVaults(client, 1);
    if (vault === undefined) throw new Error('no vault');
    mock.faults.inject(
      { method: 'GET', path: '/v1/vaults/:vaultId' },
      { kind: 'status', status: 503 },
    );

    const q = createQueryOptions(client);
    await expect(
      newQueryClient().fetchQuery(q.vaults.get.queryOptions(vault.id)),
    ).rejects.toBeInstanceOf(InternalServerError);
    expect(requestsTo('GET', `/v1/vaults/${vault.id}`)).toHaveLength(2);
  });

  it('makes one request for a 404 and rejects with NotFoundError', async () => {
    const q = createQueryOptions(newClient());
    const observer = new QueryObserver(newQueryClient(), q.vaults.get.queryOptions('vlt_missing'));
    const result = await resultWhere(observer, (current) => current.status === 'error');

    expect(result.error).toBeInstanceOf(NotFoundError);
    expect(result.failureCount).toBe(1);
    expect(requestsTo('GET', '/v1/vaults/vlt_missing')).toHaveLength(1);
  });

  it('queryRetry never retries an SDK error and keeps TanStack’s default for other errors', () => {
    const notFound = new NotFoundError({
      status: 404,
      code: null,
      message: null,
      headers: new Headers(),
    });
    const retries = (error: unknown) => [0, 1, 2, 3].map((count) => queryRetry(count, error));
    // On a server (no `window`, as here in Node), TanStack's default is no retry at all.
    expect(retries(new TypeError('bug'))).toEqual([false, false, false, false]);
    try {
      // In a browser, three.
      vi.stubGlobal('window', globalThis);
      expect(retries(new TypeError('bug'))).toEqual([true, true, true, false]);
      expect(retries(notFound)).toEqual([false, false, false, false]);
      expect(retries(new SecretsVaultError('any'))).toEqual([false, false, false, false]);
      // Deno has a `window`, and TanStack takes it for a server all the same.
      vi.stubGlobal('Deno', {});
      expect(retries(new TypeError('bug'))).toEqual([false, false, false, false]);
    } finally {
      vi.unstubAllGlobals();
    }
  });
});

describe('keys', () => {
  const q = createQueryOptions(newClient());

  it('are [scope, ...namespace, method, ...ids, params] of plain JSON values', () => {
    expect(q.vaults.get.queryOptions('vlt_1').queryKey).toEqual([
      'secrets-vault',
      'vaults',
      'get',
      'vlt_1',
    ]);
    expect(q.vaults.list.queryOptions({ limit: 20 }).queryKey).toEqual([
      'secrets-vault',
      'vaults',
      'list',
      { limit: 20 },
    ]);
    expect(q.vaults.members.list.queryOptions('vlt_1').queryKey).toEqual([
      'secrets-vault',
      'vaults',
      'members',
      'list',
      'vlt_1',
      {},
    ]);
    expect(q.org.get.queryOptions().queryKey).toEqual(['secrets-vault', 'org', 'get']);
    expect(createQueryOptions(newClient(), { scope: 'eu' }).vaults.key()).toEqual(['eu', 'vaults']);
    const key = q.audit.list.infiniteQueryOptions({ action: 'vault.create', limit: 5 }).queryKey;
    expect(JSON.parse(JSON.stringify(key))).toEqual(key);
  });

  it('are equal for equal calls, differ for different arguments, and ignore request options', () => {
    const hash = (key: readonly unknown[]) => hashKey(key);
    expect(hash(q.vaults.get.queryOptions('vlt_1').queryKey)).toBe(
      hash(
        q.vaults.get.queryOptions('vlt_1', { timeout: 1_000, headers: { 'x-trace': '1' } })
          .queryKey,
      ),
    );
    expect(hash(q.vaults.list.queryOptions({ limit: 20, cursor: undefined }).queryKey)).toBe(
      hash(q.vaults.list.queryOptions({ limit: 20 }, { maxRetries: 0 }).queryKey),
    );
    expect(hash(q.vaults.list.queryOptions().queryKey)).toBe(
      hash(q.vaults.list.queryOptions({}).queryKey),
    );
    expect(hash(q.vaults.get.queryOptions('vlt_1').queryKey)).not.toBe(
      hash(q.vaults.get.queryOptions('vlt_2').queryKey),
    );
    expect(hash(q.vaults.list.queryOptions({ limit: 20 }).queryKey)).not.toBe(
      hash(q.vaults.list.queryOptions({ limit: 50 }).queryKey),
    );
    expect(hash(q.vaults.list.queryOptions({ limit: 20 }).queryKey)).not.toBe(
      hash(q.vaults.list.infiniteQueryOptions({ limit: 20 }).queryKey),
    );
  });

  it('key() builders are prefixes that match the queries they name, infinite ones included', () => {
    const list = q.vaults.list.queryOptions({ limit: 20 }).queryKey;
    const infinite = q.vaults.list.infiniteQueryOptions({ limit: 20 }).queryKey;
    for (const prefix of [q.key(), q.vaults.key(), q.vaults.list.key()]) {
      expect(partialMatchKey(list, prefix)).toBe(true);
      expect(partialMatchKey(infinite, prefix)).toBe(true);
    }
    expect(q.vaults.list.key({ limit: 20 })).toEqual(list);
    expect(q.vaults.get.key('vlt_1')).toEqual(q.vaults.get.queryOptions('vlt_1').queryKey);
    expect(q.vaults.members.list.key('vlt_1')).toEqual([
      'secrets-vault',
      'vaults',
      'members',
      'list',
      'vlt_1',
    ]);
    expect(partialMatchKey(q.vaults.get.queryOptions('vlt_1').queryKey, q.vaults.list.key())).toBe(
      false,
    );
  });

  it('leave out the startup-only calls', () => {
    expect(Object.keys(q.secrets).sort()).toEqual(
      ['create', 'delete', 'getValue', 'key', 'list', 'listValues', 'update'].sort(),
    );
  });
});

describe('lists', () => {
  it('hold a page as plain PageData, and refetching an unchanged list keeps the same data', async () => {
    const client = newClient();
    await createVaults(client, 3);
    const q = createQueryOptions(client);
    const observer = new QueryObserver(newQueryClient(), q.vaults.list.queryOptions({ limit: 10 }));
    const first = await resultWhere(observer, (result) => result.status === 'success');
    const data = first.data as PageData<Vault>;
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
    expect(data).toEqual({ data: expect.any(Array), nextCursor: null });

    const refetched = await observer.refetch();
    expect(requestsTo('GET', '/v1/vaults')).toHaveLength(2);
    expect(refetched.data).toBe(data);
  });

  it('keep the unchanged items of a refetched page when only its cursor changed', async () => {
    const client = newClient();
    await createVaults(client, 3);
    const q = createQueryOptions(client);
    const observer = new QueryObserver(newQueryClient(), q.vaults.list.queryOptions({ limit: 2 }));
    const first = await resultWhere(observer, (result) => result.status === 'success');

    const refetched = await observer.refetch();
    // The mock hands out a fresh cursor per response: a new page object, the same items.
    expect(refetched.data?.nextCursor).not.toBe(first.data?.nextCursor);
    expect(refetched.data?.data).toBe(first.data?.data);
    expect(refetched.data?.data[0]).toBe(first.data?.data[0]);
  });

  it('walk the cursors page by page in an infinite query, and end with hasNextPage false', async () => {
    const client = newClient();
    const vaults = await createVaults(client, 5);
    const q = createQueryOptions(client);
    const observer = new InfiniteQueryObserver(
      newQueryClient(),
      q.vaults.list.infiniteQueryOptions({ limit: 2 }),
    );
    let result = await resultWhere(observer, (current) => current.status === 'success');
    while (result.hasNextPage) result = await observer.fetchNextPage();

    expect(result.data?.pages.map((page) => page.data.length)).toEqual([2, 2, 1]);
    expect(result.data?.pages.flatMap((page) => page.data.map((vault) => vault.id)).sort()).toEqual(
      vaults.map((vault) => vault.id).sort(),
    );
    expect(result.data?.pageParams[0]).toBeNull();
    const cursors = requestsTo('GET', '/v1/vaults').map((request) =>
      new URL(request.url).searchParams.get('cursor'),
    );
    expect(cursors).toEqual([
      null,
      result.data?.pages[0]?.nextCursor,
      result.data?.pages[1]?.nextCursor,
    ]);
    expect(result.data?.pages.at(-1)?.nextCursor).toBeNull();
  });

  it('survive a dehydrate / JSON / hydrate round trip, the next page fetched from nextCursor', async () => {
    const client = newClient();
    await createVaults(client, 3);
    const q = createQueryOptions(client);
    const options = q.vaults.list.infiniteQueryOptions({ limit: 2 });
    const server = newQueryClient();
    await server.fetchInfiniteQuery(options);
    const state = JSON.parse(JSON.stringify(dehydrate(server)));

    const browser = newQueryClient();
    hydrate(browser, state);
    const observer = new InfiniteQueryObserver(browser, {
      ...options,
      staleTime: Number.POSITIVE_INFINITY,
    });
    const hydrated = observer.getCurrentResult();
    expect(hydrated.data?.pages).toHaveLength(1);
    expect(hydrated.hasNextPage).toBe(true);
    const cursor = hydrated.data?.pages[0]?.nextCursor;

    const next = await observer.fetchNextPage();
    expect(next.data?.pages.map((page) => page.data.length)).toEqual([2, 1]);
    expect(next.hasNextPage).toBe(false);
    const lastRequest = requestsTo('GET', '/v1/vaults').at(-1);
    expect(lastRequest && new URL(lastRequest.url).searchParams.get('cursor')).toBe(cursor);
  });
});

describe('secret values', () => {
  it('leave the cache once unobserved and never enter a dehydrated state', async () => {
    const client = newClient();
    const [vault] = await createVaults(client, 1);
    const vaultId = vault?.id ?? '';
    const secret = await client.secrets.create(vaultId, {
      name: 'database',
      value: { password: 'cache-must-not-keep-this' },
    });
    const q = createQueryOptions(client);
    const queryClient = newQueryClient();
    await queryClient.fetchQuery(q.vaults.get.queryOptions(vaultId));
    await queryClient.fetchQuery(q.secrets.listValues.queryOptions(vaultId));
    const observer = new QueryObserver(queryClient, q.secrets.getValue.queryOptions(secret.id));
    const unsubscribe = observer.subscribe(() => undefined);
    await vi.waitFor(() => expect(observer.getCurrentResult().isSuccess).toBe(true));

    // What a persister or a server-rendered page would write: the vault, never a value.
    const state = JSON.stringify(dehydrate(queryClient, { shouldDehydrateQuery }));
    expect(state).toContain(vault?.name);
    expect(state).not.toContain('cache-must-not-keep-this');
    // TanStack's default would have kept them: the rule is what leaves them out.
    expect(JSON.stringify(dehydrate(queryClient))).toContain('cache-must-not-keep-this');

    unsubscribe();
    // gcTime 0: the value leaves the cache as soon as nothing shows it.
    await vi.waitFor(() =>
      expect(queryClient.getQueryData(q.secrets.getValue.queryOptions(secret.id).queryKey)).toBe(
        undefined,
      ),
    );
    expect(queryClient.getQueryData(q.vaults.get.queryOptions(vaultId).queryKey)).toEqual(vault);
  });
});

/** Takes the network away for this test; puts it back (and stops `queryClient`) when it ends. */
function goOffline(queryClient: QueryClient) {
  onTestFinished(() => {
    queryClient.unmount(); // so that nothing resumes in a later test
    onlineManager.setOnline(true);
  });
  onlineManager.setOnline(false);
}

describe('paused secret writes', () => {
  // Quotes and a backslash, so that JSON escapes it: neither form may reach a dehydrated state.
  const value = { password: 'paused-write-must-not-persist "quoted" \\ end' };
  const escaped = JSON.stringify(value.password).slice(1, -1);

  it('are kept out of dehydrate, where TanStack’s default would persist the value', async () => {
    const client = newClient();
    const [vault] = await createVaults(client, 1);
    const vaultId = vault?.id ?? '';
    const existing = await client.secrets.create(vaultId, { name: 'api', value: { key: 'k' } });
    requests.length = 0;
    const q = createQueryOptions(client);
    const queryClient = newQueryClient();
    queryClient.mount(); // resumes paused mutations once back online
    goOffline(queryClient);

    const create = new MutationObserver(queryClient, q.secrets.create.mutationOptions(vaultId));
    const update = new MutationObserver(queryClient, q.secrets.update.mutationOptions(existing.id));
    const unsubscribe = [create.subscribe(() => undefined), update.subscribe(() => undefined)];
    const created = create.mutate({ name: 'database', value });
    const updated = update.mutate({ value });
    await vi.waitFor(() => {
      expect(create.getCurrentResult().isPaused).toBe(true);
      expect(update.getCurrentResult().isPaused).toBe(true);
    });
    expect(requests).toHaveLength(0);

    const state = JSON.stringify(dehydrate(queryClient, { shouldDehydrateMutation }));
    for (const trace of ['paused-write-must-not-persist', value.password, escaped]) {
      expect(state).not.toContain(trace);
    }
    expect(JSON.parse(state).mutations).toEqual([]);
    // TanStack's default keeps paused mutations, variables and all: the rule is what leaves
    // them out.
    const leaky = JSON.stringify(dehydrate(queryClient));
    expect(leaky).toContain(escaped);
    expect(JSON.parse(leaky).mutations).toHaveLength(2);

    // Back online, the writes go out as made.
    onlineManager.setOnline(true);
    const secret = await created;
    await updated;
    expect(await client.secrets.getValue(secret.id)).toMatchObject({ value });
    expect(await client.secrets.getValue(existing.id)).toMatchObject({ value });

    // gcTime 0: once nothing observes them, the settled writes (and the value in their
    // variables) leave the MutationCache rather than staying for the default five minutes.
    const secretWrites = () =>
      queryClient.getMutationCache().findAll({ mutationKey: q.secrets.key() });
    expect(secretWrites()).toHaveLength(2);
    for (const stop of unsubscribe) stop();
    await vi.waitFor(() => expect(secretWrites()).toHaveLength(0));
  });

  it('leave other paused writes to TanStack’s default: dehydrated, to resume after a reload', async () => {
    const q = createQueryOptions(newClient());
    const queryClient = newQueryClient();
    goOffline(queryClient);
    const create = new MutationObserver(queryClient, q.vaults.create.mutationOptions());
    void create.mutate({ name: 'Payments' });
    await vi.waitFor(() => expect(create.getCurrentResult().isPaused).toBe(true));

    const state = dehydrate(queryClient, { shouldDehydrateMutation });
    expect(state.mutations).toHaveLength(1);
    expect(state.mutations[0]?.state.variables).toEqual({ name: 'Payments' });
    expect(state).toEqual(dehydrate(queryClient));
    // A settled write is not dehydrated, as TanStack's default does.
    expect(shouldDehydrateMutation({ state: { isPaused: false } })).toBe(false);
    expect(create.options.gcTime).toBeUndefined();
  });

  it('mark the writes whose variables carry a value, and only those', () => {
    const q = createQueryOptions(newClient());
    for (const options of [
      q.secrets.create.mutationOptions('vlt_1'),
      q.secrets.update.mutationOptions('sec_1'),
    ]) {
      expect(options.gcTime).toBe(0);
      expect(options.meta.secretValues).toBe(true);
    }
    for (const options of [
      q.vaults.create.mutationOptions(),
      q.vaults.update.mutationOptions('vlt_1'),
      q.vaults.members.create.mutationOptions('vlt_1'),
      q.secrets.delete.mutationOptions(),
      q.teams.create.mutationOptions(),
      q.org.invitations.create.mutationOptions(),
    ]) {
      expect(options).not.toHaveProperty('gcTime');
      expect(options.meta).toEqual({ invalidates: expect.any(Array) });
    }
  });
});

describe('mutations', () => {
  it('create invalidates the vault lists and the audit log, and still sends an Idempotency-Key', async () => {
    const client = newClient();
    const q = createQueryOptions(client);
    const queryClient = newQueryClient();
    // The list is on screen (active: refetched), the audit log is not (inactive: marked stale).
    const list = new QueryObserver(queryClient, q.vaults.list.queryOptions());
    const unsubscribe = list.subscribe(() => undefined);
    await resultWhere(list, (result) => result.status === 'success');
    await queryClient.fetchQuery(q.audit.list.queryOptions());
    const audit = q.audit.list.queryOptions().queryKey;
    expect(queryClient.getQueryState(audit)?.isInvalidated).toBe(false);

    const create = new MutationObserver(queryClient, q.vaults.create.mutationOptions());
    expect(create.options.meta).toEqual({
      invalidates: [q.vaults.list.key(), q.audit.key()],
    });
    const vault = await create.mutate({ name: 'Payments' });

    expect(list.getCurrentResult().data?.data.map((item) => item.id)).toEqual([vault.id]);
    expect(queryClient.getQueryState(audit)?.isInvalidated).toBe(true);
    const [post] = requestsTo('POST', '/v1/vaults');
    expect(post?.headers.get('idempotency-key')).toMatch(/^[0-9a-f-]{36}$/);
    unsubscribe();
  });

  it('update binds the vault id, takes the changes as variables, and invalidates that vault', async () => {
    const client = newClient();
    const [vault] = await createVaults(client, 1);
    if (vault === undefined) throw new Error('no vault');
    const q = createQueryOptions(client);
    const queryClient = newQueryClient();
    await queryClient.fetchQuery(q.vaults.get.queryOptions(vault.id));

    const update = new MutationObserver(queryClient, q.vaults.update.mutationOptions(vault.id));
    expect(update.options.mutationKey).toEqual(['secrets-vault', 'vaults', 'update', vault.id]);
    const updated = await update.mutate({ color: '#3366FF' });

    expect(updated.color).toBe('#3366FF');
    expect(queryClient.getQueryState(q.vaults.get.key(vault.id))?.isInvalidated).toBe(true);
    const [patch] = requestsTo('PATCH', `/v1/vaults/${vault.id}`);
    expect(await patch?.json()).toEqual({ color: '#3366FF' });
  });

  it('delete takes the vault id as variables', async () => {
    const client = newClient();
    const [vault] = await createVaults(client, 1);
    if (vault === undefined) throw new Error('no vault');
    const q = createQueryOptions(client);
    const remove = new MutationObserver(newQueryClient(), q.vaults.delete.mutationOptions());

    await remove.mutate(vault.id);

    expect(requestsTo('DELETE', `/v1/vaults/${vault.id}`)).toHaveLength(1);
    await expect(client.vaults.get(vault.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('binds two ids in the order the client method takes them, and invalidates by the first', async () => {
    const client = newClient();
    const [vault] = await createVaults(client, 1);
    if (vault === undefined) throw new Error('no vault');
    const added = await client.vaults.members.create(vault.id, {
      user_id: mock.principals.member.userId ?? '',
      role: 'member',
    });
    requests.length = 0;
    const q = createQueryOptions(client);
    const queryClient = newQueryClient();
    const list = q.vaults.members.list.queryOptions(vault.id);
    await queryClient.fetchQuery(list);

    const update = new MutationObserver(
      queryClient,
      q.vaults.members.update.mutationOptions(vault.id, added.id),
    );
    expect(update.options.mutationKey).toEqual([
      'secrets-vault',
      'vaults',
      'members',
      'update',
      vault.id,
      added.id,
    ]);
    expect(update.options.meta).toEqual({
      invalidates: [q.vaults.members.list.key(vault.id), q.audit.key()],
    });
    const updated = await update.mutate({ role: 'editor' });

    expect(updated).toEqual({ id: added.id, vault_id: vault.id, role: 'editor' });
    expect(requestsTo('PATCH', `/v1/vaults/${vault.id}/members/${added.id}`)).toHaveLength(1);
    expect(queryClient.getQueryState(list.queryKey)?.isInvalidated).toBe(true);
  });

  it('binds the vault id of a member delete and takes the member id as variables', async () => {
    const client = newClient();
    const [vault] = await createVaults(client, 1);
    if (vault === undefined) throw new Error('no vault');
    const added = await client.vaults.members.create(vault.id, {
      user_id: mock.principals.member.userId ?? '',
      role: 'member',
    });
    requests.length = 0;
    const q = createQueryOptions(client);
    const remove = new MutationObserver(
      newQueryClient(),
      q.vaults.members.delete.mutationOptions(vault.id),
    );
    expect(remove.options.meta).toEqual({
      invalidates: [q.vaults.members.list.key(vault.id), q.audit.key()],
    });

    await remove.mutate(added.id);

    expect(requestsTo('DELETE', `/v1/vaults/${vault.id}/members/${added.id}`)).toHaveLength(1);
  });

  it('runs the options’ onSuccess (the invalidation) before the onSuccess given to mutate()', async () => {
    const client = newClient();
    const q = createQueryOptions(client);
    const queryClient = newQueryClient();
    await queryClient.fetchQuery(q.audit.list.queryOptions());
    const create = new MutationObserver(queryClient, q.vaults.create.mutationOptions());
    const unsubscribe = create.subscribe(() => undefined); // mutate() callbacks need a listener
    const invalidatedWhenCalled = new Promise<boolean | undefined>((resolve) => {
      create.mutate(
        { name: 'Payments' },
        {
          onSuccess: () => resolve(queryClient.getQueryState(q.audit.list.key({}))?.isInvalidated),
        },
      );
    });

    expect(await invalidatedWhenCalled).toBe(true);
    unsubscribe();
  });

  it('does not retry a failed mutation on top of the SDK', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const client = newClient();
    mock.faults.inject({ method: 'POST', path: '/v1/vaults' }, { kind: 'status', status: 503 });
    const q = createQueryOptions(client);
    const queryClient = new QueryClient({
      defaultOptions: { mutations: { retry: 3, retryDelay: 0 } },
    });
    const create = new MutationObserver(queryClient, q.vaults.create.mutationOptions());

    await expect(create.mutate({ name: 'Payments' })).rejects.toBeInstanceOf(InternalServerError);
    const posts = requestsTo('POST', '/v1/vaults');
    expect(posts).toHaveLength(2);
    // The SDK's retry reused the key: one create, however often it was sent.
    expect(new Set(posts.map((post) => post.headers.get('idempotency-key'))).size).toBe(1);
  });
});

/** A client whose fetch records the signal of every request it sends. */
function signalRecordingClient() {
  const signals: AbortSignal[] = [];
  const client = newClient((input, init) => {
    const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined);
    if (signal) signals.push(signal);
    return fetch(input, init);
  });
  return { client, signals };
}

describe('cancellation', () => {
  it('aborts the in-flight request when the query is cancelled', async () => {
    const { client, signals } = signalRecordingClient();
    const q = createQueryOptions(client);
    const queryClient = newQueryClient();
    const hold = mock.faults.inject(
      { method: 'GET', path: '/v1/vaults/:vaultId' },
      { kind: 'hold' },
    );
    const options = q.vaults.get.queryOptions('vlt_1');

    const fetching = queryClient.fetchQuery(options);
    await hold.held;
    await queryClient.cancelQueries({ queryKey: options.queryKey });

    await expect(fetching).rejects.toBeInstanceOf(CancelledError);
    expect(signals.at(-1)?.aborted).toBe(true);
    hold.clear();
  });

  it('aborts the in-flight request when the last observer unsubscribes (a component unmounts)', async () => {
    const { client, signals } = signalRecordingClient();
    const q = createQueryOptions(client);
    const hold = mock.faults.inject({ method: 'GET', path: '/v1/vaults' }, { kind: 'hold' });
    const observer = new QueryObserver(newQueryClient(), q.vaults.list.queryOptions());
    const unsubscribe = observer.subscribe(() => undefined);
    await hold.held;

    unsubscribe();

    expect(signals.at(-1)?.aborted).toBe(true);
    hold.clear();
  });

  it('makes the SDK throw APIUserAbortError for an aborted signal', async () => {
    const q = createQueryOptions(newClient());
    const controller = new AbortController();
    controller.abort();
    await expect(
      q.vaults.get.queryOptions('vlt_1').queryFn({ signal: controller.signal }),
    ).rejects.toBeInstanceOf(APIUserAbortError);
  });

  it('passes request options to the call', async () => {
    const q = createQueryOptions(newClient());
    await newQueryClient().fetchQuery(
      q.vaults.list.queryOptions({}, { headers: { 'x-trace': 'abc' } }),
    );
    expect(requestsTo('GET', '/v1/vaults')[0]?.headers.get('x-trace')).toBe('abc');
  });
});
