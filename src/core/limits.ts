/**
 * The bounds of the timing options (`timeout`, `totalTimeout`, `maxRetries`, `wait`), shared by
 * the options and by the environment variables that can set them.
 */

/** @internal The longest timer: above 2^31 - 1 ms, timers overflow and fire at once. */
export const MAX_TIMER_MS = 2_147_483_647;
/** @internal What `timeout` and `totalTimeout` must be. */
export const DURATION_MESSAGE = `must be a whole number of milliseconds from 1 to ${MAX_TIMER_MS}`;
/** @internal What `maxRetries` must be. */
export const RETRIES_MESSAGE = 'must be a whole number, 0 or more, or Infinity';
/** @internal What `wait` must be. */
export const WAIT_MESSAGE = 'must be a whole number of milliseconds, 0 or more, or Infinity';

// Number.isInteger is false for anything but a number: no `typeof` test needed.
/** @internal Whether `value` is a valid `timeout` or `totalTimeout`. */
export const isDuration = (value: unknown): boolean =>
  Number.isInteger(value) && (value as number) > 0 && (value as number) <= MAX_TIMER_MS;

/** @internal Whether `value` is a valid `maxRetries` (or `wait`): 0 or more, or `Infinity`. */
export const isRetryCount = (value: unknown): boolean =>
  (Number.isInteger(value) && (value as number) >= 0) || value === Infinity;
