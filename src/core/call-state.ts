/**
 * A call while it runs, as its logs and errors see it: what was sent, how many attempts, the
 * latest request id; the details every error of the call carries; its log lines, scrubbed.
 */

import type { CallDetails } from './errors.js';
import type { LevelLogger, LogFields, LogLevel } from './logger.js';
import { scrubServerText, sensitiveStrings } from './redaction.js';
import type { BuiltRequest } from './route.js';
import type { HttpResponseHead } from './transport/sender.js';

/**
 * @internal What a call is while it runs, for its logs and errors: the request, how many
 * attempts it has made, the latest request id. Everything else lives in the loop's locals.
 */
export interface CallState {
  readonly request: BuiltRequest;
  readonly logger: LevelLogger | undefined;
  attempts: number;
  /** `X-Request-Id` of the latest response. */
  requestId: string | null;
  /**
   * What the latest retried attempt failed with (`attempt 4 failed with ECONNREFUSED`): a call
   * that then runs out of time says so, since the attempt the deadline cut tells nothing of why
   * the service was unavailable.
   */
  retried?: string;
  /** The strings to scrub from what a server says, worked out when first needed. */
  secrets?: readonly string[] | undefined;
}

/** What one attempt came to: a whole response (any status), or what was thrown instead. */
export type AttemptOutcome =
  | { readonly response: Response; readonly head: HttpResponseHead; readonly text: string }
  | { readonly thrown: unknown };

/** @internal The details every error of this call carries. */
export function detailsOf(call: CallState): CallDetails {
  return {
    method: call.request.method,
    path: call.request.template,
    attempts: call.attempts,
    idempotencyKey: call.request.idempotencyKey,
    // The server's own words: it may echo what it was sent (the Authorization header) there.
    requestId: call.requestId === null ? null : scrub(call, call.requestId),
  };
}

/** @internal The strings to scrub from what a server says about `call`: its token and values. */
export function secretsOf(call: CallState): readonly string[] {
  call.secrets ??= sensitiveStrings(call.request.sensitive);
  return call.secrets;
}

/** @internal `text` with the call's token and secret values scrubbed, however a server escaped them. */
export function scrub(call: CallState, text: string): string {
  return scrubServerText(text, secretsOf(call));
}

/**
 * @internal Logs one line about `call`: `<prefix> <method> <path><suffix>`, with the fields every line of
 * a call carries (method, path, attempt, idempotency key) and `extra`. Every string of the line
 * is scrubbed as an error's text is: the request id is the server's to choose, and the rest
 * must not become the one way out for a token that a caller put in a path.
 */
export function note(
  call: CallState,
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
