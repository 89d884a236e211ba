/**
 * Telling a system error of the runtime (Node, Bun, Deno: `ECONNREFUSED` and its kin, with the
 * address) out of a failed fetch. The browser build replaces this module with
 * `system-error.browser.ts`: a browser's fetch gives no codes.
 */
import { oneLine } from '../redaction.js';

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

// What the server runtimes' fetch throws when no response arrived: Node (undici), Bun,
// Cloudflare Workers; Deno's message starts with the last one.
const RUNTIME_FETCH_FAILURES = new Set([
  'fetch failed',
  'terminated',
  ' A network error occurred.',
  'Network connection lost',
]);

/**
 * @internal Whether `message` is what a server runtime's fetch throws (as a `TypeError`) when no
 * response arrived.
 */
export function isRuntimeFetchFailure(message: string): boolean {
  return RUNTIME_FETCH_FAILURES.has(message) || message.startsWith('error sending request for url');
}

/**
 * @internal Whether `error`, or one of its causes, carries the code of a network failure, as
 * Node's own clients (and node-fetch) report them.
 */
export function hasNetworkErrorCode(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 4; depth += 1) {
    const { code } = current as { code?: unknown };
    if (typeof code === 'string' && NETWORK_ERROR_CODES.has(code)) return true;
    current = current.cause;
  }
  return false;
}

/** @internal A system error's code, and where it happened when the runtime says. */
export interface SystemError {
  readonly code: string;
  readonly where: string | undefined;
}

/**
 * @internal The runtime's error code and the address it failed on, found by walking `cause`
 * chains and AggregateError lists (Node tries every address of a host).
 */
export function findSystemError(root: unknown): SystemError | undefined {
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
