/**
 * Saying in one line why no response arrived. Runtimes bury the reason: Node's fetch throws
 * "fetch failed" with `ECONNREFUSED` and the address two `cause` levels down, and a browser
 * says only "Failed to fetch" whether the network is down or it refused the request itself.
 */
import { escapeControlCharacters } from './redaction.js';

/** @internal An attempt got its headers, then the body stopped before its end. */
export class ResponseBodyCutOff extends Error {
  override name = 'ResponseBodyCutOff';
}

// What browsers throw when fetch fails without a response: Chromium, Firefox, Safari.
const BROWSER_FETCH_FAILURES = new Set([
  'Failed to fetch',
  'NetworkError when attempting to fetch resource.',
  'Load failed',
]);

// What the other fetch implementations throw when no response arrived: Chromium's older text,
// Safari 16, cross-fetch and whatwg-fetch polyfills, Node (undici), Bun, Cloudflare Workers.
const FETCH_FAILURES = new Set([
  ...BROWSER_FETCH_FAILURES,
  'network error',
  'The Internet connection appears to be offline.',
  'Network request failed',
  'fetch failed',
  'terminated',
  ' A network error occurred.',
  'Network connection lost',
]);
// System errors that mean the network failed, as Node's own clients (and node-fetch) report them.
const NETWORK_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_CLOSED',
]);

/**
 * @internal Whether `error`, thrown by a `fetch`, says that no response arrived because the
 * network failed: the `TypeError` each runtime throws (with its reason in `cause` where it gives
 * one), or an error whose code (or whose cause's) is a network failure. Anything else a custom
 * `fetch` throws is its own failure, which a retry would only repeat.
 */
export function isNetworkFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { message } = error;
  if (
    error.name === 'TypeError' &&
    (FETCH_FAILURES.has(message) ||
      /^(Failed to fetch|Load failed) \(.*\)$/.test(message) ||
      message.startsWith('error sending request for url'))
  ) {
    return true;
  }
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 4; depth += 1) {
    const { code } = current as { code?: unknown };
    if (typeof code === 'string' && NETWORK_ERROR_CODES.has(code)) return true;
    current = current.cause;
  }
  return false;
}

/** Whether `error` is a browser's bare "no response" `TypeError`, which never says why. */
function isBareBrowserFailure(error: unknown): boolean {
  return (
    error instanceof TypeError &&
    error.cause === undefined &&
    BROWSER_FETCH_FAILURES.has(error.message)
  );
}

/**
 * @internal Whether a browser most likely refused a request to `url` itself: a bare failure,
 * while online, of a call to another origin than the page's. The service sends no CORS headers,
 * so a cross-origin call fails this way every time and no retry can fix it. A same-origin call
 * needs no CORS, so the same bare failure there is taken for what it usually is, a dropped
 * connection, and retried like one.
 */
export function isBlockedByBrowser(error: unknown, url: string): boolean {
  const navigator = (globalThis as { navigator?: { onLine?: boolean } }).navigator;
  return isBareBrowserFailure(error) && navigator?.onLine !== false && !isPageOrigin(url);
}

function isPageOrigin(url: string): boolean {
  const page = (globalThis as { location?: { origin?: unknown } }).location?.origin;
  if (typeof page !== 'string' || page === 'null') return false;
  try {
    return new URL(url).origin === page;
  } catch {
    return false;
  }
}

interface SystemError {
  readonly code: string;
  readonly where: string | undefined;
}

/** @internal One line saying what failed, such as `ECONNREFUSED 127.0.0.1:8200`. */
export function describeConnectionFailure(error: unknown, url: string): string {
  const host = hostOf(url);
  if (error instanceof ResponseBodyCutOff) {
    const system = findSystemError(error.cause);
    return `the response body was cut off${system ? ` (${system.code})` : ''}`;
  }
  if (isBlockedByBrowser(error, url)) {
    return `the request to ${host} was blocked by the browser (CORS or CSP?)`;
  }
  if (isBareBrowserFailure(error)) {
    return `no response from ${host} (the browser gives no reason: offline, or the connection dropped)`;
  }
  const system = findSystemError(error);
  if (system) return `${system.code} ${system.where ?? host}`;
  const message = innermostMessage(error);
  return message === undefined ? 'no response was received' : oneLine(message);
}

// Walks `cause` chains and AggregateError lists (Node tries every address of a host), looking
// for the runtime's error code and the address it failed on.
function findSystemError(root: unknown): SystemError | undefined {
  const queue: Array<{ value: unknown; depth: number }> = [{ value: root, depth: 0 }];
  let code: string | undefined;
  let where: string | undefined;
  while (queue.length > 0 && (code === undefined || where === undefined)) {
    const { value, depth } = queue.shift() ?? { value: undefined, depth: 0 };
    if (typeof value !== 'object' || value === null || depth > 5) continue;
    const record = value as Record<string, unknown>;
    if (
      code === undefined &&
      typeof record.code === 'string' &&
      /^[A-Z][A-Z0-9_]+$/.test(record.code)
    ) {
      code = record.code;
      // Every address of the host failed the same way: the host says it better than one of them.
      if (Array.isArray(record.errors) && record.errors.length > 1) break;
    }
    if (where === undefined) {
      if (typeof record.address === 'string') {
        const address = record.address.includes(':') ? `[${record.address}]` : record.address;
        where = typeof record.port === 'number' ? `${address}:${record.port}` : address;
      } else if (typeof record.hostname === 'string') {
        where = record.hostname;
      }
    }
    if ('cause' in record) queue.push({ value: record.cause, depth: depth + 1 });
    if (Array.isArray(record.errors)) {
      for (const item of record.errors) queue.push({ value: item, depth: depth + 1 });
    }
  }
  return code === undefined
    ? undefined
    : { code, where: where === undefined ? undefined : oneLine(where) };
}

function innermostMessage(error: unknown): string | undefined {
  let current = error;
  let message: string | undefined;
  for (let depth = 0; depth < 6 && current instanceof Error; depth += 1) {
    if (current.message !== '') message = current.message;
    current = current.cause;
  }
  return message;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the service';
  }
}

function oneLine(text: string): string {
  const line = text.split(/\r\n|\r|\n/, 1)[0] ?? '';
  return escapeControlCharacters(line.length > 200 ? `${line.slice(0, 200)}…` : line);
}
