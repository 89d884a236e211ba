/**
 * Every error the SDK throws, and the one function that turns a failed response into the right
 * class: by `errorCode` first, then by HTTP status.
 *
 * No error here keeps a request, a request body, a response body or a `cause` that could hold
 * one: the `Authorization` header and secret values must never reach a log or a stack.
 */
import { readFailureEnvelope } from './envelope.js';
import { escapeControlCharacters, scrubServerText } from './redaction.js';
import type { ValidationIssue } from './validation.js';

// Defined with the checks that report it, below this file and the envelope reader, so neither
// imports the other back; exported here too, beside the errors that carry it.
export type { ValidationIssue } from './validation.js';

/**
 * What every error produced by a call says about that call, whatever went wrong: which route,
 * how many attempts, under which idempotency key, and the service's request id when one came.
 */
export interface CallDetails {
  /** HTTP method of the call, such as `POST`; `null` for an error raised outside a call. */
  readonly method: string | null;
  /** Route template of the call, such as `/v1/vaults/{vaultId}/secrets` (never the ids). */
  readonly path: string | null;
  /** How many attempts the call made, retries included; 0 when nothing was sent. */
  readonly attempts: number;
  /** The `Idempotency-Key` the call sent (the same on every attempt), or `null`. */
  readonly idempotencyKey: string | null;
  /** `X-Request-Id` of the last response, or `null` when no response (or no id) came. */
  readonly requestId: string | null;
}

/** Options of every SDK error: the details of the call it came from, and its cause. */
export interface SecretsVaultErrorOptions extends Partial<CallDetails> {
  /** The underlying failure, such as the runtime's network error (never a request). */
  readonly cause?: Error;
}

/**
 * What a failed call tried: how many attempts, under which idempotency key, and the underlying
 * failure. Kept for code written against earlier releases.
 *
 * @deprecated Use {@link SecretsVaultErrorOptions}, which also carries `method`, `path` and
 * `requestId`.
 */
export type AttemptDetails = Pick<
  SecretsVaultErrorOptions,
  'attempts' | 'idempotencyKey' | 'cause'
>;

/**
 * The key under which each error class keeps its brand on its prototype: its name. Every copy of
 * the SDK in a process spells it the same: a process may load the ES module and the CommonJS
 * builds side by side (an application imports the SDK, a library requires it), and each copy's
 * `instanceof` must still know the other's errors. Each class writes it out as a literal typed
 * `string`, so that it stays out of the class's type and a bundler can still drop a class no code
 * uses (a computed key it cannot read would keep every class).
 */
const BRAND = '@secrets-vault/sdk/error';

/** An SDK error, or a prototype in its chain, read for its brand. */
type Branded = { readonly [BRAND]?: string };

/**
 * Base class of every error thrown by the SDK, so `instanceof SecretsVaultError` catches them all.
 * Errors that come from a call carry its {@link CallDetails}; errors raised outside a call (a bad
 * constructor option) have `method` and `path` `null` and `attempts` 0.
 *
 * @example
 * ```ts
 * try {
 *   await client.vaults.get('vlt_123');
 * } catch (error) {
 *   if (error instanceof SecretsVaultError) console.error(error.message, error.requestId);
 * }
 * ```
 */
export class SecretsVaultError extends Error implements CallDetails {
  /**
   * `instanceof` that also knows the errors of another copy of the SDK loaded in the same
   * process, such as its CommonJS build next to its ES module build: an error of either copy is
   * an instance of the class of the same name in the other, and of that class's parents, never
   * of a sibling (a `NotFoundError` is an `APIError`, not a `RateLimitError`). Within one copy it
   * answers as the ordinary `instanceof` does. (`this` is the class on the right of
   * `instanceof`: the SDK's, another copy's, or a subclass of either.)
   *
   * @example
   * ```ts
   * // `error` may come from the SDK's other build, through a library that required it.
   * if (error instanceof NotFoundError) console.error('no such vault');
   * ```
   */
  static override [Symbol.hasInstance]<T>(
    this: abstract new (
      ...args: never
    ) => T,
    value: unknown,
  ): value is T {
    // biome-ignore lint/complexity/noThisInStatic: the class on the right of `instanceof`.
    const { prototype } = this;
    // Every class of the SDK has a brand of its own, unique within a copy, so for the errors of
    // one copy this is the ordinary test. A subclass of the caller's own inherits its parent's
    // brand: only its prototype itself tells it apart.
    const brand = Object.hasOwn(prototype, BRAND) && prototype[BRAND];
    for (let link = value as Branded | null; link != null; ) {
      link = Object.getPrototypeOf(link) as Branded | null;
      if (link === prototype || link?.[BRAND] === brand) return true;
    }
    return false;
  }

  // The brand (see `BRAND`); every subclass of the SDK returns its own name in the same way.
  get ['@secrets-vault/sdk/error' as string](): string {
    return 'SecretsVaultError';
  }

  // The brand of the instance's class, so that a name is written once per class.
  override name: string = (this as Branded)[BRAND] as string;
  // Fields here and in every subclass are `declare`d: the constructor sets each (in this order,
  // as a field would have), and a bundle then carries no list of field names.
  declare readonly method: string | null;
  declare readonly path: string | null;
  declare readonly attempts: number;
  declare readonly idempotencyKey: string | null;
  declare readonly requestId: string | null;

  constructor(message: string, options: SecretsVaultErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.method = options.method ?? null;
    this.path = options.path ?? null;
    this.attempts = options.attempts ?? 0;
    this.idempotencyKey = options.idempotencyKey ?? null;
    this.requestId = options.requestId ?? null;
  }
}

/** What an {@link APIError} is built from: the response, and the call it answered. */
export interface APIErrorInit extends Partial<CallDetails> {
  /** HTTP status of the response. */
  readonly status: number;
  /** The envelope's `errorCode`, or `null` when the response was not a failure envelope. */
  readonly code: string | null;
  /** The envelope's `message`, already scrubbed of the token and of secret values. */
  readonly message: string | null;
  /** Response headers, already scrubbed of the token and of secret values. */
  readonly headers: Headers;
}

/**
 * An error answered by the service: a non-2xx response. Subclasses name the status or the
 * `errorCode`; match on them (or on `code`), never on `message`, which is for people.
 */
export class APIError extends SecretsVaultError {
  get ['@secrets-vault/sdk/error' as string](): string {
    return 'APIError';
  }
  /** HTTP status of the response. */
  declare readonly status: number;
  /** Stable machine-readable `errorCode` of the envelope, or `null` when the body had none. */
  declare readonly code: string | null;
  /**
   * Response headers, with the token and the secret values the call sent replaced by
   * `[REDACTED]` wherever a server or proxy echoed them (as the message is scrubbed).
   */
  declare readonly headers: Headers;

  constructor(init: APIErrorInit) {
    super(init.message ?? `Request failed with status ${init.status}`, {
      ...init,
      requestId: init.requestId ?? init.headers.get('x-request-id'),
      attempts: init.attempts ?? 1,
    });
    this.status = init.status;
    this.code = init.code;
    this.headers = init.headers;
  }
}

/**
 * 3xx: the service, or something in front of it, answered with a redirect. The SDK never
 * follows one: the next hop could be another origin, or plain http, and would receive the
 * token and the body (secret values included). A redirect usually means a wrong `baseUrl`
 * (http instead of https, a missing or extra path).
 */
export class RedirectError extends APIError {
  get ['@secrets-vault/sdk/error' as string](): string {
    return 'RedirectError';
  }
  /** The `Location` the response pointed at, or `null` when it sent none (or a browser hid it). */
  declare readonly location: string | null;

  constructor(init: APIErrorInit) {
    const location = init.headers.get('location');
    super({
      ...init,
      message: `Refused to follow a redirect (${init.status === 0 ? 'status hidden by the browser' : `status ${init.status}`}): the SDK never follows redirects; check baseUrl`,
    });
    this.location = location === null ? null : escapeControlCharacters(location);
  }
}

/** 400: the request was malformed, for example a body that is not a JSON object. */
export class BadRequestError extends APIError {
  get ['@secrets-vault/sdk/error' as string](): string {
    return 'BadRequestError';
  }
}

/** 400 `invalid_cursor`: the cursor is malformed or expired; start the listing again. */
export class InvalidCursorError extends BadRequestError {
  get ['@secrets-vault/sdk/error' as string](): string {
    return 'InvalidCursorError';
  }
}

/** 401: the token is missing, malformed or unknown. */
export class AuthenticationError extends APIError {
  get ['@secrets-vault/sdk/error' as string](): string {
    return 'AuthenticationError';
  }
}

/** 403: the token is valid but its role is too low for the operation. */
export class PermissionDeniedError extends APIError {
  get ['@secrets-vault/sdk/error' as string](): string {
    return 'PermissionDeniedError';
  }
}

/** 404: the resource does not exist, or is not visible to the caller. */
export class NotFoundError extends APIError {
  get ['@secrets-vault/sdk/error' as string](): string {
    return 'NotFoundError';
  }
}

/** 409: the request conflicts with the current state (for example demoting the last owner). */
export class ConflictError extends APIError {
  get ['@secrets-vault/sdk/error' as string](): string {
    return 'ConflictError';
  }
}

/** 409 `idempotency_in_progress`: a request with the same key is still running; retried. */
export class IdempotencyInProgressError extends ConflictError {
  get ['@secrets-vault/sdk/error' as string](): string {
    return 'IdempotencyInProgressError';
  }
}

/** 413: the request body is larger than the service accepts. */
export class PayloadTooLargeError extends APIError {
  get ['@secrets-vault/sdk/error' as string](): string {
    return 'PayloadTooLargeError';
  }
}

/** 422: the body is well-formed but a field breaks a rule of the service. */
export class UnprocessableEntityError extends APIError {
  get ['@secrets-vault/sdk/error' as string](): string {
    return 'UnprocessableEntityError';
  }
}

/** 422 `idempotency_key_reuse`: the key was already used with a different body. */
export class IdempotencyKeyReuseError extends UnprocessableEntityError {
  get ['@secrets-vault/sdk/error' as string](): string {
    return 'IdempotencyKeyReuseError';
  }
}

/** 429: too many requests; `retryAfter` says how long the service asked to wait. */
export class RateLimitError extends APIError {
  get ['@secrets-vault/sdk/error' as string](): string {
    return 'RateLimitError';
  }
  /** Seconds to wait from the `Retry-After` header, or `null` when it was absent or unreadable. */
  declare readonly retryAfter: number | null;

  constructor(init: APIErrorInit) {
    super(init);
    this.retryAfter = parseRetryAfter(init.headers.get('retry-after'));
  }
}

/** 5xx: the service (or a proxy in front of it) failed. */
export class InternalServerError extends APIError {
  get ['@secrets-vault/sdk/error' as string](): string {
    return 'InternalServerError';
  }
}

/**
 * No usable response arrived: the host was not found, the connection was refused or reset, the
 * body was cut off, or a browser blocked the request. The message says what failed in one line
 * (`Connection error: ECONNREFUSED 127.0.0.1:8200`); `cause` holds the runtime's own error.
 */
export class APIConnectionError extends SecretsVaultError {
  get ['@secrets-vault/sdk/error' as string](): string {
    return 'APIConnectionError';
  }
  constructor(
    message = 'Connection error: no response was received',
    options: SecretsVaultErrorOptions = {},
  ) {
    super(message, { ...options, attempts: options.attempts ?? 1 });
  }
}

/** An attempt (`timeout`) or the whole call (`totalTimeout`) took longer than allowed. */
export class APITimeoutError extends APIConnectionError {
  get ['@secrets-vault/sdk/error' as string](): string {
    return 'APITimeoutError';
  }
  constructor(message = 'Request timed out', options: SecretsVaultErrorOptions = {}) {
    super(message, options);
  }
}

/** The caller's `AbortSignal` fired: the call was cancelled on purpose and is not retried. */
export class APIUserAbortError extends SecretsVaultError {
  get ['@secrets-vault/sdk/error' as string](): string {
    return 'APIUserAbortError';
  }
  constructor(
    message = 'Request was aborted by the caller',
    options: SecretsVaultErrorOptions = {},
  ) {
    super(message, options);
  }
}

/**
 * Bad input caught before anything was sent: a rule of the service, such as `limit` outside
 * 1 to 100, a body over 1 MB, a secret value that is not an object of strings, an id that is not
 * a well-formed string, or a header that `fetch` would refuse. It names the option, never its
 * value.
 */
export class RequestValidationError extends SecretsVaultError {
  get ['@secrets-vault/sdk/error' as string](): string {
    return 'RequestValidationError';
  }
  /** Every rule the input broke. */
  declare readonly issues: readonly ValidationIssue[];

  constructor(issues: readonly ValidationIssue[], options: SecretsVaultErrorOptions = {}) {
    super(`Invalid request: ${formatIssues(issues)}`, options);
    this.issues = issues;
  }
}

/**
 * A response that is not the service's envelope, whose `data` does not fit the resource's
 * schema, that is too large, or a list whose cursors would never end. It names the failing
 * paths but never carries the body, which may hold secret values.
 */
export class ResponseValidationError extends SecretsVaultError {
  get ['@secrets-vault/sdk/error' as string](): string {
    return 'ResponseValidationError';
  }
  /** HTTP status of the response. */
  declare readonly status: number;
  /** Every rule the response broke. */
  declare readonly issues: readonly ValidationIssue[];

  constructor(
    status: number,
    headers: Headers,
    issues: readonly ValidationIssue[],
    options: SecretsVaultErrorOptions = {},
  ) {
    super(`Unexpected response (status ${status}): ${formatIssues(issues)}`, {
      ...options,
      requestId: options.requestId ?? headers.get('x-request-id'),
      attempts: options.attempts ?? 1,
    });
    this.status = status;
    this.issues = issues;
  }
}

/**
 * The secrets of a vault do not fit what the caller asked for: a schema given to
 * `client.secrets.load` rejected them (every failing path is listed), or two live secrets share a
 * name, so a record keyed by name cannot hold both. It never carries a value.
 */
export class SecretsSchemaError extends SecretsVaultError {
  get ['@secrets-vault/sdk/error' as string](): string {
    return 'SecretsSchemaError';
  }
  /** Every failing path (such as `['database', 'password']`), with the schema's message. */
  declare readonly issues: readonly ValidationIssue[];

  constructor(issues: readonly ValidationIssue[], options: SecretsVaultErrorOptions = {}) {
    super(`The secrets do not fit: ${formatIssues(issues)}`, options);
    this.issues = issues;
  }
}

/**
 * A `vault://<vaultId>/<secret name>/<key>` reference that cannot be resolved: it is malformed
 * (refused before any request), or names a secret or key the vault does not have.
 */
export class SecretReferenceError extends SecretsVaultError {
  get ['@secrets-vault/sdk/error' as string](): string {
    return 'SecretReferenceError';
  }
  /** The offending reference, as written. */
  declare readonly reference: string;

  constructor(reference: string, problem: string, options: SecretsVaultErrorOptions = {}) {
    super(`Cannot resolve ${escapeControlCharacters(reference)}: ${problem}`, options);
    this.reference = reference;
  }
}

// Paths of response issues hold the server's keys: escaped, so they cannot forge a log line.
function formatIssues(issues: readonly ValidationIssue[]): string {
  return escapeControlCharacters(
    issues
      .map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')}: ` : '') + issue.message)
      .join('; '),
  );
}

type APIErrorClass = new (init: APIErrorInit) => APIError;

// errorCode first, then status, as stripe-node does.
const classByCode: Readonly<Record<string, APIErrorClass>> = {
  invalid_cursor: InvalidCursorError,
  idempotency_in_progress: IdempotencyInProgressError,
  idempotency_key_reuse: IdempotencyKeyReuseError,
};

const classByStatus: Readonly<Record<number, APIErrorClass>> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  413: PayloadTooLargeError,
  422: UnprocessableEntityError,
  429: RateLimitError,
};

function classFor(status: number, code: string | null): APIErrorClass {
  // Status 0 is how a browser shows a redirect it was told not to follow (`opaqueredirect`).
  if (status === 0 || (status >= 300 && status <= 399)) return RedirectError;
  const byStatus =
    status >= 500 && status <= 599 ? InternalServerError : (classByStatus[status] ?? APIError);
  const byCode = code !== null && Object.hasOwn(classByCode, code) ? classByCode[code] : undefined;
  // A known code refines its own status only, so a 500 that says `invalid_cursor` is still a
  // server fault (and retried as one) rather than a cursor the caller must drop.
  return byCode !== undefined && byCode.prototype instanceof byStatus && byStatus !== APIError
    ? byCode
    : byStatus;
}

/**
 * Builds the error for a non-2xx response from its status, headers and (possibly unparsed) body.
 * The envelope's `errorCode` and `message` are used only when the body is a well-formed failure
 * envelope that agrees with the HTTP status; anything else falls back to the status alone.
 *
 * @param secrets - the token and secret values sent (from `sensitiveStrings`), to scrub from the
 *   server's message, from every response header the error keeps, and from the request id,
 *   however the server escaped them
 */
export function makeAPIError(
  status: number,
  headers: Headers,
  body: unknown,
  secrets: readonly string[],
  details: Partial<CallDetails> = {},
): APIError {
  const envelope = readFailureEnvelope(status, body);
  const code = envelope?.errorCode ?? null;
  const message = envelope?.message == null ? null : scrubServerText(envelope.message, secrets);
  const ErrorClass = classFor(status, code);
  const { requestId } = details;
  return new ErrorClass({
    ...details,
    ...(requestId == null ? {} : { requestId: scrubServerText(requestId, secrets) }),
    status,
    code: code === null ? null : escapeControlCharacters(code),
    message,
    headers: scrubHeaders(headers, secrets),
  });
}

/**
 * A copy of `headers` with the secrets scrubbed from every name and value: the error keeps its
 * headers and `util.inspect` prints them, and a server or proxy may echo `Authorization` or the
 * body in either.
 */
function scrubHeaders(headers: Headers, secrets: readonly string[]): Headers {
  const scrubbed = new Headers();
  // Iteration yields each `Set-Cookie` on its own and every other name once, values joined.
  for (const [name, value] of headers) {
    scrubbed.append(scrubHeaderName(name, secrets), scrubServerText(value, secrets));
  }
  return scrubbed;
}

// What an HTTP header name may not hold (RFC 9110 `token`), and so `Headers` would refuse.
const NOT_IN_HEADER_NAME = /[^!#$%&'*+.^_`|~0-9a-z-]/g;

/** A header name scrubbed as a value is, then reduced to what a header name may hold. */
function scrubHeaderName(name: string, secrets: readonly string[]): string {
  const scrubbed = scrubServerText(name, secrets);
  if (scrubbed === name) return name;
  return scrubbed.toLowerCase().replace(NOT_IN_HEADER_NAME, '') || 'redacted';
}

/** Reads `Retry-After` as seconds, from delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | null): number | null {
  if (value === null || value.trim() === '') return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(value);
  if (Number.isNaN(date)) return null;
  return Math.max(0, Math.ceil((date - Date.now()) / 1000));
}
