/**
 * The mock's clock. Everything time-dependent in the mock (timestamps, cursor and idempotency
 * expiry, invitation and secret expiry) reads it, so tests can move time instead of waiting.
 */

/** A clock that runs with real time from wherever tests last set or advanced it. */
export interface MockClock {
  /** The current time in milliseconds since the epoch. */
  now(): number;
  /** Moves the clock to an absolute time (a `Date`, an ISO string or epoch milliseconds). */
  set(time: Date | string | number): void;
  /** Moves the clock forward by `milliseconds`, for example past a cursor's 15-minute life. */
  advance(milliseconds: number): void;
}

/** @internal Creates a clock that follows real time, shifted by `set` and `advance`. */
export function createClock(start?: Date | string | number): MockClock {
  let offset = start === undefined ? 0 : toMillis(start) - Date.now();
  return {
    now: () => Date.now() + offset,
    set(time) {
      offset = toMillis(time) - Date.now();
    },
    advance(milliseconds) {
      if (!Number.isFinite(milliseconds) || milliseconds < 0) {
        throw new RangeError('advance() takes a non-negative number of milliseconds');
      }
      offset += milliseconds;
    },
  };
}

function toMillis(time: Date | string | number): number {
  const millis =
    time instanceof Date ? time.getTime() : typeof time === 'string' ? Date.parse(time) : time;
  if (!Number.isFinite(millis)) throw new RangeError('Invalid time for the mock clock');
  return millis;
}
