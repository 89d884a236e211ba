/**
 * The one request path: every method of every resource goes through {@link HttpCore.request} or
 * {@link HttpCore.list}. It checks input before anything is sent, builds the URL, sends through
 * ky (which owns timeouts, backoff and retries), and turns whatever comes back into data or one
 * of our errors.
 */
import ky, {
  type BeforeErrorState,
  type BeforeRetryState,
  HTTPError,
  isNetworkError,
  isTimeoutError,
  type KyInstance,
  type Options as KyOptions,
  NetworkError,
} from 'ky';
import type * as z from 'zod/mini';
import { APIPromise, type APIResponse } from './api-promise.js';
import { type Expected, type PageBody, readSuccess } from './envelope.js';
import {
  APIConnectionError,
  APIError,
  APITimeoutError,
  APIUserAbortError,
  makeAPIError,
  NotFoundError,
  RequestValidationError,
  ResponseValidationError,
  SecretsVaultError,
  type ValidationIssue,
} from './errors.js';
import { resolveIdempotencyKey } from './idempotency.js';
import type { LevelLogger } from './logger.js';
import { Page, PagePromise } from './pagination.js';
import { type RetryBudget, type RetryCall, retryOptions } from './retry.js';
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
  /** Milliseconds allowed for the whole call, retries and waits included. @default the client's `totalTimeout` */
  readonly totalTimeout?: number;
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
  readonly totalTimeout: number | undefined;
  readonly maxRetries: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly fetch?: typeof globalThis.fetch;
  readonly retryBudget: RetryBudget | undefined;
  readonly logger: LevelLogger | undefined;
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

/** One call as it goes: what the retry decision, the logs and the error hook need. */
interface Call extends RetryCall {
  readonly method: Method;
  /** Path and query, for logs. */
  readonly target: string;
  readonly idempotencyKey: string | null;
  readonly sensitive: readonly string[];
  readonly logger: LevelLogger | undefined;
  attempts: number;
  /** Whether an attempt ended without a response (dropped connection, timeout). */
  lostResponse: boolean;
}

/** The largest success body read; a bigger one is refused rather than buffered. */
const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

/** @internal The transport behind every resource; not part of the public API. */
export class HttpCore {
  readonly #config: HttpCoreConfig;
  readonly #ky: KyInstance;
  readonly #apiRoot: string;

  constructor(config: HttpCoreConfig) {
    this.#config = config;
    this.#apiRoot = `${config.baseUrl.replace(/\/+$/, '')}/v1`;
    this.#ky = ky.create({
      throwHttpErrors: true,
      hooks: { beforeRetry: [logRetry], beforeError: [toSdkError] },
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
    const settings = resolveCallSettings(this.#config, options, issues);
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
    headers.delete('Content-Type');
    let idempotencyKey: string | null = null;
    if (spec.idempotent) {
      try {
        idempotencyKey = resolveIdempotencyKey(options.idempotencyKey);
        headers.set('Idempotency-Key', idempotencyKey);
      } catch (error) {
        if (!(error instanceof RequestValidationError)) throw error;
        issues.push(...error.issues);
      }
    }
    if (serializedBody !== undefined) headers.set('Content-Type', 'application/json');
    if (issues.length > 0) throw new RequestValidationError(issues);

    const params = searchParams === undefined ? undefined : toSearchParams(searchParams);
    const search = params?.toString();
    const call: Call = {
      method: spec.method,
      target: new URL(url).pathname + (search ? `?${search}` : ''),
      idempotencyKey,
      sensitive: [this.#config.token, ...(spec.sensitive ?? [])],
      logger: this.#config.logger,
      signal: options.signal,
      budget: this.#config.retryBudget,
      spent: 0,
      attempts: 0,
      lostResponse: false,
    };
    const kyOptions: KyOptions = {
      method: spec.method,
      headers,
      ...(serializedBody === undefined ? {} : { body: serializedBody }),
      ...(params === undefined ? {} : { searchParams: params }),
      ...(options.signal ? { signal: options.signal } : {}),
      timeout: settings.timeout,
      totalTimeout: settings.totalTimeout ?? false,
      retry: retryOptions(settings.maxRetries, call),
      // Resolved per call, so a fetch patched after the client was made (as test tools do) is used.
      fetch: countingFetch(
        this.#config.fetch ?? ((input, init) => globalThis.fetch(input, init)),
        call,
      ),
      context: { call },
    };
    let response: Response;
    try {
      response = await this.#ky(url, kyOptions);
    } catch (error) {
      // A DELETE whose earlier attempt lost its response may have been carried out by it: a 404
      // on the retry then means the resource is gone, which is what the caller asked for.
      if (spec.method === 'DELETE' && call.lostResponse && error instanceof NotFoundError) {
        return {
          data: undefined,
          response: new Response(null, { status: error.status, headers: error.headers }),
          requestId: error.requestId,
          replayed: false,
        };
      }
      throw error;
    }
    const text = await readText(response, settings.timeout, call);
    const data = readSuccess(response, text, spec.expected);
    call.budget?.onSuccess(call.spent);
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
): { timeout: number; totalTimeout: number | undefined; maxRetries: number } {
  const timeout = options.timeout ?? config.timeout;
  const totalTimeout = options.totalTimeout ?? config.totalTimeout;
  const maxRetries = options.maxRetries ?? config.maxRetries;
  const timeoutIssue = describeTimeout(timeout);
  if (timeoutIssue) issues.push({ path: ['timeout'], message: timeoutIssue });
  const totalIssue = totalTimeout === undefined ? undefined : describeTimeout(totalTimeout);
  if (totalIssue) issues.push({ path: ['totalTimeout'], message: totalIssue });
  const retriesIssue = describeMaxRetries(maxRetries);
  if (retriesIssue) issues.push({ path: ['maxRetries'], message: retriesIssue });
  return { timeout, totalTimeout, maxRetries };
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

/** Counts attempts and logs each one: ky calls this once per attempt, retries included. */
function countingFetch(baseFetch: typeof globalThis.fetch, call: Call): typeof globalThis.fetch {
  return async (input, init) => {
    call.attempts += 1;
    const fields = { method: call.method, path: call.target, attempt: call.attempts };
    const started = Date.now();
    call.logger?.log('debug', `→ ${call.method} ${call.target}`, {
      ...fields,
      idempotencyKey: call.idempotencyKey,
    });
    try {
      const response = await baseFetch(input, init);
      const status = response.status;
      call.logger?.log(
        status >= 400 ? 'warn' : 'info',
        `← ${status} ${call.method} ${call.target}`,
        {
          ...fields,
          status,
          durationMs: Date.now() - started,
          requestId: response.headers.get('x-request-id'),
          idempotencyKey: call.idempotencyKey,
        },
      );
      return response;
    } catch (error) {
      call.lostResponse = true;
      call.logger?.log('warn', `✕ ${call.method} ${call.target}`, {
        ...fields,
        durationMs: Date.now() - started,
        reason: error instanceof Error ? error.name : 'Error',
        idempotencyKey: call.idempotencyKey,
      });
      // ky recognises only the network errors of the runtimes it knows; whatever else a fetch
      // throws without having been aborted is a failure to get a response too, so it is
      // retried and surfaces as APIConnectionError, never as a bare TypeError.
      const aborted = (init?.signal ?? (input instanceof Request ? input.signal : null))?.aborted;
      if (aborted || isNetworkError(error) || !(input instanceof Request)) throw error;
      throw new NetworkError(input, error instanceof Error ? { cause: error } : undefined);
    }
  };
}

/**
 * Reads a success body as text, bounded in size and time: a body larger than
 * {@link MAX_RESPONSE_BYTES} or slower than the attempt timeout fails instead of exhausting
 * memory or hanging the caller.
 */
async function readText(response: Response, timeoutMs: number, call: Call): Promise<string> {
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  try {
    for (;;) {
      const chunk = await Promise.race([reader.read(), timedOut]);
      if (chunk === 'timeout') {
        void reader.cancel().catch(() => undefined);
        throw new APITimeoutError(
          'Timed out while reading the response body',
          attemptDetails(call),
        );
      }
      if (chunk.done) break;
      size += chunk.value.byteLength;
      if (size > MAX_RESPONSE_BYTES) {
        void reader.cancel().catch(() => undefined);
        throw new ResponseValidationError(response.status, response.headers, [
          { path: [], message: `body is larger than ${MAX_RESPONSE_BYTES} bytes` },
        ]);
      }
      chunks.push(chunk.value);
    }
  } catch (error) {
    if (error instanceof SecretsVaultError) throw error;
    if (call.signal?.aborted) throw new APIUserAbortError();
    throw new APIConnectionError('Connection error: the response body was cut off', {
      ...attemptDetails(call),
      ...(error instanceof Error ? { cause: error } : {}),
    });
  } finally {
    clearTimeout(timer);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

function attemptDetails(call: Call): { attempts: number; idempotencyKey: string | null } {
  return { attempts: Math.max(call.attempts, 1), idempotencyKey: call.idempotencyKey };
}

function logRetry({ options, error, retryCount }: BeforeRetryState): void {
  const { call } = options.context as { call?: Call };
  call?.logger?.log('warn', `retrying ${call.method} ${call.target}`, {
    method: call.method,
    path: call.target,
    attempt: retryCount + 1,
    reason: error instanceof HTTPError ? String(error.response.status) : error.name,
    idempotencyKey: call.idempotencyKey,
  });
}

// The single place where ky's errors become ours. Nothing of ky's error (whose request holds the
// Authorization header) is kept as a cause.
function toSdkError({ error, options }: BeforeErrorState): Error {
  const { call } = options.context as { call?: Call };
  if (error instanceof SecretsVaultError || call === undefined) return error;
  if (call.signal?.aborted) return new APIUserAbortError();
  const details = attemptDetails(call);
  let converted: Error = error;
  if (error instanceof HTTPError) {
    converted = makeAPIError(
      error.response.status,
      error.response.headers,
      error.data,
      call.sensitive,
      details,
    );
  } else if (isTimeoutError(error)) {
    converted = new APITimeoutError('Request timed out', details);
  } else if (isNetworkError(error)) {
    const cause = error.cause instanceof Error ? error.cause : undefined;
    converted = new APIConnectionError(
      `Connection error: ${cause?.message ?? 'no response was received'}`,
      {
        ...details,
        ...(cause ? { cause } : {}),
      },
    );
  }
  call.logger?.log('error', `${converted.name}: ${call.method} ${call.target}`, {
    method: call.method,
    path: call.target,
    attempt: details.attempts,
    reason: converted.name,
    idempotencyKey: call.idempotencyKey,
    ...(converted instanceof APIError
      ? { status: converted.status, requestId: converted.requestId }
      : {}),
  });
  return converted;
}
