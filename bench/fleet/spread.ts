/**
 * The herd figure of the fleet benchmark and of the simulation alike: after a recovery or a
 * `Retry-After` running out, are the attempts reaching the service spread, or do they come as
 * one wave? One definition, so that the real run and the simulated one are read the same way.
 */

/**
 * The arrivals after one instant: the busiest 100 ms against the mean 100 ms of the window. The
 * window runs from the instant for `windowMs` (10 s, or up to the next fault); the mean is taken
 * over its active part, up to its last 100 ms with an arrival, since a fleet that is up sends
 * nothing and its silence would make any wave look like a spike.
 */
export interface Spread {
  readonly atMs: number;
  readonly what: string;
  readonly windowMs: number;
  /** Attempts in the window's busiest 100 ms bucket. */
  readonly busiest: number;
  /** Ms from the instant to the end of the last 100 ms of the window with an arrival. */
  readonly activeMs: number;
  /** Attempts in the active part of the window, divided by its number of 100 ms buckets. */
  readonly mean: number;
  /** busiest / mean (0 when nothing arrived). */
  readonly ratio: number;
  /** The same over the whole window, silence included (the mean of all its buckets). */
  readonly wholeWindowRatio: number;
  /**
   * Whether the ratio is judged: only with a mean of at least {@link SPREAD_MIN_MEAN} a bucket;
   * below it, chance alone makes a bucket of three times the mean, and no herd is that small.
   */
  readonly judged: boolean;
}

/** The width of a bucket of the herd figure, in ms. */
export const BUCKET_MS = 100;
/** The least mean per 100 ms at which a window's spread is judged. */
export const SPREAD_MIN_MEAN = 5;

/**
 * An instant after which the attempts reaching the proxy are checked for a herd: a recovery
 * (the end of an outage, of a down spell, of a brownout) or the first `Retry-After` running out.
 */
export interface SpreadCheck {
  /** Ms after the start instant. */
  readonly atMs: number;
  /** What happens then, in words. */
  readonly what: string;
  /** How long after it the window runs (10 s, or less when the next fault starts sooner). */
  readonly windowMs: number;
}

/**
 * The attempts after one instant: the busiest 100 ms bucket against the mean bucket of the
 * window's active part (up to its last bucket with an arrival): the same figure for the
 * buckets the benchmark's proxy counted and for those the simulation's service model counted.
 */
export function spreadAfter(arrivals: ArrayLike<number>, check: SpreadCheck): Spread {
  const first = Math.floor(check.atMs / BUCKET_MS);
  const buckets = Math.max(1, Math.round(check.windowMs / BUCKET_MS));
  let busiest = 0;
  let total = 0;
  let active = 0;
  for (let bucket = 0; bucket < buckets; bucket += 1) {
    const count = arrivals[first + bucket] ?? 0;
    total += count;
    if (count > busiest) busiest = count;
    if (count > 0) active = bucket + 1;
  }
  const mean = active === 0 ? 0 : total / active;
  const wholeMean = total / buckets;
  return {
    ...check,
    busiest,
    activeMs: active * BUCKET_MS,
    mean,
    ratio: mean === 0 ? 0 : busiest / mean,
    wholeWindowRatio: wholeMean === 0 ? 0 : busiest / wholeMean,
    judged: mean >= SPREAD_MIN_MEAN,
  };
}

/** The spread that speaks for a run: the judged one with the highest ratio, else the highest. */
export function worstSpread(spreads: readonly Spread[]): Spread | null {
  return spreads.reduce<Spread | null>(
    (worst, spread) =>
      worst === null ||
      (spread.judged && !worst.judged) ||
      (spread.judged === worst.judged && spread.ratio > worst.ratio)
        ? spread
        : worst,
    null,
  );
}
