/**
 * Sending a built request: ky (which owns per-attempt timeouts, `totalTimeout`, backoff and
 * retries), the attempt wrapper that ky calls as its `fetch`, the hooks, and the one conversion
 * of whatever went wrong into an SDK error that carries the call's details.
 */
import ky, {
  type BeforeRetryState,
  HTTPError,
  isHTTPError,
  isNetworkError,
  isTimeoutError,
  type KyInstance,
  NetworkError,
  type Options,
} from 'ky';
import { MAX_RESPONSE_BYTES } from './body.js';
import {
  APIConnectionError,
  APITimeoutError,
  APIUserAbortError,
  type CallDetails,
  makeAPIError,
  NotFoundError,
  ResponseValidationError,
  SecretsVaultError,
} from './errors.js';
import { fetchSender, globalFetch } from './fetch-http.js';
import type { HttpResponseHead, HttpSend } from './http-client.js';
import type { LevelLogger, LogFields, LogLevel } from './logger.js';
import {
  describeConnectionFailure,
  isNetworkFailure,
  ResponseBodyCutOff,
} from './network-failure.js';
import { isNodeHttpFailure, runtimeSender } from './node-http.js';
import type { ClientConfig } from './options.js';
import { scrubServerText, sensitiveStrings } from './redaction.js';
import { deadlineOf, now, type RetryBudget, type RetryCall, retryOptions } from './retry.js';
import type { BuiltRequest } from './route.js';
import { findSystemError } from './system-error.js';
import { UnusableBody } from './whole-body.js';

/** @internal One call as it goes: what the retry decision, the logs and the errors need. */
export interface Call extends RetryCall {
  readonly request: BuiltRequest;
  readonly logger: LevelLogger | undefined;
  attempts: number;
  /** `X-Request-Id` of the latest response. */
  requestId: string | null;
  /** Whether an attempt ended without a whole response (dropped connection, timeout, cut body). */
  lostResponse: boolean;
  /** The body of the final 2xx response, read within its attempt. */
  text: string;
  /** The strings to scrub from what a server says, worked out when first needed. */
  secrets?: readonly string[];
}

/** @internal The details every error of this call carries. */
export function detailsOf(call: Call): CallDetails {
  return {
    method: call.request.method,
    path: call.request.template,
    attempts: call.attempts,
    idempotencyKey: call.request.idempotencyKey,
    // The server's own words: it may echo what it was sent (the Authorization header) there.
    requestId: call.requestId === null ? null : scrub(call, call.requestId),
  };
}

/** The strings to scrub from what a server says about `call`: its token and secret values. */
function secretsOf(call: Call): readonly string[] {
  call.secrets ??= sensitiveStrings(call.request.sensitive);
  return call.secrets;
}

/** `text` with the call's token and secret values scrubbed, however a server escaped them. */
function scrub(call: Call, text: string): string {
  return scrubServerText(text, secretsOf(call));
}

/**
 * @internal A 2xx response, and its call: the body has been read in full, into `call.text`, so
 * the response's own body is used up.
 */
export interface Sent {
  readonly response: Response;
  readonly call: Call;
}

// The option key under which a call travels through ky to the attempt: ky hands every option it
// does not know to its `fetch`, so one attempt function serves every call of a client.
const CALL = 'secretsVaultCall';

/** @internal Sends requests for one client. */
export class Transport {
  readonly #ky: KyInstance;
  readonly #send: HttpSend;
  readonly #budget: RetryBudget | undefined;
  readonly #logger: LevelLogger | undefined;

  constructor(config: ClientConfig) {
    // The one place where what sends the bytes is chosen: the caller's fetch, else the runtime's
    // fastest (node:http in Node, see node-http.ts), else the runtime's fetch.
    this.#send = config.fetch ? fetchSender(config.fetch) : runtimeSender(fetchSender(globalFetch));
    this.#budget = config.retryBudget;
    this.#logger = config.logger;
    const attempt = this.#attempt.bind(this) as typeof globalThis.fetch;
    this.#ky = ky.create({
      // A redirect could carry the token and the body to another origin: it is an error.
      redirect: 'manual',
      fetch: attempt,
      // No beforeError hook: send() converts whatever ky throws, in one place.
      hooks: { beforeRetry: [beforeRetry] },
    });
  }

  /**
   * Sends `request` with the retry policy and resolves to the final 2xx response.
   *
   * @throws {SecretsVaultError} a subclass, with the call's details, for every failure
   */
  async send(request: BuiltRequest): Promise<Sent> {
    const { settings } = request;
    const call: Call = {
      request,
      logger: this.#logger,
      signal: settings.signal,
      budget: this.#budget,
      spent: 0,
      throttled: 0,
      nextDelay: 0,
      lastRetryTaken: false,
      startedAt: now(),
      attempts: 0,
      requestId: null,
      lostResponse: false,
      text: '',
    };
    const totalTimeout = deadlineOf(settings, settings.totalTimeout);
    try {
      const response = await this.#ky(request.url, {
        method: request.method,
        headers: request.headers,
        ...(request.body === undefined ? {} : { body: request.body }),
        ...(settings.signal ? { signal: settings.signal } : {}),
        timeout: settings.timeout,
        // Every option is merged anew on each call: one left at ky's default costs nothing.
        ...(totalTimeout === undefined ? {} : { totalTimeout }),
        retry: retryOptions(settings, call),
        // ky's types know only its own options; it passes this one on to the attempt.
        [CALL]: call,
      } as Options);
      return { response, call };
    } catch (error) {
      const converted = toSdkError(error, call);
      // A DELETE whose earlier attempt lost its response may have been carried out by it: a 404
      // on the retry then means the resource is gone, which is what the caller asked for.
      if (request.method === 'DELETE' && call.lostResponse && converted instanceof NotFoundError) {
        const response = new Response(null, {
          status: converted.status,
          headers: converted.headers,
        });
        return { response, call };
      }
      throw converted;
    }
  }

  /**
   * The `fetch` ky calls once per attempt: it counts and logs the attempt, and reads the body
   * within the attempt, so ky's per-attempt timeout covers it and a body that is cut off is a
   * failed attempt that the retry policy sees like any dropped connection.
   */
  async #attempt(input: Request, init: Record<string, unknown>): Promise<Response> {
    const call = init[CALL] as Call;
    call.attempts += 1;
    const { signal } = input;
    const { attempts } = call;
    const started = now();
    note(call, 'debug', '→', attempts);

    let head: HttpResponseHead;
    try {
      head = await this.#send(call.request, signal, input);
    } catch (error) {
      lost(call, attempts, started, error, 'no response');
      // An abort (the caller's signal, or ky's timeout) is ky's to report.
      if (signal.aborted || isNetworkError(error)) throw error;
      // A fetch may fail by its own bug (a tracing wrapper's, say), which a retry would only
      // repeat: that surfaces once, as a SecretsVaultError whose cause is the original.
      if (isNetworkFailure(error) || isNodeHttpFailure(error)) {
        // Both tests pass only for an Error.
        throw new NetworkError(input, { cause: error as Error });
      }
      throw error;
    }
    call.requestId = head.headers.get('x-request-id');
    const { status } = head;
    // A browser hides a redirect it was told not to follow behind an empty `opaqueredirect`, of
    // status 0.
    if (status === 0) return head.response;
    if (status < 200 || status > 599) {
      head.discard();
      throw unexpected(call, head, `HTTP status ${status} is not one the service answers with`);
    }

    let text: string;
    try {
      text = utf8.decode(await head.read(MAX_RESPONSE_BYTES));
    } catch (error) {
      if (error instanceof UnusableBody) {
        throw unexpected(call, head, error.message);
      }
      lost(call, attempts, started, error, 'body cut off');
      if (signal.aborted) throw error;
      throw new NetworkError(input, {
        cause: new ResponseBodyCutOff('the response body was cut off', { cause: error }),
      });
    }
    note(call, status >= 400 ? 'warn' : 'info', `← ${status}`, attempts, {
      status,
      durationMs: Math.round(now() - started),
      requestId: call.requestId,
    });
    if (status < 300) {
      // What ky does with a success needs no body: the call keeps the text, read once.
      call.text = text;
      return head.response;
    }
    // ky reads an error's body (as `error.data`): give it back what was read. Of the statuses
    // that are not a success, only 304 forbids a body.
    return new Response(status === 304 ? null : text, head);
  }
}

// Module functions rather than closures of the attempt: nothing is allocated for them on the
// path of a call that succeeds.

/** Marks an attempt that ended without a whole response, and logs it. */
function lost(call: Call, attempt: number, started: number, error: unknown, what: string): void {
  call.lostResponse = true;
  note(
    call,
    'warn',
    '✕',
    attempt,
    {
      durationMs: Math.round(now() - started),
      reason: error instanceof Error ? error.name : 'Error',
      cause: causeOf(error),
    },
    `: ${what}`,
  );
}

/** A response the SDK cannot use (its status, its body), as a ResponseValidationError. */
function unexpected(call: Call, head: HttpResponseHead, message: string): ResponseValidationError {
  return new ResponseValidationError(
    head.status,
    head.headers,
    [{ path: [], message }],
    detailsOf(call),
  );
}

// One decoder for every body: without `stream`, each decode() stands alone.
const utf8 = new TextDecoder();

function callOf(options: object): Call | undefined {
  return (options as { [CALL]?: Call })[CALL];
}

function beforeRetry({ options, error, retryCount }: BeforeRetryState): void {
  const call = callOf(options);
  if (call === undefined) return;
  // A timed-out attempt may have reached the server even though no answer came back.
  if (!isHTTPError(error)) call.lostResponse = true;
  note(call, 'warn', 'retrying', retryCount + 1, {
    reason: error instanceof HTTPError ? String(error.response.status) : error.name,
    cause: causeOf(error),
  });
}

/**
 * What an attempt failed on, for its log line: the HTTP status, else the runtime's system error
 * code (`ECONNREFUSED`), else the class of the innermost error (`TimeoutError`). ky's own
 * wrapper says only that the network failed, which every such line would say alike.
 */
function causeOf(error: unknown): string {
  if (isHTTPError(error)) return String(error.response.status);
  const system = findSystemError(error);
  if (system !== undefined) return system.code;
  let innermost = error;
  for (
    let depth = 0;
    depth < 4 && innermost instanceof Error && innermost.cause instanceof Error;
    depth += 1
  ) {
    innermost = innermost.cause;
  }
  return innermost instanceof Error ? innermost.name : typeof innermost;
}

/**
 * The single place where a failure becomes one of our errors, with the call's details. Nothing
 * of ky's errors (whose request holds the Authorization header) is kept as a cause.
 */
function toSdkError(error: unknown, call: Call): SecretsVaultError {
  if (error instanceof SecretsVaultError) return error;
  const details = detailsOf(call);
  let converted: SecretsVaultError;
  if (call.signal?.aborted) {
    converted = new APIUserAbortError(undefined, details);
  } else if (isHTTPError(error)) {
    converted = makeAPIError(
      error.response.status,
      error.response.headers,
      error.data,
      secretsOf(call),
      details,
    );
  } else if (isTimeoutError(error)) {
    converted = new APITimeoutError(describeTimeout(call), details);
  } else if (isNetworkError(error)) {
    const cause = error.cause instanceof Error ? error.cause : undefined;
    converted = new APIConnectionError(
      `Connection error: ${describeConnectionFailure(cause, call.request.url)}`,
      { ...details, ...(cause ? { cause } : {}) },
    );
  } else {
    // Not a failure ky knows: keep it as the cause unless it is one of ky's (it holds the request).
    const cause = error instanceof Error && !('request' in error) ? error : undefined;
    converted = new SecretsVaultError(
      `Request failed unexpectedly (${error instanceof Error ? error.name : 'non-error thrown'})`,
      { ...details, ...(cause ? { cause } : {}) },
    );
  }
  note(call, 'error', `${converted.name}:`, details.attempts, {
    reason: converted.name,
    cause: causeOf(error),
    requestId: details.requestId,
    ...('status' in converted && typeof converted.status === 'number'
      ? { status: converted.status }
      : {}),
  });
  return converted;
}

/**
 * Logs one line about `call`: `<prefix> <method> <path><suffix>`, with the fields every line of
 * a call carries (method, path, attempt, idempotency key) and `extra`. Every string of the line
 * is scrubbed as an error's text is: the request id is the server's to choose, and the rest
 * must not become the one way out for a token that a caller put in a path.
 */
function note(
  call: Call,
  level: Exclude<LogLevel, 'off'>,
  prefix: string,
  attempt: number,
  extra?: Partial<LogFields>,
  suffix = '',
): void {
  const { logger } = call;
  if (logger === undefined || !logger.enabled(level)) return;
  const { method, target, idempotencyKey } = call.request;
  const fields: Record<string, unknown> = {
    method,
    path: target,
    attempt,
    idempotencyKey,
    ...extra,
  };
  for (const [name, value] of Object.entries(fields)) {
    if (typeof value === 'string') fields[name] = scrub(call, value);
  }
  logger.log(
    level,
    scrub(call, `${prefix} ${method} ${target}${suffix}`),
    fields as unknown as LogFields,
  );
}

function describeTimeout(call: Call): string {
  const { timeout, totalTimeout, wait } = call.request.settings;
  const attempt = Math.max(call.attempts, 1);
  // Each attempt gets min(timeout, what is left of the call's deadline, see deadlineOf): when the
  // call has used that up (timers may fire a hair early on another clock), the deadline ended it.
  const waitEnded = wait > 0 && (totalTimeout === undefined || wait < totalTimeout);
  const deadline = waitEnded ? wait : totalTimeout;
  const what =
    deadline === undefined || now() - call.startedAt < deadline - 5
      ? `attempt ${attempt} took longer than timeout (${timeout} ms)`
      : waitEnded
        ? `attempt ${attempt} had no answer when the wait (${wait} ms) ended`
        : `the call took longer than totalTimeout (${totalTimeout} ms)`;
  return `Request timed out: ${what}`;
}
