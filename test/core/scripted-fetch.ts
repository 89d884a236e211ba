/**
 * A `fetch` that plays a service's answers under fake timers, recording when each attempt came,
 * and a way to run the client's timers until a call settles.
 */
import { vi } from 'vitest';

/** A service that answers `statuses` in turn (the last one for ever), recording when. */
export function scripted(statuses: readonly number[], headers: Record<string, string> = {}) {
  const times: number[] = [];
  const fetch = async () => {
    times.push(Date.now());
    const status = statuses[Math.min(times.length, statuses.length) - 1] ?? 503;
    const body =
      status < 300
        ? { statusCode: status, errorCode: null, message: null, data: [] }
        : { statusCode: status, errorCode: 'unavailable', message: 'later', data: null };
    return new Response(JSON.stringify(body), {
      status,
      headers: { 'Content-Type': 'application/json', ...(status < 300 ? {} : headers) },
    });
  };
  return {
    fetch,
    times,
    gaps: () => times.slice(1).map((time, index) => time - (times[index] ?? 0)),
  };
}

// Taken before any test fakes timers: a real turn of the event loop.
const realSetImmediate = globalThis.setImmediate;

/**
 * Runs every timer until `promise` settles; resolves to its error, or undefined. Between runs it
 * yields a real turn of the event loop: a call may first load a module on demand, and only then
 * set the timers of its retries.
 */
export async function settle(promise: PromiseLike<unknown>): Promise<unknown> {
  let settled = false;
  const outcome = Promise.resolve(promise).then(
    () => undefined,
    (error: unknown) => error,
  );
  void outcome.then(() => {
    settled = true;
  });
  while (!settled) {
    await vi.runAllTimersAsync();
    if (!settled) await new Promise<void>((resolve) => realSetImmediate(resolve));
  }
  return outcome;
}
