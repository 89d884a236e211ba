/**
 * Cursor pagination: fetching page after page by `next_cursor`, and the page objects that do it.
 * Iteration walks item by item with one page in memory at a time, and it always ends: a cursor
 * that was already followed, or a long run of empty pages that promise more, is an error rather
 * than an endless loop.
 */
import { APIPromise, type APIResponse } from './api-promise.js';
import type { PageBody } from './envelope.js';
import { type CallDetails, RequestValidationError, SecretsVaultError } from './errors.js';
import { unusableListing } from './response.js';

/** How many empty pages in a row, each promising another, are taken before giving up. */
export const MAX_EMPTY_PAGES_IN_A_ROW = 10;

/**
 * How many items `toArray()` without `max` collects before it gives up: a list that never ends
 * must not grow an array until the process runs out of memory.
 */
const TO_ARRAY_DEFAULT_LIMIT = 10_000;

/** @internal One fetched page with its response and the details of the call that got it. */
export interface PageResult<T> extends APIResponse<PageBody<T>> {
  readonly details: CallDetails;
}

/** @internal Fetches the page that `cursor` points at; the first page when it is undefined. */
export type PageFetcher<T> = (cursor: string | undefined) => Promise<PageResult<T>>;

/**
 * Where a page sits in one walk through a list: the cursors followed to reach it (with the depth
 * each was first followed at) and how many empty pages came just before it.
 */
interface Trail {
  readonly followed: Map<string, number>;
  readonly depth: number;
  readonly emptyRun: number;
}

/**
 * @internal Starts a list: the first page is requested now, later ones when asked for.
 *
 * @param startCursor - the caller's own `cursor` parameter, which the service must not hand back
 */
export function paginate<T>(fetchPage: PageFetcher<T>, startCursor?: string): PagePromise<T> {
  const followed = new Map<string, number>();
  if (startCursor !== undefined) followed.set(startCursor, 1);
  return new PagePromise(loadPage(fetchPage, undefined, { followed, depth: 0, emptyRun: 0 }));
}

async function loadPage<T>(
  fetchPage: PageFetcher<T>,
  cursor: string | undefined,
  trail: Trail,
): Promise<APIResponse<Page<T>>> {
  const result = await fetchPage(cursor);
  const { items, nextCursor } = result.data;
  const depth = trail.depth + 1;
  if (cursor !== undefined) {
    trail.followed.set(cursor, Math.min(trail.followed.get(cursor) ?? depth, depth));
  }
  const emptyRun = items.length === 0 ? trail.emptyRun + 1 : 0;
  if (nextCursor !== null) {
    const fail = (path: string, message: string): never => {
      throw unusableListing(result.response, result.details, path, message);
    };
    // Followed at this depth or before, on the way here: following it again would loop. (A
    // cursor followed only deeper, by an earlier `getNextPage()` of this same page, is fine.)
    const followedAt = nextCursor === cursor ? depth : trail.followed.get(nextCursor);
    if (followedAt !== undefined && followedAt <= depth) {
      fail(
        'next_cursor',
        'repeats a cursor already followed in this listing, so it would never end',
      );
    }
    if (emptyRun >= MAX_EMPTY_PAGES_IN_A_ROW) {
      fail(
        'data',
        `was empty on ${emptyRun} pages in a row that each promised another, so the listing was stopped`,
      );
    }
  }
  const next: Trail = { followed: trail.followed, depth, emptyRun };
  const page = new Page(
    items,
    nextCursor,
    (after) => new PagePromise(loadPage(fetchPage, after, next)),
  );
  const { response, requestId, replayed } = result;
  return { data: page, response, requestId, replayed };
}

/** @internal Fetches the page after the one that holds it. */
export type NextPageLoader<T> = (cursor: string) => PagePromise<T>;

/**
 * One page of a list: its items, and the cursor of the page after it.
 *
 * A page holds data and never fetches on its own: it is not async-iterable (`for await` the
 * list call, or `page.getNextPage()`, to walk on), so a framework that serializes async
 * iterables, such as React's Server Components, cannot walk a whole list by passing it on.
 * `JSON.stringify` and such serializers see its plain data, `{ data, nextCursor }`.
 *
 * @example
 * ```ts
 * let page = await client.vaults.list({ limit: 20 });
 * console.log(page.data.length);
 * while (page.hasNextPage()) page = await page.getNextPage();
 * ```
 */
export class Page<T> {
  /** The items of this page, newest first. */
  readonly data: T[];
  /** Cursor of the next page, passed back to the service byte for byte; `null` on the last page. */
  readonly nextCursor: string | null;
  readonly #loadNext: NextPageLoader<T>;

  /** @internal Built by the client. */
  constructor(data: T[], nextCursor: string | null, loadNext: NextPageLoader<T>) {
    this.data = data;
    this.nextCursor = nextCursor;
    this.#loadNext = loadNext;
  }

  /** Whether another page follows this one. */
  hasNextPage(): boolean {
    return this.nextCursor !== null;
  }

  /**
   * Fetches the page after this one.
   *
   * @throws {SecretsVaultError} when this is the last page (check {@link Page.hasNextPage} first)
   * @throws {ResponseValidationError} when the next page hands back a cursor already followed,
   *   or is one too many empty pages in a row
   */
  getNextPage(): PagePromise<T> {
    const { nextCursor } = this;
    if (nextCursor === null) {
      return new PagePromise(
        Promise.reject(new SecretsVaultError('There is no next page: check hasNextPage() first')),
      );
    }
    return this.#loadNext(nextCursor);
  }

  /**
   * The page's plain data, which is what `JSON.stringify`, a cache that persists queries, or
   * React when it passes props to a Client Component, keep of it.
   *
   * @example
   * ```ts
   * const page = await client.vaults.list({ limit: 20 });
   * sessionStorage.setItem('vaults', JSON.stringify(page)); // {"data":[…],"nextCursor":…}
   * ```
   */
  toJSON(): PageData<T> {
    return { data: this.data, nextCursor: this.nextCursor };
  }

  /** Names the class in `String(page)` and in framework warnings about non-plain objects. */
  get [Symbol.toStringTag](): string {
    return 'Page';
  }
}

/** A page as plain data: what {@link Page.toJSON} gives, and what a query cache can hold. */
export interface PageData<T> {
  /** The items of the page. */
  readonly data: T[];
  /** Cursor of the next page; `null` on the last page. */
  readonly nextCursor: string | null;
}

async function* iteratePages<T>(first: Page<T>): AsyncGenerator<Page<T>, void, undefined> {
  let page = first;
  yield page;
  while (page.hasNextPage()) {
    page = await page.getNextPage();
    yield page;
  }
}

/** Options of {@link PagePromise.toArray}. */
export interface ToArrayOptions {
  /**
   * Stop after this many items (no later page is fetched once it is reached); `Infinity`
   * collects every item, however many.
   * @default 10000, past which `toArray()` throws rather than return part of the list
   */
  readonly max?: number | undefined;
}

/**
 * What a list method returns: await it for the first {@link Page}, or iterate it with
 * `for await` for every item of every page. The first page is requested when the method is
 * called, each later one when the loop reaches it; breaking out of the loop stops fetching.
 *
 * @example
 * ```ts
 * for await (const vault of client.vaults.list()) {
 *   console.log(vault.name);
 * }
 * ```
 */
export class PagePromise<T> extends APIPromise<Page<T>> implements AsyncIterable<T> {
  /**
   * Yields every item of every page, one page fetched at a time, for as long as the service
   * keeps handing out pages: the loop has no item limit of its own, so stopping a list that may
   * be very long is the caller's (`break`, or `toArray({ max })`).
   */
  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page.data;
  }

  /**
   * Yields each page in turn, starting with the first.
   *
   * @example
   * ```ts
   * for await (const page of client.secrets.list(vaultId).pages()) {
   *   console.log(page.data.length, page.nextCursor);
   * }
   * ```
   */
  async *pages(): AsyncGenerator<Page<T>, void, undefined> {
    yield* iteratePages(await this);
  }

  /**
   * Collects the items of every page into an array, or the first `max` of them. Without `max`
   * it holds at most 10 000 items, so that a list that never ends cannot exhaust memory; a
   * longer list needs `max` (`Infinity` for no bound) or a `for await` loop.
   *
   * @throws {RequestValidationError} when `max` is not a positive integer (the first page was
   *   already requested when the list method was called)
   * @throws {SecretsVaultError} without `max`, when the list holds more than 10 000 items
   * @example
   * ```ts
   * const firstHundred = await client.audit.list().toArray({ max: 100 });
   * ```
   */
  async toArray(options: ToArrayOptions = {}): Promise<T[]> {
    const { max } = options;
    if (max !== undefined && max !== Infinity && !(Number.isSafeInteger(max) && max > 0)) {
      // The first page is already on its way; its outcome no longer matters to anyone.
      this.catch(() => undefined);
      throw new RequestValidationError([{ path: ['max'], message: 'must be a positive integer' }]);
    }
    const limit = max ?? TO_ARRAY_DEFAULT_LIMIT;
    const items: T[] = [];
    // Page by page, so that reaching the limit never requests the page after it.
    for await (const page of this.pages()) {
      const room = limit - items.length;
      // Without `max`, a list of exactly the limit is returned whole; one that holds or promises
      // more fails rather than come back cut short as if it were complete.
      if (
        max === undefined &&
        (page.data.length > room || (page.data.length === room && page.hasNextPage()))
      ) {
        throw new SecretsVaultError(
          `toArray() stopped at ${TO_ARRAY_DEFAULT_LIMIT} items: pass { max } to collect more, or iterate with for await`,
        );
      }
      items.push(...page.data.slice(0, room));
      if (items.length >= limit) break;
    }
    return items;
  }

  override get [Symbol.toStringTag](): string {
    return 'PagePromise';
  }
}
