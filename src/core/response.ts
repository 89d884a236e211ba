/**
 * What an attempt came to, interpreted once: the data of a 2xx response, or the one SDK error
 * that a failed status, an unusable response, a lost response, a timeout or an abort stands
 * for. The only place a `ResponseValidationError` is built; the retry policy (retry.ts) then
 * decides on these errors alone.
 */
import { isTimeoutError } from 'ky';
import { type AttemptOutcome, type CallState, detailsOf, secretsOf } from './call-state.js';
import { type Expected, type PageBody, readSuccess } from './envelope.js';
import {
  APIConnectionError,
  APITimeoutError,
  APIUserAbortError,
  type CallDetails,
  makeAPIError,
  ResponseValidationError,
  SecretsVaultError,
} from './errors.js';
import { now } from './retry.js';
import { describeConnectionFailure } from './transport/network-failure.js';
import { BodyCutOff, type HttpResponseHead, NoResponse } from './transport/sender.js';
import { findSystemError } from './transport/system-error.js';

/** @internal A response the SDK cannot use: its status, or a body too large to be one. */
export class UnusableResponse extends Error {
  override name = 'UnusableResponse';
  readonly head: HttpResponseHead;
  constructor(head: HttpResponseHead, message: string) {
    super(message);
    this.head = head;
  }
}

/** @internal The data of a call, once a whole response is interpreted. */
export interface Interpreted {
  readonly data: unknown | PageBody<unknown>;
  readonly response: Response;
  readonly requestId: string | null;
  readonly replayed: boolean;
}

/**
 * @internal A whole response, as the data the route promised or the error it stands for: a
 * failed status becomes its `APIError` subclass (the envelope's code and message, scrubbed), a
 * 2xx whose body is not what the route promises a `ResponseValidationError`.
 */
export function interpretResponse(
  call: CallState,
  outcome: Extract<AttemptOutcome, { response: Response }>,
  expected: Expected<unknown>,
): Interpreted | { readonly error: SecretsVaultError } {
  const { response, text } = outcome;
  const { status, headers } = response;
  if (status >= 200 && status <= 299) {
    const result = readSuccess(status, text, expected);
    if (!result.ok) {
      return {
        error: new ResponseValidationError(status, headers, result.issues, detailsOf(call)),
      };
    }
    return {
      data: result.data,
      response,
      requestId: headers.get('x-request-id'),
      replayed: headers.get('idempotent-replayed') === 'true',
    };
  }
  // Of the statuses that are not a success, only 304 forbids a body.
  const body = status === 304 ? null : text;
  return { error: makeAPIError(status, headers, body, secretsOf(call), detailsOf(call)) };
}

/**
 * @internal The error for a response the SDK cannot use although each page of it was well
 * formed: a list whose `next_cursor` would never end it (pagination.ts).
 */
export function unusableListing(
  response: Response,
  details: CallDetails,
  path: string,
  message: string,
): ResponseValidationError {
  return new ResponseValidationError(
    response.status,
    response.headers,
    [{ path: [path], message }],
    details,
  );
}

/**
 * @internal What was thrown instead of a response (or what ended the wait before a retry), as
 * the SDK error it stands for. Nothing of ky's errors, whose request holds the Authorization
 * header, is kept as a cause.
 */
export function interpretFailure(
  call: CallState,
  thrown: unknown,
  startedAt: number,
): SecretsVaultError {
  const details = detailsOf(call);
  const { request } = call;
  if (thrown instanceof SecretsVaultError) return thrown;
  const { signal } = request.settings;
  if (signal?.aborted || thrown === 'aborted') {
    // `AbortSignal.timeout()` (its reason a `TimeoutError`, as fetch reports it): the caller set
    // a time limit and it ran out, which is a timeout, not a cancellation.
    return (signal?.reason as Error | undefined)?.name === 'TimeoutError'
      ? new APITimeoutError(undefined, details)
      : new APIUserAbortError(undefined, details);
  }
  if (thrown === 'deadline' || isTimeoutError(thrown)) {
    return new APITimeoutError(describeTimeout(call, startedAt), details);
  }
  if (thrown instanceof UnusableResponse) {
    const { status, headers } = thrown.head;
    return new ResponseValidationError(
      status,
      headers,
      [{ path: [], message: thrown.message }],
      details,
    );
  }
  if (thrown instanceof NoResponse || thrown instanceof BodyCutOff) {
    // No response: the network's own error says why; a body cut off says so itself.
    const cause = thrown instanceof BodyCutOff ? thrown : (thrown.cause as Error);
    return new APIConnectionError(
      `Connection error: ${describeConnectionFailure(cause, request.url)}`,
      { ...details, cause },
    );
  }
  // A failure no network explains (a caller's fetch's own bug): kept as the cause, unless it
  // holds a request (and so the Authorization header).
  const cause = thrown instanceof Error && !('request' in thrown) ? thrown : undefined;
  return new SecretsVaultError(
    `Request failed unexpectedly (${thrown instanceof Error ? thrown.name : 'non-error thrown'})`,
    { ...details, ...(cause ? { cause } : {}) },
  );
}

/**
 * @internal What an attempt failed on, for its log line and its telemetry: the HTTP status,
 * else the runtime's system error code (`ECONNREFUSED`), else the class of the innermost error
 * (`TimeoutError`).
 */
export function causeOf(error: unknown): string {
  if (error instanceof SecretsVaultError && 'status' in error) return String(error.status);
  if (error instanceof UnusableResponse) return String(error.head.status);
  if (error === 'deadline') return 'TimeoutError';
  if (error === 'aborted') return 'AbortError';
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

/** @internal The short name of why a call is retried, for its log line: a status, or a class. */
export function errorTypeOf(error: SecretsVaultError): string {
  return 'status' in error && typeof error.status === 'number' ? String(error.status) : error.name;
}

function describeTimeout(call: CallState, startedAt: number): string {
  const { timeout, totalTimeout, wait } = call.request.settings;
  const attempt = Math.max(call.attempts, 1);
  // Each attempt gets min(timeout, what is left of the call's deadline, see deadlineOf): when the
  // call has used that up (timers may fire a hair early on another clock), the deadline ended it.
  const waitEnded = wait > 0 && (totalTimeout === undefined || wait < totalTimeout);
  const deadline = waitEnded ? wait : totalTimeout;
  const what =
    deadline === undefined || now() - startedAt < deadline - 5
      ? `attempt ${attempt} took longer than timeout (${timeout} ms)`
      : waitEnded
        ? `attempt ${attempt} had no answer when the wait (${wait} ms) ended`
        : `the call took longer than totalTimeout (${totalTimeout} ms)`;
  return `Request timed out: ${what}${call.retried ? `; ${call.retried}` : ''}`;
}
