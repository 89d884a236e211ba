/**
 * The ideal client model the fleet benchmark measures the SDK against: a plain `fetch` loop
 * that never gives up except on a verdict, with the textbook retry curve (exponential backoff,
 * full jitter, the SDK's base and caps). The SDK's own spreads wider after a throttling answer
 * (from max(1 s, 2 × RA)) and, in startup mode, draws within what is left of its wait.
 * It is a model, not a product: no per-call deadline, no retry budget, no body validation. It
 * shows what the documented policy costs and achieves on its own, so the SDK's figures can be
 * read against it (the SDK should come up as well, with about as many attempts).
 *
 * The curve, after the n-th failed attempt of a job (n counts every failure so far):
 *   - no Retry-After: wait uniform[0, min(8000, 500 · 2^(n−1))] ms (full jitter);
 *   - `Retry-After: RA` seconds, the k-th such answer of this job:
 *     wait RA·1000 + uniform[0, min(8000, max(500, RA·1000) · 2^(k−1))] ms.
 * 400, 401, 403, 404 and 422 fail at once; connection errors, 408, 429 and 5xx are retried.
 */
import { setTimeout as sleep } from 'node:timers/promises';

const BASE_MS = 500;
const CAP_MS = 8_000;
/** The limit of each attempt: the SDK's default `timeout`. */
export const ATTEMPT_TIMEOUT_MS = 30_000;
const RETRIED = (status: number) => status === 408 || status === 429 || status >= 500;
const VERDICTS: Readonly<Record<number, string>> = {
  400: 'BadRequestError',
  401: 'AuthenticationError',
  403: 'PermissionDeniedError',
  404: 'NotFoundError',
  422: 'UnprocessableEntityError',
};

/** What the ideal job needs to know. */
export interface IdealJob {
  readonly baseUrl: string;
  readonly token: string;
  readonly vaultId: string;
  readonly jobId: string;
  /** Stops the loop (the scenario's cap); the job then counts as unfinished. */
  readonly signal: AbortSignal;
  /** Called before every attempt, to count them. */
  readonly onAttempt: () => void;
}

/** The wait before the next attempt, in ms, per the documented curve. */
export function idealDelay(
  failures: number,
  retryAfterSeconds: number | null,
  nth: number,
): number {
  if (retryAfterSeconds === null) {
    return Math.random() * Math.min(CAP_MS, BASE_MS * 2 ** (failures - 1));
  }
  const floor = retryAfterSeconds * 1000;
  return floor + Math.random() * Math.min(CAP_MS, Math.max(BASE_MS, floor) * 2 ** (nth - 1));
}

/** `Retry-After` as seconds (delta-seconds or an HTTP date), or null when absent or unreadable. */
function retryAfterOf(response: Response): number | null {
  const header = response.headers.get('retry-after');
  if (header === null || header.trim() === '') return null;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : Math.max(0, (date - Date.now()) / 1000);
}

/**
 * Loads the vault's secret values until it succeeds or gets a verdict.
 * @returns null on success, else the name of the verdict (as the SDK would name its error)
 * @throws the signal's reason when the scenario's cap aborts it
 */
export async function idealLoad(job: IdealJob): Promise<string | null> {
  const url = `${job.baseUrl}/v1/vaults/${encodeURIComponent(job.vaultId)}/secrets/values`;
  const headers = {
    Authorization: `Bearer ${job.token}`,
    Accept: 'application/json',
    'x-fleet-job': job.jobId,
  };
  let failures = 0;
  let retryAfters = 0;
  for (;;) {
    job.signal.throwIfAborted();
    job.onAttempt();
    let retryAfter: number | null = null;
    try {
      const response = await fetch(url, {
        headers,
        signal: AbortSignal.any([job.signal, AbortSignal.timeout(ATTEMPT_TIMEOUT_MS)]),
      });
      if (response.ok) {
        JSON.parse(await response.text());
        return null;
      }
      await response.arrayBuffer();
      if (!RETRIED(response.status)) return VERDICTS[response.status] ?? `HTTP ${response.status}`;
      retryAfter = retryAfterOf(response);
    } catch (error) {
      job.signal.throwIfAborted();
      // A connection failure, a reset, or the attempt's own timeout: retried.
      void error;
    }
    failures += 1;
    if (retryAfter !== null) retryAfters += 1;
    await sleep(idealDelay(failures, retryAfter, retryAfters), undefined, { signal: job.signal });
  }
}
