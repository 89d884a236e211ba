/**
 * One target of the fleet benchmark and what was measured against it: the one shape every part
 * of the run (the in-process scenarios, the command, caching, rotation) reports its targets in.
 */

/** One target: whether the SDK met it, and what was measured. */
export interface Verdict {
  readonly pass: boolean;
  readonly target: string;
  readonly measured: string;
  /**
   * False when the run could not judge the target (the herd target when no window after a
   * recovery carried a mean of `SPREAD_MIN_MEAN` (spread.ts) attempts per 100 ms): reported as n/a,
   * not counted. Absent means judged.
   */
  readonly judged?: boolean;
}
