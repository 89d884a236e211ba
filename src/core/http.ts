/**
 * What every method of every resource calls: {@link HttpCore.request} for one call,
 * {@link HttpCore.list} for a paginated list. Each call, and each page of a list, goes through
 * the one request path, call.ts.
 */
import { APIPromise, type APIResponse } from './api-promise.js';
import { Caller } from './call.js';
import type { ClientConfig } from './options.js';
import { type PagePromise, type PageResult, paginate } from './pagination.js';
import type { AnyRoute, RouteSpec } from './route.js';

/** @internal The transport behind every resource; not part of the public API. */
export class HttpCore {
  readonly #caller: Caller;

  constructor(config: ClientConfig) {
    this.#caller = new Caller(config);
  }

  /** Starts one request now, and promises its unwrapped `data`. */
  request<Path extends string, T>(
    spec: RouteSpec<Path, T> & { expected: { kind: 'data' | 'items' | 'nothing' } },
  ): APIPromise<T> {
    const response = this.#caller.call(spec as AnyRoute<T>, undefined, false);
    return new APIPromise(response as Promise<APIResponse<T>>);
  }

  /** Starts a paginated list: the first page now, later pages by `next_cursor` when asked for. */
  list<Path extends string, T>(
    spec: RouteSpec<Path, T> & { expected: { kind: 'page' } },
  ): PagePromise<T> {
    const route = spec as AnyRoute<T>;
    const startCursor = (route.query?.value as { cursor?: unknown } | undefined)?.cursor;
    return paginate(
      (cursor) => this.#caller.call(route, cursor) as Promise<PageResult<T>>,
      typeof startCursor === 'string' ? startCursor : undefined,
    );
  }
}
