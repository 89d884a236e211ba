/**
 * Every error the SDK throws, and the one function that turns a failed response into the right
 * class (api-contract.md §7, sdk-design.md "Errors").
 *
 * No error here keeps a request, a request body, a response body or a `cause` that could hold
 * one: the `Authorization` header and secret values must never reach a log or a stack.
 */

/**
 * Base class of every error thrown by the SDK, so `instanceof SecretsVaultError` catches them all.
 *
 * @example
 * ```ts
 * try {
 *   await client.vaults.get('vlt_123');
 * } catch (error) {
 *   if (error instanceof SecretsVaultError) console.error(error.message);
 * }
 * ```
 */
export class SecretsVaultError extends Error {
  override name = 'SecretsVaultError';
}

/** The parsed response headers and request id shared by every error that saw a response. */
export interface APIErrorInit {
  /** HTTP status of the response. */
  readonly status: number;
  /** The envelope's `errorCode`, or `null` when the response was not a failure envelope. */
  readonly code: string | null;
  /** The envelope's `message`, already scrubbed of the token and of secret values. */
  readonly message: string | null;
  /** Response headers. */
  readonly headers: Headers;
  /** How many attempts the call made, retries included. @default 1 */
  readonly attempts?: number;
  /** The `Idempotency-Key` the call sent, when it sent one. @default null */
  readonly idempotencyKey?: string | null;
}

/** What a failed call tried: how many attempts, and under which idempotency key. */
export interface AttemptDetails {
  /** How many attempts the call made, retries included. @default 1 */
  readonly attempts?: number;
  /** The `Idempotency-Key` the call sent, when it sent one. @default null */
  readonly idempotencyKey?: string | null;
  /** The underlying failure, such as the runtime's network error (never a request). */
  readonly cause?: Error;
}

/**
 * An error answered by the service: a non-2xx response. Subclasses name the status or the
 * `errorCode`; match on them (or on `code`), never on `message` (api-contract.md §7).
 */
export class APIError extends SecretsVaultError {
  override name = 'APIError';
  /** HTTP status of the response. */
  readonly status: number;
  /** Stable machine-readable `errorCode` of the envelope, or `null` when the body had none. */
  readonly code: string | null;
  /** Value of the `X-Request-Id` response header: quote it when asking the service's operators. */
  readonly requestId: string | null;
  /** Response headers. */
  readonly headers: Headers;
  /** How many attempts the call made before this answer, retries included. */
  readonly attempts: number;
  /** The `Idempotency-Key` the call sent (the same on every attempt), or `null`. */
  readonly idempotencyKey: string | null;

  constructor(init: APIErrorInit) {
    super(init.message ?? `Request failed with status ${init.status}`);
    this.status = init.status;
    this.code = init.code;
    this.headers = init.headers;
    this.requestId = init.headers.get('x-request-id');
    this.attempts = init.attempts ?? 1;
    this.idempotencyKey = init.idempotencyKey ?? null;
  }
}

/** 400: the request was malformed, for example a body that is not a JSON object. */
export class BadRequestError extends APIError {
  override name = 'BadRequestError';
}

/** 400 `invalid_cursor`: the cursor is malformed or expired; start the listing again. */
export class InvalidCursorError extends BadRequestError {
  override name = 'InvalidCursorError';
}

/** 401: the token is missing, malformed or unknown. */
export class AuthenticationError extends APIError {
  override name = 'AuthenticationError';
}

/** 403: the token is valid but its role is too low for the operation. */
export class PermissionDeniedError extends APIError {
  override name = 'PermissionDeniedError';
}

/** 404: the resource does not exist, or is not visible to the caller. */
export class NotFoundError extends APIError {
  override name = 'NotFoundError';
}

/** 409: the request conflicts with the current state (for example demoting the last owner). */
export class ConflictError extends APIError {
  override name = 'ConflictError';
}

/** 409 `idempotency_in_progress`: a request with the same key is still running; retried. */
export class IdempotencyInProgressError extends ConflictError {
  override name = 'IdempotencyInProgressError';
}

/** 413: the request body is larger than the service accepts. */
export class PayloadTooLargeError extends APIError {
  override name = 'PayloadTooLargeError';
}

/** 422: the body is well-formed but a field breaks a rule of the service. */
export class UnprocessableEntityError extends APIError {
  override name = 'UnprocessableEntityError';
}

/** 422 `idempotency_key_reuse`: the key was already used with a different body. */
export class IdempotencyKeyReuseError extends UnprocessableEntityError {
  override name = 'IdempotencyKeyReuseError';
}

/** 429: too many requests; `retryAfter` says how long the service asked to wait. */
export class RateLimitError extends APIError {
  override name = 'RateLimitError';
  /** Seconds to wait from the `Retry-After` header, or `null` when it was absent or unreadable. */
  readonly retryAfter: number | null;

  constructor(init: APIErrorInit) {
    super(init);
    this.retryAfter = parseRetryAfter(init.headers.get('retry-after'));
  }
}

/** 5xx: the service (or a proxy in front of it) failed. */
export class InternalServerError extends APIError {
  override name = 'InternalServerError';
}

/** No response arrived: DNS, refused or reset connection, offline. */
export class APIConnectionError extends SecretsVaultError {
  override name = 'APIConnectionError';
  /** How many attempts the call made, retries included. */
  readonly attempts: number;
  /** The `Idempotency-Key` the call sent (the same on every attempt), or `null`. */
  readonly idempotencyKey: string | null;

  constructor(
    message = 'Connection error: no response was received',
    details: AttemptDetails = {},
  ) {
    super(message, details.cause ? { cause: details.cause } : undefined);
    this.attempts = details.attempts ?? 1;
    this.idempotencyKey = details.idempotencyKey ?? null;
  }
}

/** An attempt (`timeout`) or the whole call (`totalTimeout`) took longer than allowed. */
export class APITimeoutError extends APIConnectionError {
  override name = 'APITimeoutError';

  constructor(message = 'Request timed out', details: AttemptDetails = {}) {
    super(message, details);
  }
}

/** The caller's `AbortSignal` fired: the call was cancelled on purpose and is not retried. */
export class APIUserAbortError extends SecretsVaultError {
  override name = 'APIUserAbortError';

  constructor(message = 'Request was aborted by the caller') {
    super(message);
  }
}

/** One rule that a value broke, located by its path in the request or response. */
export interface ValidationIssue {
  /** Where the value sits, such as `['value', 'password']` or `['data', 3, 'created_at']`. */
  readonly path: ReadonlyArray<string | number>;
  /** What was expected, written for people; never the value itself. */
  readonly message: string;
}

/**
 * Bad input caught before anything was sent: a rule of the contract, such as `limit` outside
 * 1 to 100, a body over 1 MB, or a secret value that is not an object of strings.
 */
export class RequestValidationError extends SecretsVaultError {
  override name = 'RequestValidationError';
  /** Every rule the input broke. */
  readonly issues: readonly ValidationIssue[];

  constructor(issues: readonly ValidationIssue[]) {
    super(`Invalid request: ${formatIssues(issues)}`);
    this.issues = issues;
  }
}

/**
 * A response that is not the contract's envelope, or whose `data` does not fit the resource's
 * schema. It names the failing paths but never carries the body, which may hold secret values.
 */
export class ResponseValidationError extends SecretsVaultError {
  override name = 'ResponseValidationError';
  /** HTTP status of the response. */
  readonly status: number;
  /** Value of the `X-Request-Id` response header. */
  readonly requestId: string | null;
  /** Every rule the response broke. */
  readonly issues: readonly ValidationIssue[];

  constructor(status: number, headers: Headers, issues: readonly ValidationIssue[]) {
    super(`Unexpected response (status ${status}): ${formatIssues(issues)}`);
    this.status = status;
    this.requestId = headers.get('x-request-id');
    this.issues = issues;
  }
}

function formatIssues(issues: readonly ValidationIssue[]): string {
  return issues
    .map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')}: ` : '') + issue.message)
    .join('; ');
}

type APIErrorClass = new (init: APIErrorInit) => APIError;

// errorCode first, then status (sdk-design.md "Errors"), as stripe-node does.
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
 * @param sensitive - strings (the token, secret values sent) to scrub from the server's message
 */
export function makeAPIError(
  status: number,
  headers: Headers,
  body: unknown,
  sensitive: readonly string[],
  details: Omit<AttemptDetails, 'cause'> = {},
): APIError {
  const envelope = readFailureEnvelope(status, body);
  const code = envelope?.errorCode ?? null;
  const message = envelope?.message == null ? null : redact(envelope.message, sensitive);
  const ErrorClass = classFor(status, code);
  return new ErrorClass({ status, code, message, headers, ...details });
}

/** The `errorCode` of a body when it is a well-formed failure envelope for `status`. */
export function failureCode(status: number, body: unknown): string | undefined {
  return readFailureEnvelope(status, body)?.errorCode;
}

function readFailureEnvelope(
  status: number,
  body: unknown,
): { errorCode: string; message: string | null } | undefined {
  let parsed = body;
  if (typeof body === 'string') {
    try {
      parsed = JSON.parse(body);
    } catch {
      return undefined;
    }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const { statusCode, errorCode, message, data } = parsed as Record<string, unknown>;
  if (statusCode !== status || typeof errorCode !== 'string' || data != null) return undefined;
  return { errorCode, message: typeof message === 'string' ? message : null };
}

const REDACTED = '[REDACTED]';
// Shorter strings match ordinary words in a message; scrubbing them would garble it for nothing.
const MIN_REDACTED_LENGTH = 4;

/**
 * Replaces every occurrence of a sensitive string in `text`, longest first so that a value that
 * contains another is scrubbed whole.
 */
export function redact(text: string, sensitive: readonly string[]): string {
  let result = text;
  const candidates = sensitive
    .filter((value) => value.length >= MIN_REDACTED_LENGTH)
    .sort((a, b) => b.length - a.length);
  for (const value of candidates) result = result.replaceAll(value, REDACTED);
  return result;
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
