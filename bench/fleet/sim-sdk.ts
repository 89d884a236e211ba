/**
 * The SDK's own retry policy, loaded from src/ as it is (not the built bundle, not a copy), and
 * run on a virtual clock: the simulation's answer to "what does the shipped policy do to a
 * fleet". Nothing in src/ is changed for it; the policy reads the clock through `now()`
 * (`globalThis.performance.now()` at call time) and draws its jitter from `Math.random`, so the
 * simulation swaps those two globals while it runs: `performance` for an object whose `now()`
 * is the simulation's time, `Math.random` for a seeded generator, so a run can be repeated.
 */
import { registerHooks } from 'node:module';
import type * as Errors from '../../src/core/errors.ts';
import type * as Retry from '../../src/core/retry.ts';

// src/ names its siblings `./x.js`, as the built package has them; Node runs the .ts files as
// they are only if such a name that has no file is read as the .ts beside it.
registerHooks({
  resolve(specifier, context, nextResolve) {
    try {
      return nextResolve(specifier, context);
    } catch (error) {
      const fromSource = context.parentURL?.includes('/src/') === true;
      if (!fromSource || !specifier.startsWith('.') || !specifier.endsWith('.js')) throw error;
      return nextResolve(`${specifier.slice(0, -3)}.ts`, context);
    }
  },
});

/** The retry policy of src/core/retry.ts, as the SDK's call loop uses it. */
export const retry: typeof Retry = await import('../../src/core/retry.ts');
/** The SDK's error classes and its one function from a failed response to an error. */
export const errors: typeof Errors = await import('../../src/core/errors.ts');

/** The simulation's time in ms, which the SDK reads as `performance.now()` while it runs. */
export const clock = { ms: 0 };

/**
 * A small seeded generator (mulberry32): uniform in [0, 1), the same sequence for a seed. Good
 * enough for jitter; it is no cryptographic source, and the SDK asks for none.
 */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * Runs `body` with the virtual clock as `globalThis.performance` and a generator seeded with
 * `seed` as `Math.random`, and puts both back after it, even when it throws.
 */
export function onVirtualTime<T>(seed: number, body: () => T): T {
  const performance = Object.getOwnPropertyDescriptor(globalThis, 'performance');
  const random = Math.random;
  Object.defineProperty(globalThis, 'performance', {
    value: { now: () => clock.ms },
    configurable: true,
    writable: true,
  });
  Math.random = seeded(seed);
  try {
    return body();
  } finally {
    if (performance) Object.defineProperty(globalThis, 'performance', performance);
    Math.random = random;
  }
}
