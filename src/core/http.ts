/**
 * The one request path: every method of every resource goes through {@link HttpCore.request} or
 * {@link HttpCore.list}. It checks input before anything is sent, builds the URL, sends through
 * ky (which owns timeouts and retries), and turns whatever comes back into data or one of our
 * errors.
 */
import ky, {
  type BeforeErrorState,
  HTTPError,
  isHTTPError,
  isNetworkError,
  isTimeoutError,
  type KyInstance,
  type Options as KyOptions,
  type ShouldRetryState,
} from 'ky';
import type * as z from 'zod/mini';
import { APIPromise, type APIResponse } from './api-promise.js';
import { type Expected, type PageBody, readSuccess } from './envelope.js';
import {
  APIConnectionError,
  APITimeoutError,
  APIUserAbortError,
  makeAPIError,
  RequestValidationError,
  ResponseValidationError,
  SecretsVaultError,
  type ValidationIssue,
} from './errors.js';
import { resolveIdempotencyKey } from './idempotency.js';
import { Page, PagePromise } from './pagination.js';
import { check, MAX_BODY_BYTES } from './validation.js';

/**
 * Options every method accepts as its last argument, overriding the client's for one call.
 *
 * @example
 * ```ts
 * await client.secrets.listValues(vaultId, { timeout: 5_000, signal: AbortSignal.timeout(20_000) });
 * ```
 */
export interface RequestOptions {
  /** Cancels the call, in flight or between retries, with {@link APIUserAbortError}. */
  readonly signal?: AbortSignal;
  /** Milliseconds allowed for each attempt. @default the client's `timeout` */
  readonly timeout?: number;
  /** Retries after the first attempt. @default the client's `maxRetries` */
  readonly maxRetries?: number;
  /** Extra headers for this call; they cannot replace `Authorization` or `Idempotency-Key`. */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * The `Idempotency-Key` of a creating POST, for example the id of the job that creates the
   * resource, so that a re-run of the job replays instead of creating twice. Ignored by other
   * methods. @default a random UUID per call
   */
  readonly idempotencyKey?: string;
}

/** Settings of the HTTP core, resolved and checked by the client. */
export interface HttpCoreConfig {
  readonly baseUrl: string;
  readonly token: string;
  readonly timeout: number;
  readonly maxRetries: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly fetch?: typeof globalThis.fetch;
}

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
type QueryValue = string | number | undefined;

/** Everything a resource method says about one endpoint. */
interface RouteSpec<T> {
  readonly method: Method;
  /** Path under `/v1` with `{name}` placeholders, such as `/vaults/{vaultId}/members`. */
  readonly path: string;
  readonly pathParams?: Readonly<Record<string, unknown>>;
  /** The caller's query parameters and the schema they must satisfy. */
  readonly query?: { readonly value: unknown; readonly schema: z.ZodMiniType<object> };
  /** The caller's body and the schema it must satisfy. */
  readonly body?: { readonly value: unknown; readonly schema: z.ZodMiniType<object> };
  /** Resource-creating POSTs carry an `Idempotency-Key` (api-contract.md §4). */
  readonly idempotent?: boolean;
  /** Strings of the request that must not appear in an error (secret values). */
  readonly sensitive?: readonly string[];
  readonly expected: Expected<T>;
  readonly options?: RequestOptions | undefined;
}

/** Hook context of one call: what our single error hook needs to know about it. */
interface CallContext extends Record<string, unknown> {
  readonly sensitive: readonly string[];
  readonly signal: AbortSignal | undefined;
}

const RETRIED_METHODS = ['get', 'patch', 'delete', 'post'];
// 408, 429 and every 5xx; 409 is decided by its errorCode in `shouldRetry`.
const RETRIED_STATUSES = [408, 429, ...Array.from({ length: 100 }, (_, i) => 500 + i)];
const MAX_RETRY_AFTER_MS = 60_000;

/** @internal The transport behind every resource; not part of the public API. */
export class HttpCore {
  readonly #config: HttpCoreConfig;
  readonly #ky: KyInstance;
  readonly #apiRoot: string;

  constructor(config: HttpCoreConfig) {
    this.#config = config;
    this.#apiRoot = `${config.baseUrl.replace(/\/+$/, '')}/v1`;
    this.#ky = ky.create({
      ...(config.fetch ? { fetch: config.fetch } : {}),
      throwHttpErrors: true,
      hooks: { beforeError: [toSdkError] },
    });
  }

  /** Sends one request and resolves to its unwrapped `data`. */
  request<T>(spec: RouteSpec<T> & { expected: { kind: 'data' | 'nothing' } }): APIPromise<T> {
    return new APIPromise(() => this.#send(spec) as Promise<APIResponse<T>>);
  }

  /** Starts a paginated list; later pages follow `next_cursor`. */
  list<T>(spec: RouteSpec<T> & { expected: { kind: 'page' } }): PagePromise<T> {
    const fetchPage = (cursor: string | undefined): PagePromise<T> =>
      new PagePromise(async () => {
        const result = await this.#send(spec, cursor);
        const body = result.data as PageBody<T>;
        if (cursor !== undefined && body.nextCursor === cursor) {
          // A server that hands back the cursor it was given would make iteration endless.
          throw new ResponseValidationError(result.response.status, result.response.headers, [
            { path: ['next_cursor'], message: 'repeats the cursor of the request' },
          ]);
        }
        return { ...result, data: new Page(body.items, body.nextCursor, fetchPage) };
      });
    return fetchPage(undefined);
  }

  async #send<T>(spec: RouteSpec<T>, cursor?: string): Promise<APIResponse<unknown>> {
    const options = spec.options ?? {};
    const issues: ValidationIssue[] = [];
    const url = this.#url(spec, issues);
    const query = validated(spec.query, issues);
    const searchParams = cursor === undefined ? query : { ...query, cursor };
    const body = validated(spec.body, issues);
    const callSettings = resolveCallSettings(this.#config, options, issues);
    let serializedBody: string | undefined;
    if (body !== undefined && issues.length === 0) {
      serializedBody = JSON.stringify(body);
      if (new TextEncoder().encode(serializedBody).byteLength > MAX_BODY_BYTES) {
        issues.push({ path: [], message: `body must be at most ${MAX_BODY_BYTES} bytes of JSON` });
      }
    }
    const headers = new Headers(this.#config.headers);
    for (const [name, value] of Object.entries(options.headers ?? {})) headers.set(name, value);
    headers.set('Accept', 'application/json');
    headers.set('Authorization', `Bearer ${this.#config.token}`);
    headers.delete('Idempotency-Key');
    if (spec.idempotent) {
      try {
        headers.set('Idempotency-Key', resolveIdempotencyKey(options.idempotencyKey));
      } catch (error) {
        if (!(error instanceof RequestValidationError)) throw error;
        issues.push(...error.issues);
      }
    }
    if (serializedBody !== undefined) headers.set('Content-Type', 'application/json');
    if (issues.length > 0) throw new RequestValidationError(issues);

    const context: CallContext = {
      sensitive: [this.#config.token, ...(spec.sensitive ?? [])],
      signal: options.signal,
    };
    const kyOptions: KyOptions = {
      method: spec.method,
      headers,
      ...(serializedBody === undefined ? {} : { body: serializedBody }),
      ...(searchParams === undefined ? {} : { searchParams: toSearchParams(searchParams) }),
      ...(options.signal ? { signal: options.signal } : {}),
      timeout: callSettings.timeout,
      retry: {
        limit: callSettings.maxRetries,
        methods: RETRIED_METHODS,
        statusCodes: RETRIED_STATUSES,
        afterStatusCodes: RETRIED_STATUSES,
        maxRetryAfter: MAX_RETRY_AFTER_MS,
        // 0.5 s doubling to an 8 s cap, with full jitter (sdk-design.md "Retries").
        delay: (attempt) => 500 * 2 ** (attempt - 1),
        backoffLimit: 8_000,
        jitter: true,
        retryOnTimeout: true,
        shouldRetry: (state) => shouldRetry(state, options.signal),
      },
      context,
    };
    const responsePromise = this.#ky(url, kyOptions);
    const [response, text] = await Promise.all([responsePromise, responsePromise.text()]);
    const data = readSuccess(response, text, spec.expected);
    return {
      data,
      response,
      requestId: response.headers.get('x-request-id'),
      replayed: response.headers.get('idempotent-replayed') === 'true',
    };
  }

  #url(spec: RouteSpec<unknown>, issues: ValidationIssue[]): string {
    const path = spec.path.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = spec.pathParams?.[name];
      // Every id is one path segment: encoded so `a/b?x` stays inside it, and never `.` or `..`,
      // which URL parsing would resolve into another route even when percent-encoded.
      if (typeof value !== 'string' || value === '' || value === '.' || value === '..') {
        issues.push({ path: [name], message: 'must be a non-empty id other than "." or ".."' });
        return '_';
      }
      return encodeURIComponent(value);
    });
    return this.#apiRoot + path;
  }
}

function validated(
  input: { readonly value: unknown; readonly schema: z.ZodMiniType<object> } | undefined,
  issues: ValidationIssue[],
): object | undefined {
  if (input === undefined) return undefined;
  const result = check(input.schema, input.value);
  if (result.ok) return result.value;
  issues.push(...result.issues);
  return undefined;
}

function toSearchParams(query: object): URLSearchParams {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query) as Array<[string, QueryValue]>) {
    // URLSearchParams percent-encodes `+ / = %`, so an opaque cursor comes back byte for byte.
    if (value !== undefined) params.set(name, String(value));
  }
  return params;
}

function resolveCallSettings(
  config: HttpCoreConfig,
  options: RequestOptions,
  issues: ValidationIssue[],
): { timeout: number; maxRetries: number } {
  const timeout = options.timeout ?? config.timeout;
  const maxRetries = options.maxRetries ?? config.maxRetries;
  const timeoutIssue = describeTimeout(timeout);
  if (timeoutIssue) issues.push({ path: ['timeout'], message: timeoutIssue });
  const retriesIssue = describeMaxRetries(maxRetries);
  if (retriesIssue) issues.push({ path: ['maxRetries'], message: retriesIssue });
  return { timeout, maxRetries };
}

/** @internal Why a `timeout` option is unusable, or undefined when it is fine. */
export function describeTimeout(value: unknown): string | undefined {
  // Timers overflow above 2^31 - 1 ms and would fire at once.
  return typeof value === 'number' && Number.isInteger(value) && value > 0 && value <= 2_147_483_647
    ? undefined
    : 'must be a whole number of milliseconds from 1 to 2147483647';
}

/** @internal Why a `maxRetries` option is unusable, or undefined when it is fine. */
export function describeMaxRetries(value: unknown): string | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 10
    ? undefined
    : 'must be a whole number from 0 to 10';
}

// Only what cannot create twice is retried: GET, PATCH, DELETE, and POSTs with an
// Idempotency-Key; a 409 only while the first request of the same key is still running.
function shouldRetry(
  state: ShouldRetryState,
  signal: AbortSignal | undefined,
): boolean | undefined {
  const { error } = state;
  if (signal?.aborted) return false;
  const request =
    isHTTPError(error) || isNetworkError(error) || isTimeoutError(error)
      ? error.request
      : undefined;
  if (request?.method === 'POST' && !request.headers.has('idempotency-key')) return false;
  if (isHTTPError(error) && error.response.status === 409) {
    return envelopeCode(error.data) === 'idempotency_in_progress';
  }
  return undefined;
}

function envelopeCode(data: unknown): unknown {
  let body = data;
  if (typeof body === 'string') {
    try {
      body = JSON.parse(body);
    } catch {
      return undefined;
    }
  }
  return typeof body === 'object' && body !== null
    ? (body as { errorCode?: unknown }).errorCode
    : undefined;
}

// The single place where ky's errors become ours. Nothing of ky's error (whose request holds the
// Authorization header) is kept as a cause.
function toSdkError({ error, options }: BeforeErrorState): Error {
  const context = options.context as Partial<CallContext>;
  if (error instanceof SecretsVaultError) return error;
  if (context.signal?.aborted) return new APIUserAbortError();
  if (error instanceof HTTPError) {
    return makeAPIError(
      error.response.status,
      error.response.headers,
      error.data,
      context.sensitive ?? [],
    );
  }
  if (isTimeoutError(error)) return new APITimeoutError();
  if (isNetworkError(error)) {
    const cause = error.cause instanceof Error ? error.cause : undefined;
    return new APIConnectionError(
      `Connection error: ${cause?.message ?? 'no response was received'}`,
      cause ? { cause } : undefined,
    );
  }
  return error;
}
