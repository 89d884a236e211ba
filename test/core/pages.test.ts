/**
 * Pagination through the public list methods: awaiting gives one page, `for await` walks every
 * item one page at a time, `.pages()`, `.toArray({ max })`, and cursors passed back verbatim.
 */
import { describe, expect, it, vi } from 'vitest';
import {
  InvalidCursorError,
  Page,
  RequestValidationError,
  ResponseValidationError,
  SecretsVaultError,
} from '../../src/index.js';
import { createClient, fail, noContent, ok, route, type SeenRequest, vault } from '../helpers.js';

const vaults = (count: number) =>
  Array.from({ length: count }, (_, index) => vault({ id: `vlt_${index}` }));

/** Serves `items` in pages of `limit`, with cursors full of characters that need encoding. */
function servePages(
  items: ReturnType<typeof vaults>,
  cursorFor = (index: number) => `c+${index}/=%${index} x`,
) {
  const cursors = new Map<string, number>();
  return route('get', '/vaults', (_call, request) => {
    const limit = Number(request.url.searchParams.get('limit') ?? 50);
    const cursor = request.url.searchParams.get('cursor');
    const start = cursor === null ? 0 : (cursors.get(cursor) ?? Number.NaN);
    if (Number.isNaN(start)) return fail(400, 'invalid_cursor', 'bad cursor');
    const end = start + limit;
    let next: string | null = null;
    if (end < items.length) {
      next = cursorFor(end);
      cursors.set(next, end);
    }
    return ok(items.slice(start, end), { nextCursor: next });
  });
}

const cursorsSent = (seen: SeenRequest[]) =>
  seen.map((request) => request.url.searchParams.get('cursor'));

describe('lists', () => {
  it('awaits to the first page with its cursor', async () => {
    servePages(vaults(7));
    const page = await createClient().vaults.list({ limit: 3 });
    expect(page).toBeInstanceOf(Page);
    expect(page.data.map((item) => item.id)).toEqual(['vlt_0', 'vlt_1', 'vlt_2']);
    expect(page.nextCursor).toBe('c+3/=%3 x');
    expect(page.hasNextPage()).toBe(true);
    const second = await page.getNextPage();
    expect(second.data.map((item) => item.id)).toEqual(['vlt_3', 'vlt_4', 'vlt_5']);
  });

  it('walks every item of every page once, in order, passing each cursor back byte for byte', async () => {
    const seen = servePages(vaults(10));
    const ids: string[] = [];
    for await (const item of createClient().vaults.list({ limit: 3 })) ids.push(item.id);
    expect(ids).toEqual(vaults(10).map((item) => item.id));
    expect(seen).toHaveLength(4);
    expect(cursorsSent(seen)).toEqual([null, 'c+3/=%3 x', 'c+6/=%6 x', 'c+9/=%9 x']);
    expect(seen.every((request) => request.url.searchParams.get('limit') === '3')).toBe(true);
  });

  it('yields pages with .pages()', async () => {
    servePages(vaults(7));
    const sizes: Array<[number, boolean]> = [];
    for await (const page of createClient().vaults.list({ limit: 3 }).pages()) {
      sizes.push([page.data.length, page.hasNextPage()]);
    }
    expect(sizes).toEqual([
      [3, true],
      [3, true],
      [1, false],
    ]);
  });

  it('makes one request for an empty list and yields nothing', async () => {
    const seen = servePages([]);
    const ids: string[] = [];
    for await (const item of createClient().vaults.list()) ids.push(item.id);
    expect(ids).toEqual([]);
    expect(seen).toHaveLength(1);
    expect(await createClient().vaults.list().toArray()).toEqual([]);
  });

  it('stops fetching when the loop breaks', async () => {
    const seen = servePages(vaults(10));
    for await (const item of createClient().vaults.list({ limit: 3 })) {
      if (item.id === 'vlt_0') break;
    }
    expect(seen).toHaveLength(1);
  });

  it('collects with toArray, and stops at max without fetching later pages', async () => {
    const seen = servePages(vaults(10));
    expect(await createClient().vaults.list({ limit: 4 }).toArray()).toHaveLength(10);
    expect(seen).toHaveLength(3);

    const limited = await createClient().vaults.list({ limit: 3 }).toArray({ max: 5 });
    expect(limited.map((item) => item.id)).toEqual(['vlt_0', 'vlt_1', 'vlt_2', 'vlt_3', 'vlt_4']);
    expect(seen).toHaveLength(5);
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses toArray({ max: %s })', async (max) => {
    servePages(vaults(2));
    const list = createClient().vaults.list();
    await expect(list.toArray({ max })).rejects.toBeInstanceOf(RequestValidationError);
    // The first page was requested when list() was called; let it land inside this test.
    await list;
  });

  it('iterates 250 items with limit 100 in exactly 3 requests', async () => {
    const seen = servePages(vaults(250));
    expect(await createClient().vaults.list({ limit: 100 }).toArray()).toHaveLength(250);
    expect(seen).toHaveLength(3);
  });

  it('rejects getNextPage on the last page', async () => {
    servePages(vaults(2));
    const page = await createClient().vaults.list();
    expect(page.hasNextPage()).toBe(false);
    await expect(page.getNextPage()).rejects.toBeInstanceOf(SecretsVaultError);
  });

  it('throws InvalidCursorError from the loop when a cursor is refused', async () => {
    servePages(vaults(10));
    const ids: string[] = [];
    const error = await (async () => {
      for await (const item of createClient().vaults.list({ limit: 4, cursor: 'stale' }))
        ids.push(item.id);
    })().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidCursorError);
    expect(ids).toEqual([]);
  });

  it('stops with ResponseValidationError when the server repeats the cursor it was given', async () => {
    route('get', '/vaults', (call) => ok([vault({ id: `vlt_${call}` })], { nextCursor: 'same' }));
    const ids: string[] = [];
    const error = await (async () => {
      for await (const item of createClient().vaults.list()) ids.push(item.id);
    })().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(ids).toEqual(['vlt_0']);
  });

  it('walks on from a page through getNextPage(), a list of its own', async () => {
    servePages(vaults(5));
    const page = await createClient().vaults.list({ limit: 2 });
    const ids: string[] = [];
    for await (const item of page.getNextPage()) ids.push(item.id);
    expect(ids).toEqual(['vlt_2', 'vlt_3', 'vlt_4']);
  });

  it('keeps a page inert data: not async-iterable, serialized as { data, nextCursor }', async () => {
    const seen = servePages(vaults(5));
    const page = await createClient().vaults.list({ limit: 2 });
    expect(Symbol.asyncIterator in page).toBe(false);
    expect(JSON.parse(JSON.stringify({ page }))).toEqual({
      page: { data: page.data, nextCursor: page.nextCursor },
    });
    expect(page.toJSON()).toEqual({ data: page.data, nextCursor: page.nextCursor });
    expect(Object.prototype.toString.call(page)).toBe('[object Page]');
    expect(seen).toHaveLength(1);
  });
});

describe('APIPromise', () => {
  it('starts the request when the method is called, and sends once however often it is awaited', async () => {
    const seen = route('get', '/vaults/:id', () => ok(vault()));
    const promise = createClient().vaults.get('vlt_1');
    expect(promise).toBeInstanceOf(Promise);
    await vi.waitFor(() => expect(seen).toHaveLength(1));
    await promise;
    await promise;
    await promise.then((value) => value);
    await promise.withResponse();
    expect(seen).toHaveLength(1);
  });

  it('deletes even when the call is never awaited', async () => {
    const seen = route('delete', '/secrets/:id', () => noContent());
    void createClient().secrets.delete('sec_1');
    await vi.waitFor(() => expect(seen).toHaveLength(1));
    expect(seen[0]?.method).toBe('DELETE');
  });

  it('starts the first page of a list when the method is called', async () => {
    const seen = servePages(vaults(3));
    const list = createClient().vaults.list();
    expect(list).toBeInstanceOf(Promise);
    await vi.waitFor(() => expect(seen).toHaveLength(1));
    expect((await list).data).toHaveLength(3);
    expect(seen).toHaveLength(1);
  });

  it('gives data, response, request id and replayed with withResponse()', async () => {
    route('post', '/vaults', (call) =>
      ok(vault(), { status: 201, headers: call === 1 ? { 'Idempotent-Replayed': 'true' } : {} }),
    );
    const client = createClient();
    const first = await client.vaults.create({ name: 'x' }, { idempotencyKey: 'k' }).withResponse();
    const second = await client.vaults
      .create({ name: 'x' }, { idempotencyKey: 'k' })
      .withResponse();
    expect(first.data).toEqual(vault());
    expect(first.response.status).toBe(201);
    expect(first.requestId).toBe(first.response.headers.get('x-request-id'));
    expect(first.replayed).toBe(false);
    expect(second.replayed).toBe(true);
  });

  it('supports catch and finally like a promise', async () => {
    route('get', '/vaults/:id', () => fail(404, 'not_found', 'missing'));
    let finished = false;
    const result = await createClient()
      .vaults.get('vlt_1')
      .finally(() => {
        finished = true;
      })
      .catch((error: unknown) => (error as Error).name);
    expect(result).toBe('NotFoundError');
    expect(finished).toBe(true);
  });

  it('names itself APIPromise or PagePromise when printed', async () => {
    route('get', '/vaults/:id', () => ok(vault()));
    servePages(vaults(1));
    const client = createClient();
    const one = client.vaults.get('vlt_1');
    const list = client.vaults.list();
    expect(Object.prototype.toString.call(one)).toBe('[object APIPromise]');
    expect(Object.prototype.toString.call(list)).toBe('[object PagePromise]');
    await Promise.all([one, list]);
  });
});
