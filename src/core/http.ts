/**
 * The one request path: every method of every resource goes through {@link HttpCore.request} or
 * {@link HttpCore.list}. Each call is built (route.ts), sent (transport.ts) and read
 * (envelope.ts) here, in that order.
 */
import { APIPromise, type APIResponse } from './api-promise.js';
import { type PageBody, readSuccess } from './envelope.js';
import { ResponseValidationError } from './errors.js';
import type { ClientConfig } from './options.js';
import { type PagePromise, type PageResult, paginate } from './pagination.js';
import { type AnyRoute, buildRequest, type RouteSpec } from './route.js';
import { detailsOf, Transport } from './transport.js';

/** @internal The transport behind every resource; not part of the public API. */
export class HttpCore {
  readonly #config: ClientConfig;
  readonly #transport: Transport;

  constructor(config: ClientConfig) {
    this.#config = config;
    this.#transport = new Transport(config);
  }

  /** Starts one request now, and promises its unwrapped `data`. */
  request<Path extends string, T>(
    spec: RouteSpec<Path, T> & { expected: { kind: 'data' | 'items' | 'nothing' } },
  ): APIPromise<T> {
    const response = this.#call(spec as AnyRoute<T>).then(
      ({ data, response, requestId, replayed }) => ({ data, response, requestId, replayed }),
    );
    return new APIPromise(response as Promise<APIResponse<T>>);
  }

  /** Starts a paginated list: the first page now, later pages by `next_cursor` when asked for. */
  list<Path extends string, T>(
    spec: RouteSpec<Path, T> & { expected: { kind: 'page' } },
  ): PagePromise<T> {
    const route = spec as AnyRoute<T>;
    const startCursor = (route.query?.value as { cursor?: unknown } | undefined)?.cursor;
    return paginate(
      (cursor) => this.#call(route, cursor) as Promise<PageResult<T>>,
      typeof startCursor === 'string' ? startCursor : undefined,
    );
  }

  async #call(
    route: AnyRoute,
    cursor?: string,
  ): Promise<APIResponse<unknown> & Pick<PageResult<unknown>, 'details'>> {
    const request = buildRequest(this.#config, route, cursor);
    const { response, call } = await this.#transport.send(request);
    const details = detailsOf(call);
    // The body was read within the attempt (into `call.text`): the response's own is used up.
    const result = readSuccess(response.status, call.text, route.expected);
    if (!result.ok) {
      throw new ResponseValidationError(response.status, response.headers, result.issues, details);
    }
    call.budget?.onSuccess(call.spent);
    return {
      data: result.data as unknown | PageBody<unknown>,
      response,
      requestId: response.headers.get('x-request-id'),
      replayed: response.headers.get('idempotent-replayed') === 'true',
      details,
    };
  }
}
