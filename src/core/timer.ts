/**
 * The one way the SDK and its command wait: a timer that holds any duration. A platform timer
 * holds at most 2^31 − 1 ms (24.8 days); given more (a `Retry-After` of 34 days, an HTTP date in
 * the year 9999, `wait: Infinity`), it fires at once, and a job that was told to come back much
 * later would come back at once, in a loop. Every duration that comes from a server or a user
 * reaches a timer through here.
 */
import { MAX_TIMER_MS } from './limits.js';

/**
 * @internal Calls `callback` once `ms` milliseconds have passed (never, for `Infinity`), on a
 * chain of timers each within the platform's limit, so that no wait ends early; a negative
 * duration is no wait. Returns what cancels it.
 */
export function afterMs(ms: number, callback: () => void): () => void {
  let timer: ReturnType<typeof setTimeout>;
  // Timers fire late, never early: the links of a chain add up to at least `ms`. Each link is
  // handed what is left after it.
  const arm = (left: number) => {
    // Never below 0 either: Node warns of a negative duration (and waits 1 ms).
    timer =
      left > MAX_TIMER_MS
        ? setTimeout(arm, MAX_TIMER_MS, left - MAX_TIMER_MS)
        : setTimeout(callback, left > 0 ? left : 0);
  };
  arm(ms);
  return () => clearTimeout(timer);
}
