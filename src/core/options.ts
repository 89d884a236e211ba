/**
 * The client's options and every call's options, checked and resolved in one place. A bad option
 * is named in the error, never quoted: a base URL can hold a password, a header a credential.
 */
import { namingSetting, readEnv, readEnvSetting, readEnvToken } from './env.js';
import { SecretsVaultError, type ValidationIssue } from './errors.js';
import {
  DURATION_MESSAGE,
  isDuration,
  isRetryCount,
  RETRIES_MESSAGE,
  WAIT_MESSAGE,
} from './limits.js';
import { isLogLevel, LevelLogger, type Logger, type LogLevel } from './logger.js';
import { RetryBudget, type RetryBudgetOptions } from './retry.js';
import type { Telemetry } from './telemetry.js';

/** Options of {@link SecretsVault}. */
export interface ClientOptions {
  /**
   * Where the service lives, without `/v1` (paths are joined under it). An absolute http(s)
   * URL without credentials, query or fragment.
   * @default process.env.SECRETS_VAULT_BASE_URL, where `process` exists
   * @example 'https://vault.example.com'
   */
  readonly baseUrl?: string | undefined;
  /**
   * The access token sent as `Authorization: Bearer <token>`. It never appears in an error,
   * a log line or `console.log(client)`. Given, it wins over both environment variables.
   * @default process.env.SECRETS_VAULT_TOKEN, where `process` exists; in Node, Bun and Deno,
   *   else the content of the file `SECRETS_VAULT_TOKEN_FILE` names (a mounted container
   *   secret), one trailing newline dropped. Both set is an error: which one is stale cannot be
   *   told.
   */
  readonly token?: string | undefined;
  /**
   * Milliseconds allowed for each attempt of a request, from sending it to the last byte of
   * the response body: a whole number from 1 to 2147483647.
   * @default process.env.SECRETS_VAULT_TIMEOUT (milliseconds, or a duration such as `10s`) where
   *   `process` exists, else 30000
   */
  readonly timeout?: number | undefined;
  /**
   * Milliseconds allowed for a whole call: every attempt, every body read and every backoff
   * wait; unlimited when unset (each attempt still has `timeout`).
   */
  readonly totalTimeout?: number | undefined;
  /**
   * How many times a failed request is retried (only where it is safe: see the README): any
   * whole number from 0, or `Infinity` (retry until the call succeeds, fails with a verdict,
   * hits `totalTimeout` or its `signal`, or the retry budget runs out). Waits between retries
   * are capped at 8 s, so a large count means a long call, never a fast loop.
   * @default process.env.SECRETS_VAULT_MAX_RETRIES where `process` exists, else 2
   */
  readonly maxRetries?: number | undefined;
  /**
   * The retry budget shared by every call of this client: retries spend tokens and successes
   * refill them, so when most recent attempts fail the client stops retrying and fails fast
   * instead of multiplying the load on a struggling service. `false` turns it off.
   * @default { capacity: 500, retryCost: 5, timeoutCost: 10 }
   */
  readonly retryBudget?: RetryBudgetOptions | false | undefined;
  /**
   * Where to send log lines (method, path, status, attempt, duration, request id, idempotency
   * key; never headers, bodies, tokens or secret values). A logger that throws is ignored: it
   * can never change the outcome of a call.
   * @default console
   */
  readonly logger?: Logger | undefined;
  /**
   * How much to log.
   * @default process.env.SECRETS_VAULT_LOG where `process` exists, else `'info'` when a
   *   `logger` is given and `'off'` otherwise
   */
  readonly logLevel?: LogLevel | undefined;
  /**
   * A `fetch` to send requests with, for example one that adds tracing; it sends every request
   * of the client.
   * @default in Node, `node:http` with keep-alive connections (or `globalThis.fetch` once a test
   *   tool has replaced it, or with `SECRETS_VAULT_TRANSPORT=fetch`); elsewhere `globalThis.fetch`
   */
  readonly fetch?: typeof globalThis.fetch | undefined;
  /**
   * Extra headers on every request. `Authorization`, `Accept`, `Content-Type` and
   * `Idempotency-Key` are the client's own: one given here is ignored. The headers that frame
   * or route a request are refused (the constructor throws): `Host`, `Content-Length`,
   * `Transfer-Encoding`, `Connection`, `Keep-Alive`, `Upgrade`, `TE`, `Trailer`, `Expect` and
   * every `Proxy-*` header, whatever their case. The transport sets those itself, and a value
   * of the caller's could split the request in two or send it elsewhere.
   * @default {}
   * @example { 'X-Tenant': 'acme' }
   */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  /**
   * How the client reports its calls: an operation span per call and a CLIENT span per HTTP
   * attempt, with `openTelemetry()` from `@secrets-vault/sdk/opentelemetry`. Never a header, a
   * body, a token or a secret value in what is reported.
   * @default nothing is reported, and nothing is loaded for it
   * @example openTelemetry()
   */
  readonly telemetry?: Telemetry | undefined;
}

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
  readonly signal?: AbortSignal | undefined;
  /** Milliseconds allowed for each attempt, body included. @default the client's `timeout` */
  readonly timeout?: number | undefined;
  /**
   * Milliseconds allowed for the whole call, retries, body reads and waits included.
   * @default the client's `totalTimeout`
   */
  readonly totalTimeout?: number | undefined;
  /**
   * Retries after the first attempt: a whole number from 0, or `Infinity`.
   * @default the client's `maxRetries`
   */
  readonly maxRetries?: number | undefined;
  /**
   * Extra headers for this call, on top of the client's. `Authorization`, `Accept`,
   * `Content-Type` and `Idempotency-Key` are the client's own: one given here is ignored. The
   * headers that frame or route a request (`Host`, `Content-Length`, `Transfer-Encoding`,
   * `Connection`, `Keep-Alive`, `Upgrade`, `TE`, `Trailer`, `Expect`, every `Proxy-*` header,
   * whatever their case) are refused with {@link RequestValidationError} before anything is
   * sent.
   */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  /**
   * The `Idempotency-Key` of a creating POST, for example the id of the job that creates the
   * resource, so that a re-run of the job replays instead of creating twice. Ignored by other
   * methods. @default a random UUID per call
   */
  readonly idempotencyKey?: string | undefined;
}

/** @internal The client's settings, checked once at construction. */
export interface ClientConfig {
  /** The base URL with `/v1` joined and no trailing slash. */
  readonly apiRoot: string;
  /** The path of {@link ClientConfig.apiRoot}, such as `/v1` or `/gateway/v1`, for logs. */
  readonly apiPath: string;
  readonly token: string;
  readonly timeout: number;
  readonly totalTimeout: number | undefined;
  readonly maxRetries: number;
  /** The startup wait of `load` and its kin when the call names none (milliseconds). */
  readonly wait: number;
  /**
   * The headers of every request, names in lower case: the client's own, then `accept` and
   * `authorization`, which they cannot replace. Built once; never mutated.
   */
  readonly headers: Readonly<Record<string, string>>;
  readonly fetch: typeof globalThis.fetch | undefined;
  readonly retryBudget: RetryBudget | undefined;
  readonly logger: LevelLogger | undefined;
  readonly telemetry: Telemetry | undefined;
}

/** @internal What one call runs with: the client's settings overridden by the call's options. */
export interface CallSettings {
  readonly timeout: number;
  readonly totalTimeout: number | undefined;
  readonly maxRetries: number;
  /**
   * Milliseconds to keep retrying an unavailable service (a startup call), `0` for the ordinary
   * retry policy.
   */
  readonly wait: number;
  readonly signal: AbortSignal | undefined;
  /**
   * The client's headers with the call's on top (names in lower case); the client's own object
   * when the call adds none. Never mutated.
   */
  readonly headers: Readonly<Record<string, string>>;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_RETRIES = 2;
/** @internal How long a startup call waits out an unavailable service by default. */
export const DEFAULT_WAIT_MS = 60_000;
// A token goes into a header: visible ASCII only, so `Headers` never throws with it in a message.
const VALID_TOKEN = /^[\x21-\x7e]+$/;

const BASE_URL_VARIABLE = 'SECRETS_VAULT_BASE_URL';
const TOKEN_VARIABLE = 'SECRETS_VAULT_TOKEN';

/**
 * A construction error: `what` is wrong with the option `option`, which the environment
 * variable `variable` can also set; `rule` is the rule its value breaks, absent when it is
 * missing. The message names the option and the variable; the command says it with the variable
 * alone.
 */
function optionError(
  what: string,
  option: string,
  variable: string,
  rule?: string,
): SecretsVaultError {
  const message =
    rule === undefined
      ? `${what}: pass \`${option}\` to new SecretsVault() or set ${variable}`
      : `${what}: \`${option}\` (or ${variable}) ${rule}`;
  return namingSetting(new SecretsVaultError(message), what, variable, rule);
}

/**
 * @internal Checks the client's options and resolves their defaults.
 * @throws {SecretsVaultError} naming the first bad option (and its environment variable)
 */
export function resolveClientOptions(options: ClientOptions): ClientConfig {
  if (typeof options !== 'object' || options === null) {
    throw new SecretsVaultError('Invalid options: new SecretsVault() takes an options object');
  }
  const baseUrl = options.baseUrl ?? readEnv('SECRETS_VAULT_BASE_URL');
  if (baseUrl === undefined || baseUrl === '') {
    throw optionError('Missing base URL', 'baseUrl', BASE_URL_VARIABLE);
  }
  const baseUrlProblem = describeBaseUrl(baseUrl);
  if (baseUrlProblem) {
    throw optionError('Invalid base URL', 'baseUrl', BASE_URL_VARIABLE, baseUrlProblem);
  }
  // The option wins over the environment, which is not read at all then (as for every option).
  const fromEnv = options.token === undefined ? readEnvToken() : undefined;
  const token = options.token ?? fromEnv?.token;
  if (token === undefined || token === '') {
    throw optionError('Missing token', 'token', TOKEN_VARIABLE);
  }
  if (typeof token !== 'string' || !VALID_TOKEN.test(token)) {
    throw optionError(
      'Invalid token',
      'token',
      fromEnv?.variable ?? TOKEN_VARIABLE,
      'must be printable ASCII without spaces',
    );
  }
  // The environment tunes a job without code (as AWS_MAX_ATTEMPTS does); code wins over it.
  const timeout =
    options.timeout ?? readEnvSetting('SECRETS_VAULT_TIMEOUT', 'timeout') ?? DEFAULT_TIMEOUT_MS;
  const { totalTimeout } = options;
  const maxRetries =
    options.maxRetries ??
    readEnvSetting('SECRETS_VAULT_MAX_RETRIES', 'maxRetries') ??
    DEFAULT_MAX_RETRIES;
  const wait = readEnvSetting('SECRETS_VAULT_WAIT', 'wait') ?? DEFAULT_WAIT_MS;
  const issues = [
    ...timingIssues(timeout, totalTimeout, maxRetries),
    ...headerIssues(options.headers),
    ...budgetIssues(options.retryBudget),
  ];
  if (options.fetch !== undefined && typeof options.fetch !== 'function') {
    issues.push({ path: ['fetch'], message: 'must be a fetch function' });
  }
  if (options.logger !== undefined && !isLogger(options.logger)) {
    issues.push({ path: ['logger'], message: 'must have debug, info, warn and error methods' });
  }
  if (
    options.telemetry !== undefined &&
    typeof (options.telemetry as Partial<Telemetry> | null)?.startOperation !== 'function'
  ) {
    issues.push({ path: ['telemetry'], message: 'must be made by openTelemetry()' });
  }
  const [first] = issues;
  if (first !== undefined) {
    throw new SecretsVaultError(`Invalid option \`${first.path.join('.')}\`: ${first.message}`);
  }
  // The environment is read only when the option is absent: Deno without --allow-env refuses it.
  const logLevel =
    options.logLevel ?? readEnv('SECRETS_VAULT_LOG') ?? (options.logger ? 'info' : 'off');
  if (!isLogLevel(logLevel)) {
    throw optionError(
      'Invalid log level',
      'logLevel',
      'SECRETS_VAULT_LOG',
      'must be off, error, warn, info or debug',
    );
  }
  return {
    apiRoot: `${baseUrl.replace(/\/+$/, '')}/v1`,
    apiPath: `${new URL(baseUrl).pathname.replace(/\/+$/, '')}/v1`,
    token,
    timeout,
    totalTimeout,
    maxRetries,
    wait,
    headers: withFixedHeaders({}, options.headers, token),
    fetch: options.fetch,
    retryBudget: options.retryBudget === false ? undefined : new RetryBudget(options.retryBudget),
    logger: logLevel === 'off' ? undefined : new LevelLogger(options.logger ?? console, logLevel),
    telemetry: options.telemetry,
  };
}

/**
 * @internal Resolves one call's settings, adding an issue for each bad option to `issues`.
 * `wait` is a startup call's own wait (`'default'` for the client's); absent for every other
 * call. A call that sets its own `maxRetries` asks for the ordinary policy with that count.
 */
export function resolveCallSettings(
  config: ClientConfig,
  options: RequestOptions,
  issues: ValidationIssue[],
  wait?: number | 'default',
): CallSettings {
  const timeout = options.timeout ?? config.timeout;
  const totalTimeout = options.totalTimeout ?? config.totalTimeout;
  const maxRetries = options.maxRetries ?? config.maxRetries;
  issues.push(...timingIssues(timeout, totalTimeout, maxRetries));
  let callWait = wait === undefined ? 0 : wait === 'default' ? config.wait : wait;
  if (!isWait(callWait)) {
    issues.push({ path: ['wait'], message: WAIT_MESSAGE });
    callWait = 0;
  }
  // A call's own retry count asks for the ordinary policy: no wait.
  if (options.maxRetries !== undefined) callWait = 0;
  const signal = isAbortSignal(options.signal) ? options.signal : undefined;
  if (options.signal !== undefined && signal === undefined) {
    issues.push({ path: ['signal'], message: 'must be an AbortSignal' });
  }
  const callHeaderIssues = headerIssues(options.headers);
  issues.push(...callHeaderIssues);
  const headers =
    options.headers === undefined || callHeaderIssues.length > 0
      ? config.headers
      : withFixedHeaders(config.headers, options.headers, config.token);
  return {
    timeout,
    totalTimeout,
    maxRetries,
    wait: callWait,
    signal,
    headers,
  };
}

/**
 * `base` with `extra` on top, then the headers no option may set: a plain record with names in
 * lower case (as `Headers` compares them), built once per client and only copied for a call
 * that adds headers of its own.
 */
function withFixedHeaders(
  base: Readonly<Record<string, string>>,
  extra: Readonly<Record<string, string>> | undefined,
  token: string,
): Readonly<Record<string, string>> {
  const headers: Record<string, string> = { ...base };
  for (const [name, value] of Object.entries(extra ?? {})) headers[name.toLowerCase()] = value;
  // The request builder adds these two where they belong; an option cannot.
  delete headers['idempotency-key'];
  delete headers['content-type'];
  headers.accept = 'application/json';
  headers.authorization = `Bearer ${token}`;
  return headers;
}

const isWait = isRetryCount;

function timingIssues(
  timeout: unknown,
  totalTimeout: unknown,
  maxRetries: unknown,
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  if (!isDuration(timeout)) issues.push({ path: ['timeout'], message: DURATION_MESSAGE });
  if (totalTimeout !== undefined && !isDuration(totalTimeout)) {
    issues.push({ path: ['totalTimeout'], message: DURATION_MESSAGE });
  }
  if (!isRetryCount(maxRetries)) {
    issues.push({ path: ['maxRetries'], message: RETRIES_MESSAGE });
  }
  return issues;
}

// RFC 9110 `token`: what `Headers` accepts as a name.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// A header value is a byte string without NUL, CR or LF; anything else makes `Headers` throw
// with the value in its message, or would split the header on the wire.
const HEADER_VALUE = /^[^\0\r\n\u0100-\uffff]*$/;

// Headers that frame or route a request on the wire: the transport sets them (node:http and fetch
// each their own way), and a caller's value could make a server or a proxy on the way read two
// requests where one was sent, or send it to another host. Refused on every transport alike.
const FRAMING_HEADER =
  /^(?:host|content-length|transfer-encoding|connection|keep-alive|upgrade|te|trailer|expect|proxy-.*)$/i;

/** @internal Whether a header (any case) is one the transport alone may set. */
export function isFramingHeader(name: string): boolean {
  return FRAMING_HEADER.test(name);
}

const FRAMING_MESSAGE = "is the transport's own: it frames and routes the request";

/** Issues with a headers option; names a bad header by its name only when the name is valid. */
function headerIssues(headers: unknown): ValidationIssue[] {
  if (headers === undefined) return [];
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) {
    return [{ path: ['headers'], message: 'must be an object of header names to string values' }];
  }
  const issues: ValidationIssue[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name)) {
      issues.push({
        path: ['headers'],
        message: 'has a name that is not a valid HTTP header name',
      });
    } else if (isFramingHeader(name)) {
      issues.push({ path: ['headers', name], message: FRAMING_MESSAGE });
    } else if (typeof value !== 'string' || !HEADER_VALUE.test(value)) {
      issues.push({
        path: ['headers', name],
        message: 'must be a string without line breaks, NUL or characters above U+00FF',
      });
    }
  }
  return issues;
}

function budgetIssues(budget: unknown): ValidationIssue[] {
  if (budget === undefined || budget === false) return [];
  if (typeof budget !== 'object' || budget === null) {
    return [{ path: ['retryBudget'], message: 'must be an object or false' }];
  }
  const issues: ValidationIssue[] = [];
  for (const name of ['capacity', 'retryCost', 'timeoutCost'] as const) {
    const value = (budget as RetryBudgetOptions)[name];
    // Number.isInteger is false for anything but a number.
    if (value !== undefined && !(Number.isInteger(value) && value >= 0)) {
      issues.push({
        path: ['retryBudget', name],
        message: 'must be a whole number of tokens, 0 or more',
      });
    }
  }
  return issues;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

/** Why a base URL is unusable (said without quoting it), or undefined when it is fine. */
function describeBaseUrl(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'must be a string';
  // The URL parser drops surrounding whitespace, stray tabs and line breaks, but the client joins
  // paths to the string as given, and every call would then fail with a bare TypeError.
  if (value !== value.trim() || CONTROL_CHARACTER.test(value)) {
    return 'must not start or end with whitespace, nor contain a line break or other control character';
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute http(s) URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http(s) URL';
  // Credentials in the URL would travel in the clear to every log that prints a request.
  if (url.username !== '' || url.password !== '') {
    return 'must not contain credentials (user:password@); give the token on its own';
  }
  // Any `?` or `#`, even that of an empty query or fragment, which the URL parser drops.
  if (/[?#]/.test(value)) {
    return 'must not have a query or a fragment';
  }
  // Paths are joined under /v1 already: `…/v1` would ask for /v1/v1/vaults and get 404s.
  if (/\/v1\/*$/.test(url.pathname)) {
    return `must not end with /v1 (the SDK adds it); use ${url.origin}${url.pathname.replace(/\/v1\/*$/, '')}`;
  }
  return undefined;
}

function isLogger(value: unknown): value is Logger {
  if (typeof value !== 'object' || value === null) return false;
  const logger = value as Record<string, unknown>;
  return ['debug', 'info', 'warn', 'error'].every((level) => typeof logger[level] === 'function');
}

function isAbortSignal(value: unknown): value is AbortSignal {
  return typeof AbortSignal !== 'undefined' && value instanceof AbortSignal;
}
