/**
 * When a failed attempt is tried again and how long to wait first: the one retry policy of the
 * client. ky runs the loop (its timers, `totalTimeout`, hooks); this module decides every retry
 * and computes every wait, so ky's own Retry-After handling and jitter never apply.
 *
 * Two modes: the ordinary one (at most `maxRetries` retries) and the startup one (`wait`: keep
 * retrying an unavailable service until a deadline). Both draw waits from the same curve.
 */
import { isHTTPError, isNetworkError, isTimeoutError, type RetryOptions } from 'ky';
import { readFailureEnvelope } from './envelope.js';
import { parseRetryAfter } from './errors.js';
import { isBlockedByBrowser } from './network-failure.js';

const BACKOFF_BASE_MS = 500;
const BACKOFF_CAP_MS = 8_000;

// The last attempt of a startup wait starts at least this long before the deadline, so that it is
// sent rather than timed out at once.
const LAST_ATTEMPT_MARGIN_MS = 5;

/** Longest `Retry-After` the SDK waits for; a longer one fails the call at once. */
export const MAX_RETRY_AFTER_MS = 60_000;

/**
 * @internal Whether a status says "unavailable, come back later" (408, 429, any 5xx), as opposed
 * to a verdict on the request that a retry would only repeat.
 */
export function isUnavailableStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status <= 599);
}

// ky's limit must be a finite whole number; the policy below ends unlimited retries itself.
const UNLIMITED = Number.MAX_SAFE_INTEGER;

/**
 * Settings of the retry budget, a token bucket in the spirit of the AWS SDKs' standard retry
 * mode: each retry spends tokens, each success returns some, and when the bucket is empty the
 * client stops retrying and fails fast until successes refill it.
 */
export interface RetryBudgetOptions {
  /** Tokens in a full bucket. @default 500 */
  readonly capacity?: number | undefined;
  /** Tokens a retry after an error response or a dropped connection costs. @default 5 */
  readonly retryCost?: number | undefined;
  /** Tokens a retry after a timeout costs (timeouts hint at overload). @default 10 */
  readonly timeoutCost?: number | undefined;
}

/**
 * @internal A client's retry token bucket. It protects the service from one long-lived client's
 * call volume; it cannot protect it from a fleet of one-call processes (each has its own full
 * bucket): what protects the service there is the jittered, capped backoff.
 */
export class RetryBudget {
  readonly #capacity: number;
  readonly #retryCost: number;
  readonly #timeoutCost: number;
  #tokens: number;

  constructor(options: RetryBudgetOptions = {}) {
    this.#capacity = options.capacity ?? 500;
    this.#retryCost = options.retryCost ?? 5;
    this.#timeoutCost = options.timeoutCost ?? 10;
    this.#tokens = this.#capacity;
  }

  /** Takes the cost of one retry; false (and nothing taken) when the bucket cannot pay it. */
  tryAcquire(afterTimeout: boolean): number | undefined {
    const cost = afterTimeout ? this.#timeoutCost : this.#retryCost;
    if (this.#tokens < cost) return undefined;
    this.#tokens -= cost;
    return cost;
  }

  /** A call succeeded: refund what its retries cost, or one token when it needed none. */
  onSuccess(spent: number): void {
    this.#tokens = Math.min(this.#capacity, this.#tokens + (spent > 0 ? spent : 1));
  }
}

/** What the retry decision needs to know about one call. */
export interface RetryCall {
  readonly signal: AbortSignal | undefined;
  readonly budget: RetryBudget | undefined;
  /** `performance.now()` when the call started: the startup wait's deadline counts from it. */
  readonly startedAt: number;
  /** Tokens this call's retries have taken so far. */
  spent: number;
  /** Answers with a `Retry-After` so far in this call: each widens the next spread. */
  throttled: number;
  /** The wait before the next retry, decided with it. */
  nextDelay: number;
  /** Whether the startup wait's last retry, drawn within the deadline's last half second, was taken. */
  lastRetryTaken: boolean;
}

/** @internal How one call retries. */
export interface RetryPolicy {
  /** Retries after the first attempt, in the ordinary mode; may be `Infinity`. */
  readonly maxRetries: number;
  /**
   * Milliseconds to keep retrying an unavailable service (startup mode), measured from the
   * call's start; `0` for the ordinary mode; may be `Infinity`.
   */
  readonly wait: number;
}

/**
 * @internal The milliseconds a call may take in all, from its start: `totalTimeout`, and for a
 * startup call the end of its `wait` as well, so that an attempt still in flight then is cut and
 * the call ends at the deadline. `undefined` when nothing bounds the call.
 */
export function deadlineOf(
  policy: RetryPolicy,
  totalTimeout: number | undefined,
): number | undefined {
  // Past 2^31 - 1 ms (24.8 days) no timer can hold the deadline: such a wait is unbounded.
  if (policy.wait <= 0 || policy.wait > MAX_TIMER_MS) return totalTimeout;
  return totalTimeout === undefined ? policy.wait : Math.min(totalTimeout, policy.wait);
}

const MAX_TIMER_MS = 2_147_483_647;

/**
 * ky retry options for one call: ky asks {@link RetryCall}'s policy about every failure and
 * waits what it decided. Retried only where safe (GET, PATCH, DELETE, and POSTs that carry an
 * Idempotency-Key); `delay` hands ky the wait chosen with the decision.
 */
export function retryOptions(policy: RetryPolicy, call: RetryCall): RetryOptions {
  const unlimited = policy.wait > 0 || !Number.isFinite(policy.maxRetries);
  return {
    limit: unlimited ? UNLIMITED : policy.maxRetries,
    methods: ['get', 'patch', 'delete', 'post'],
    delay: () => call.nextDelay,
    shouldRetry: ({ error, retryCount }) => decide(error, retryCount, policy, call),
  };
}

/**
 * The wait before retry number `retryCount` (1 for the first): exponential backoff from 0.5 s
 * doubling to 8 s with full jitter (AWS "full jitter": random between 0 and min(cap, base ×
 * 2^n)). After an answer with `Retry-After`, that many milliseconds are a floor, never a
 * rendezvous: a random spread is added on top, at least the Retry-After itself (or 0.5 s) and
 * doubling with each such answer of the call up to 8 s, so a fleet told to come back in a
 * second comes back spread over the following seconds, further apart the more often it is told.
 */
function retryDelay(retryCount: number, retryAfterMs: number | null, throttled: number): number {
  if (retryAfterMs === null) {
    return Math.random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (retryCount - 1));
  }
  const spread = Math.min(
    BACKOFF_CAP_MS,
    Math.max(BACKOFF_BASE_MS, retryAfterMs) * 2 ** Math.max(0, throttled - 1),
  );
  return retryAfterMs + Math.random() * spread;
}

function decide(error: Error, retryCount: number, policy: RetryPolicy, call: RetryCall): boolean {
  if (call.signal?.aborted || !isRetryable(error)) return false;
  const retryAfter = isHTTPError(error)
    ? parseRetryAfter(error.response.headers.get('retry-after'))
    : null;
  const retryAfterMs = retryAfter === null ? null : retryAfter * 1000;
  if (retryAfterMs !== null) call.throttled += 1;
  let delay = retryDelay(retryCount, retryAfterMs, call.throttled);

  if (policy.wait > 0) {
    // Startup mode: the deadline, not a count, ends the retries, and the call ends at it (the
    // attempt in flight is cut there: see `deadlineOf`). A wait that would overshoot it is
    // shortened to end within the deadline's last half second, at a random point so that a fleet
    // started together does not come back at one instant, for one last attempt; a job whose
    // service stays down thus fails about when its wait is over, not up to 8 s early.
    const left = call.startedAt + policy.wait - now();
    const floor = retryAfterMs ?? 0;
    if (call.lastRetryTaken || left - floor <= LAST_ATTEMPT_MARGIN_MS) return false;
    if (delay >= left - LAST_ATTEMPT_MARGIN_MS) {
      const spread = Math.min(left - LAST_ATTEMPT_MARGIN_MS - floor, BACKOFF_BASE_MS);
      delay = left - LAST_ATTEMPT_MARGIN_MS - Math.random() * spread;
      call.lastRetryTaken = true;
    }
    // Spent when the budget has it, so the client's other calls see the trouble, but never
    // refused: these retries are already paced by the capped backoff and end at the deadline.
    call.spent += call.budget?.tryAcquire(isTimeoutError(error)) ?? 0;
  } else {
    if (retryCount > policy.maxRetries) return false;
    // Waiting longer than a minute would hold a caller hostage: fail now and let it decide.
    if (retryAfterMs !== null && retryAfterMs > MAX_RETRY_AFTER_MS) return false;
    if (call.budget !== undefined) {
      const cost = call.budget.tryAcquire(isTimeoutError(error));
      if (cost === undefined) return false;
      call.spent += cost;
    }
  }
  call.nextDelay = delay;
  return true;
}

function isRetryable(error: Error): boolean {
  if (!isHTTPError(error) && !isNetworkError(error) && !isTimeoutError(error)) return false;
  // Only what cannot create twice: GET, PATCH, DELETE, and POSTs with an Idempotency-Key.
  if (error.request.method === 'POST' && !error.request.headers.has('idempotency-key'))
    return false;
  // CORS, CSP or mixed content: the browser will refuse the retry just the same.
  if (isNetworkError(error) && isBlockedByBrowser(error.cause, error.request.url)) return false;
  if (!isHTTPError(error)) return true;
  const { status } = error.response;
  if (status === 409) {
    return readFailureEnvelope(status, error.data)?.errorCode === 'idempotency_in_progress';
  }
  return isUnavailableStatus(status);
}

/** @internal Milliseconds on a monotonic clock where there is one: deadlines must not follow the wall clock. */
export function now(): number {
  return globalThis.performance?.now() ?? Date.now();
}
