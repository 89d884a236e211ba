/**
 * What the request path reports about a call, to whatever records it: the `telemetry` option.
 * The client knows only this interface; `@secrets-vault/sdk/opentelemetry` implements it on
 * OpenTelemetry, so the package root and the browser build never load a tracing library.
 *
 * Everything handed over here is safe to record: no header, no body, no token, no secret value.
 * URLs and messages are scrubbed of the call's token and values before they are passed.
 */

/**
 * How a client reports its calls: one operation per public call (and per page a list fetches),
 * one attempt per HTTP request under it. Made by `openTelemetry()` from
 * `@secrets-vault/sdk/opentelemetry`; give it as the client's `telemetry` option.
 */
export interface Telemetry {
  /**
   * Starts the record of one operation, named as the user called it (`vaults.get`,
   * `secrets.load`), before its first attempt.
   */
  startOperation(operation: OperationStart): OperationRecord;
}

/** What is known of an operation when it starts. */
export interface OperationStart {
  /** The method as the user calls it: `vaults.get`, `vaults.members.create`, `secrets.load`. */
  readonly name: string;
  /** The URL of its first attempt, query included: where the service is. */
  readonly url: string;
}

/** The record of one operation, ended once. */
export interface OperationRecord {
  /** Starts the record of one HTTP attempt of the operation, just before it is sent. */
  startAttempt(attempt: AttemptStart): AttemptRecord;
  /**
   * Ends the operation: `error` when it failed. `attempts` is how many HTTP attempts it made.
   */
  end(outcome: OperationEnd): void;
}

/** What is known of an attempt when it starts. */
export interface AttemptStart {
  /** `GET`, `POST`, `PATCH` or `DELETE`. */
  readonly method: string;
  /** The route's path template under the base URL's path: `/v1/vaults/{vaultId}`. */
  readonly urlTemplate: string;
  /** The URL sent to, query included. */
  readonly url: string;
  /** 0 for the first attempt, then 1, 2, … for each retry. */
  readonly resendCount: number;
}

/** The record of one attempt, ended once. */
export interface AttemptRecord {
  /**
   * Headers to send with the attempt (W3C `traceparent`, `tracestate`): added to the request,
   * they are never recorded themselves.
   */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * Runs the sending of the attempt, so that what records HTTP requests on its own (an
   * instrumentation of `node:http` or of `fetch`) records it not a second time.
   */
  run<T>(send: () => Promise<T>): Promise<T>;
  /** Ends the attempt with what came of it. */
  end(outcome: AttemptEnd): void;
}

/** How an attempt ended. */
export interface AttemptEnd {
  /** The HTTP status, when a response came. */
  readonly status?: number | undefined;
  /**
   * Why it failed, when it did: the status as text for a failed status (`503`), else the system
   * error code (`ECONNREFUSED`) or the error's class name (`APITimeoutError`).
   */
  readonly errorType?: string | undefined;
}

/** How an operation ended. */
export interface OperationEnd {
  /** HTTP attempts made. */
  readonly attempts: number;
  /** The error's class name (`NotFoundError`), when the operation failed. */
  readonly errorType?: string | undefined;
  /** The error's message, scrubbed, when the operation failed. */
  readonly errorMessage?: string | undefined;
}
