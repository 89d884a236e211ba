/**
 * What the browser pages share: named checks whose outcomes are left in `window.__results`,
 * where test/browser/run.mjs reads them.
 */

/** The outcome of one check. */
export interface Result {
  readonly name: string;
  readonly ok: boolean;
  readonly detail?: string;
}

const results: Result[] = [];

/** Throws `message` unless `condition` holds. */
export function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

/** Runs one named check and records whether it passed. */
export async function check(name: string, run: () => Promise<void>): Promise<void> {
  try {
    await run();
    results.push({ name, ok: true });
  } catch (error) {
    results.push({
      name,
      ok: false,
      detail: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    });
  }
}

/** Hands the results to the runner: call once, after the last check. */
export function report(): void {
  (window as unknown as { __results: Result[] }).__results = results;
}
