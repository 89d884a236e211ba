/**
 * When a failed attempt is tried again, and the per-client retry budget that stops a fleet from
 * multiplying its load during an outage. ky performs the retries and waits; this module only
 * decides.
 */
import { isHTTPError, isNetworkError, isTimeoutError, type RetryOptions } from 'ky';
import { readFailureEnvelope } from './envelope.js';
import { parseRetryAfter } from './errors.js';
import { isBlockedByBrowser } from './network-failure.js';

const BACKOFF_BASE_MS = 500;
const BACKOFF_CAP_MS = 8_000;

/** Longest `Retry-After` the SDK waits for; a longer one fails the call at once. */
export const MAX_RETRY_AFTER_MS = 60_000;

// 408, 429 and every 5xx; 409 is decided by its errorCode.
const RETRIED_STATUSES = [408, 429, ...Array.from({ length: 100 }, (_, index) => 500 + index)];

/**
 * Settings of the retry budget, a token bucket in the spirit of the AWS SDKs' standard retry
 * mode: each retry spends tokens, each success returns some, and when the bucket is empty the
 * client stops retrying and fails fast until successes refill it.
 */
export interface RetryBudgetOptions {
  /** Tokens in a full bucket. @default 500 */
  readonly capacity?: number;
  /** Tokens a retry after an error response or a dropped connection costs. @default 5 */
  readonly retryCost?: number;
  /** Tokens a retry after a timeout costs (timeouts hint at overload). @default 10 */
  readonly timeoutCost?: number;
}

/** @internal A client's retry token bucket. */
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
  /** Tokens this call's retries have taken so far. */
  spent: number;
}

/**
 * ky retry options for one call: the methods and statuses that are safe to retry, exponential backoff
 * from 0.5 s doubling to 8 s with full jitter, `Retry-After` honoured up to a minute.
 */
export function retryOptions(maxRetries: number, call: RetryCall): RetryOptions {
  return {
    limit: maxRetries,
    methods: ['get', 'patch', 'delete', 'post'],
    statusCodes: RETRIED_STATUSES,
    afterStatusCodes: RETRIED_STATUSES,
    maxRetryAfter: MAX_RETRY_AFTER_MS,
    // Capped before jitter (AWS "full jitter": random between 0 and min(cap, base × 2^n)); ky
    // applies `backoffLimit` after jitter, which would pile late retries up at the cap.
    delay: (attempt) => Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (attempt - 1)),
    backoffLimit: BACKOFF_CAP_MS,
    jitter: true,
    retryOnTimeout: true,
    shouldRetry: ({ error }) => decide(error, call),
  };
}

// `true` retries without Retry-After handling, so a retry that ky would make anyway answers
// `undefined` and lets ky apply the server's timing.
function decide(error: Error, call: RetryCall): boolean | undefined {
  if (call.signal?.aborted) return false;
  const retryable = isRetryable(error);
  if (retryable === false) return false;
  if (call.budget !== undefined) {
    const cost = call.budget.tryAcquire(isTimeoutError(error));
    if (cost === undefined) return false;
    call.spent += cost;
  }
  return retryable === 'ky' ? undefined : true;
}

function isRetryable(error: Error): boolean | 'ky' {
  if (!isHTTPError(error) && !isNetworkError(error) && !isTimeoutError(error)) return false;
  // Only what cannot create twice: GET, PATCH, DELETE, and POSTs with an Idempotency-Key.
  if (error.request.method === 'POST' && !error.request.headers.has('idempotency-key'))
    return false;
  // CORS, CSP or mixed content: the browser will refuse the retry just the same.
  if (isNetworkError(error) && isBlockedByBrowser(error.cause, error.request.url)) return false;
  if (!isHTTPError(error)) return 'ky';
  const { status, headers } = error.response;
  if (status === 409) {
    return readFailureEnvelope(status, error.data)?.errorCode === 'idempotency_in_progress';
  }
  if (!RETRIED_STATUSES.includes(status)) return false;
  const retryAfter = parseRetryAfter(headers.get('retry-after'));
  // Waiting longer than a minute would hold a startup hostage: fail now and let the caller decide.
  if (retryAfter !== null && retryAfter * 1000 > MAX_RETRY_AFTER_MS) return false;
  return 'ky';
}
