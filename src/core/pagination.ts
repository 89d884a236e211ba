/**
 * Cursor pagination (api-contract.md §4): a page knows how to fetch the next one from its
 * `next_cursor`, and iteration walks item by item, one page in memory at a time.
 */
import { APIPromise } from './api-promise.js';
import { RequestValidationError, SecretsVaultError } from './errors.js';

/** Fetches the page that `cursor` points at; the first page when `cursor` is undefined. */
export type PageFetcher<T> = (cursor: string | undefined) => PagePromise<T>;

/**
 * One page of a list: its items, and the cursor of the page after it.
 *
 * A page is also async-iterable: `for await` over it yields its items and those of every later
 * page.
 *
 * @example
 * ```ts
 * let page = await client.vaults.list({ limit: 20 });
 * console.log(page.data.length);
 * while (page.hasNextPage()) page = await page.getNextPage();
 * ```
 */
export class Page<T> implements AsyncIterable<T> {
  /** The items of this page, newest first. */
  readonly data: T[];
  /** Cursor of the next page, passed back to the service byte for byte; `null` on the last page. */
  readonly nextCursor: string | null;
  readonly #fetchPage: PageFetcher<T>;

  /** @internal Built by the client. */
  constructor(data: T[], nextCursor: string | null, fetchPage: PageFetcher<T>) {
    this.data = data;
    this.nextCursor = nextCursor;
    this.#fetchPage = fetchPage;
  }

  /** Whether another page follows this one. */
  hasNextPage(): boolean {
    return this.nextCursor !== null;
  }

  /**
   * Fetches the page after this one.
   *
   * @throws {SecretsVaultError} when this is the last page (check {@link Page.hasNextPage} first)
   */
  getNextPage(): PagePromise<T> {
    const { nextCursor } = this;
    if (nextCursor === null) {
      return new PagePromise(() =>
        Promise.reject(new SecretsVaultError('There is no next page: check hasNextPage() first')),
      );
    }
    return this.#fetchPage(nextCursor);
  }

  /** Yields the items of this page and of every later page, fetching each page when reached. */
  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of iteratePages(this)) yield* page.data;
  }
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
  /** Stop after this many items (no later page is fetched once it is reached). */
  readonly max?: number;
}

/**
 * What a list method returns: await it for the first {@link Page}, or iterate it with
 * `for await` for every item of every page. Breaking out of the loop stops fetching.
 *
 * @example
 * ```ts
 * for await (const vault of client.vaults.list()) {
 *   console.log(vault.name);
 * }
 * ```
 */
export class PagePromise<T> extends APIPromise<Page<T>> implements AsyncIterable<T> {
  /** Yields every item of every page, one page fetched at a time. */
  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    yield* await this;
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
   * Collects the items of every page into an array, or the first `max` of them.
   *
   * @throws {RequestValidationError} when `max` is not a positive integer
   * @example
   * ```ts
   * const firstHundred = await client.audit.list().toArray({ max: 100 });
   * ```
   */
  async toArray(options: ToArrayOptions = {}): Promise<T[]> {
    const { max = Number.POSITIVE_INFINITY } = options;
    if (max !== Number.POSITIVE_INFINITY && !(Number.isSafeInteger(max) && max > 0)) {
      throw new RequestValidationError([{ path: ['max'], message: 'must be a positive integer' }]);
    }
    const items: T[] = [];
    for await (const item of this) {
      items.push(item);
      if (items.length >= max) break;
    }
    return items;
  }

  override get [Symbol.toStringTag](): string {
    return 'PagePromise';
  }
}
