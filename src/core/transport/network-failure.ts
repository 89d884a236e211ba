/**
 * Saying in one line why no response arrived. Runtimes bury the reason: Node's fetch throws
 * "fetch failed" with `ECONNREFUSED` and the address two `cause` levels down, and a browser
 * says only "Failed to fetch" whether the network is down or it refused the request itself.
 */
import { oneLine } from '../redaction.js';
import { BodyCutOff } from './sender.js';
import { findSystemError, hasNetworkErrorCode, isRuntimeFetchFailure } from './system-error.js';

// What browsers throw when fetch fails without a response: Chromium, Firefox, Safari.
const BROWSER_FETCH_FAILURES = new Set([
  'Failed to fetch',
  'NetworkError when attempting to fetch resource.',
  'Load failed',
]);

// What polyfills and older browsers throw when no response arrived: Chromium's older text,
// Safari 16, cross-fetch and whatwg-fetch (React Native's fetch among them).
const FETCH_FAILURES = new Set([
  ...BROWSER_FETCH_FAILURES,
  'network error',
  'The Internet connection appears to be offline.',
  'Network request failed',
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
      isRuntimeFetchFailure(message))
  ) {
    return true;
  }
  return hasNetworkErrorCode(error);
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

/** @internal One line saying what failed, such as `ECONNREFUSED 127.0.0.1:8200`. */
export function describeConnectionFailure(error: unknown, url: string): string {
  const host = hostOf(url);
  if (error instanceof BodyCutOff) {
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
