/**
 * When a failed attempt is tried again and how long to wait first: the one retry policy of the
 * client, deciding on the SDK's own errors (what response.ts made of an attempt), and the one
 * definition of an outage that the cache and the command reuse.
 *
 * Two modes: the ordinary one (at most `maxRetries` retries) and the startup one (`wait`: keep
 * retrying an unavailable service until a deadline). Both draw waits from the same curve.
 */
import {
  APIConnectionError,
  APIError,
  APITimeoutError,
  parseRetryAfter,
  type SecretsVaultError,
} from './errors.js';
import { isBlockedByBrowser } from './transport/network-failure.js';

const BACKOFF_BASE_MS = 500;
// The first spread after a throttling answer (a 429, or a Retry-After): a service shedding load
// needs longer than a dropped connection does, and a fleet's retries more room to spread in.
const THROTTLE_BASE_MS = 1_000;
const BACKOFF_CAP_MS = 8_000;

// Every attempt of a startup wait starts at least this long before the deadline: room for an
// answer, so that the last attempt is one the service can still answer rather than one cut at once.
const LAST_ATTEMPT_MARGIN_MS = 250;
// The stretch before that margin in which the last attempt of a startup wait falls.
const LAST_STRETCH_MS = 1_000;

/** Longest `Retry-After` the SDK waits for; a longer one fails the call at once. */
export const MAX_RETRY_AFTER_MS = 60_000;

/**
 * @internal Whether a status says "unavailable, come back later" (408, 429, any 5xx), as opposed
 * to a verdict on the request that a retry would only repeat.
 */
export function isUnavailableStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status <= 599);
}

/**
 * Whether `error` says the service was unavailable (no response, a timeout, 408, 429, a 5xx),
 * as opposed to a verdict on the request (a refused token, a vault that does not exist, a
 * response the SDK cannot use): an outage is waited out, retried, served from a cache or a
 * snapshot; a verdict is acted on.
 */
export function isOutage(error: unknown): boolean {
  return (
    error instanceof APIConnectionError ||
    (error instanceof APIError && isUnavailableStatus(error.status))
  );
}

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
 * the call ends at the deadline. `Infinity` when nothing bounds the call; any length is held
 * (timer.ts), past what one timer can.
 */
export function deadlineOf(policy: RetryPolicy, totalTimeout = Infinity): number {
  return policy.wait > 0 ? Math.min(totalTimeout, policy.wait) : totalTimeout;
}

/** @internal The retries of one call, asked after each failed attempt. */
export interface Retries {
  /**
   * The milliseconds to wait before retrying after `error`, the failure of attempt number
   * `attempts` of `request`; undefined when the call ends with it.
   */
  next(error: SecretsVaultError, request: RetriedRequest, attempts: number): number | undefined;
  /**
   * Set by {@link Retries.next} when the wait it gave is not before a retry but the rest of a
   * startup wait, which a `Retry-After` reaching past its deadline leaves no retry in: once it is
   * over, the call ends with that answer.
   */
  last?: boolean;
  /** The call succeeded: what its retries took from the budget goes back. */
  succeeded(): void;
}

/** @internal What the policy reads of the request: may it be sent twice, and where to. */
export interface RetriedRequest {
  readonly method: string;
  readonly url: string;
  readonly idempotencyKey: string | null;
}

/**
 * @internal Starts the retries of one call that started at `startedAt` (a {@link now} instant).
 * Retried only where safe (GET, PATCH, DELETE, and POSTs that carry an Idempotency-Key), and
 * only after an outage or a 409 `idempotency_in_progress`.
 */
export function startRetries(
  policy: RetryPolicy,
  budget: RetryBudget | undefined,
  startedAt: number,
): Retries {
  // Tokens this call's retries have taken so far.
  let spent = 0;
  // Throttling answers (a 429, or a `Retry-After`) so far in this call: each widens the next one's
  // spread.
  let throttled = 0;
  return {
    next(error, request, attempts) {
      if (!isRetryable(error, request)) return undefined;
      const retryAfter =
        error instanceof APIError ? parseRetryAfter(error.headers.get('retry-after')) : null;
      const floor = (retryAfter ?? 0) * 1000;
      // What is left of a startup wait for the next attempt to start in (see the margin).
      const left = startedAt + policy.wait - now() - LAST_ATTEMPT_MARGIN_MS;
      // The wait: the Retry-After (a floor, never a rendezvous: 0 without one) plus a draw of full
      // jitter (AWS "full jitter": random between 0 and min(cap, base × 2^(n−1))), capped at 8 s.
      // After a connection failure, a timeout or a plain 5xx, n is this retry's number and the
      // base 0.5 s. After a throttling answer (a 429, or any with a Retry-After), n counts such
      // answers in the call and the base is 1 s or twice the Retry-After, whichever is longer: a
      // fleet told to come back in R seconds comes back spread over the 2R seconds after them, at
      // half the rate it was turned away at, and further apart the more often it is told. In
      // startup mode the draw is also cut to what is left of the wait: a fleet started together
      // shares one deadline, and the jobs whose draw would overshoot it then come back spread
      // over the time left, not bunched at its end.
      const delay =
        floor +
        Math.random() *
          Math.min(
            BACKOFF_CAP_MS,
            retryAfter !== null || (error as APIError).status === 429
              ? Math.max(THROTTLE_BASE_MS, 2 * floor) * 2 ** throttled++
              : BACKOFF_BASE_MS * 2 ** (attempts - 1),
            policy.wait > 0 ? left - floor : BACKOFF_CAP_MS,
          );
      const afterTimeout = error instanceof APITimeoutError;
      if (policy.wait > 0) {
        // Startup mode: the deadline, not a count, ends the retries, and the call ends at it
        // (the attempt in flight is cut there: see `deadlineOf`).
        // Cut ever shorter, the draws would crowd each job's attempts into the deadline's last
        // instants: once less than a stretch of the wait (a second, a quarter of a short wait) is
        // left, the job makes no more attempts. Its last one thus falls at a random point of that
        // stretch, a fleet's spread over it, and the job waits out the rest: it ends at its
        // deadline, with the last answer. Told by a Retry-After to come back after the deadline,
        // it waits it out just the same: ending at once would have it (and its supervisor's
        // restart) ask again at once.
        if (left - floor < Math.min(LAST_STRETCH_MS, policy.wait / 4)) {
          this.last = true;
          return left + LAST_ATTEMPT_MARGIN_MS;
        }
        // Spent when the budget has it, so the client's other calls see the trouble, but never
        // refused: these retries are already paced by the capped backoff and end at the deadline.
        spent += budget?.tryAcquire(afterTimeout) ?? 0;
        return delay;
      }
      if (attempts > policy.maxRetries) return undefined;
      // Waiting longer than a minute would hold a caller hostage: fail now and let it decide.
      if (floor > MAX_RETRY_AFTER_MS) return undefined;
      if (budget !== undefined) {
        const cost = budget.tryAcquire(afterTimeout);
        if (cost === undefined) return undefined;
        spent += cost;
      }
      return delay;
    },
    succeeded() {
      budget?.onSuccess(spent);
    },
  };
}

/** Whether a call may be retried after `error`: what cannot create twice, after an outage. */
function isRetryable(error: SecretsVaultError, request: RetriedRequest): boolean {
  // An abort (APIUserAbortError, neither a connection error nor an answer) is never retried, and
  // the call loop asks nothing once the caller's signal has fired.
  if (request.method === 'POST' && request.idempotencyKey === null) return false;
  if (error instanceof APIConnectionError) {
    // CORS, CSP or mixed content: the browser will refuse the retry just the same.
    return error instanceof APITimeoutError || !isBlockedByBrowser(error.cause, request.url);
  }
  if (!(error instanceof APIError)) return false;
  // Another attempt with the same key is still running: it will be done, and replayed, soon.
  if (error.status === 409) return error.code === 'idempotency_in_progress';
  return isUnavailableStatus(error.status);
}

/** @internal Milliseconds on a monotonic clock where there is one: deadlines must not follow the wall clock. */
export function now(): number {
  return globalThis.performance?.now() ?? Date.now();
}
