/**
 * Logging of requests, responses and retries. A log line carries the method, the path, the
 * status, the attempt, the duration, the request id and the idempotency key: never a header,
 * a body, a token or a secret value. None of them is handed to the logger, and every string of a
 * line (the server's request id above all, which a server may fill with what it was sent) is
 * scrubbed of them as an error's text is.
 */

/** How much the SDK logs, from nothing to every attempt. */
export type LogLevel = 'off' | 'error' | 'warn' | 'info' | 'debug';

/** Structured facts of one log line; every value is safe to print. */
export interface LogFields {
  readonly method: string;
  /** Path and query of the request, such as `/v1/vaults?limit=20`. */
  readonly path: string;
  readonly attempt: number;
  readonly status?: number;
  readonly durationMs?: number;
  readonly requestId?: string | null;
  readonly idempotencyKey?: string | null;
  /** The error class or status that caused a retry or a failure. */
  readonly reason?: string;
  /**
   * What a failed attempt or call failed on, where `reason` names only a wrapper: the HTTP
   * status, else the system error code (`ECONNREFUSED`), else the innermost error class
   * (`TimeoutError`).
   */
  readonly cause?: string;
}

/**
 * Where log lines go: `console` fits, as does any logger with these four methods (pino,
 * winston, a test spy). A method that throws is ignored.
 */
export interface Logger {
  /** Each attempt as it is sent. */
  debug(message: string, fields: LogFields): void;
  /** Each 2xx answer. */
  info(message: string, fields: LogFields): void;
  /** Each non-2xx answer, dropped connection and retry. */
  warn(message: string, fields: LogFields): void;
  /** Each call that fails, with the error class. */
  error(message: string, fields: LogFields): void;
}

const LEVELS: readonly LogLevel[] = ['off', 'error', 'warn', 'info', 'debug'];

/** @internal Whether `value` names a log level. */
export function isLogLevel(value: unknown): value is LogLevel {
  return LEVELS.includes(value as LogLevel);
}

/** @internal Drops lines below the configured level before they reach the logger. */
export class LevelLogger {
  readonly #logger: Logger;
  readonly #rank: number;

  constructor(logger: Logger, level: LogLevel) {
    this.#logger = logger;
    this.#rank = LEVELS.indexOf(level);
  }

  /** Whether lines of `level` reach the logger: a line that would not is never built. */
  enabled(level: Exclude<LogLevel, 'off'>): boolean {
    return LEVELS.indexOf(level) <= this.#rank;
  }

  log(level: Exclude<LogLevel, 'off'>, message: string, fields: LogFields): void {
    if (!this.enabled(level)) return;
    try {
      const result: unknown = this.#logger[level](message, fields);
      // An async logger's rejection would otherwise be an unhandled rejection.
      if (typeof (result as PromiseLike<unknown> | undefined)?.then === 'function') {
        (result as PromiseLike<unknown>).then(undefined, () => undefined);
      }
    } catch {
      // A logger is an observer: one that throws must never turn a success into a failure
      // (or a failure into a retry), so its error is dropped.
    }
  }
}
