/**
 * The fleet simulation's figures and targets: what a {@link FleetRun} comes to (up, time to
 * ready, attempts and requests per job, the busiest 100 ms after each recovery or Retry-After),
 * and the SDK's targets checked against the ideal client's figures of the same run.
 */
import { quantile } from '../lib.ts';
import type { ClientKind, FleetRun } from './sim-fleet.ts';
import type { SimScenario } from './sim-scenarios.ts';
import { BUCKET_MS, SPREAD_MIN_MEAN, type Spread, spreadAfter, worstSpread } from './spread.ts';

/** One client's figures in one scenario. */
export interface SimFigures {
  readonly scenario: string;
  readonly client: ClientKind;
  readonly jobs: number;
  readonly up: number;
  readonly upPercent: number;
  /** Ms from the release to ready (jobs that came up); null when none did. */
  readonly readyP50: number | null;
  readonly readyP95: number | null;
  readonly readyMax: number | null;
  /** Ms from the scenario's last recovery to the last job up; null without either. */
  readonly lastUpAfterRecovery: number | null;
  /** Ms from the release to the last failure; null when no call failed. */
  readonly failureMax: number | null;
  readonly errors: Readonly<Record<string, number>>;
  readonly attemptsPerJob: number;
  readonly requestsPerJob: number;
  /** The fewest and the most HTTP requests a job sent. */
  readonly requestsPerJobRange: readonly [number, number];
  /** The busiest 100 ms of the whole run, and when it started (ms after the release). */
  readonly peakPer100Ms: number;
  readonly peakAtMs: number;
  readonly spreads: readonly Spread[];
  /** The judged spread check with the highest ratio (else the highest); null without checks. */
  readonly worstSpread: Spread | null;
  readonly events: number;
  readonly computeMs: number;
}

const sum = (values: Int32Array) => values.reduce((total, value) => total + value, 0);
// Loops, not `Math.max(...values)`: a spread of 100 000 arguments can overflow the stack.
const largest = (values: ArrayLike<number>) => {
  let most = Number.NEGATIVE_INFINITY;
  for (let index = 0; index < values.length; index += 1)
    most = Math.max(most, values[index] ?? most);
  return most;
};
const smallest = (values: ArrayLike<number>) => -largest(Array.from(values, (value) => -value));

/** The figures of one fleet run. */
export function figuresOf(scenario: SimScenario, run: FleetRun, computeMs: number): SimFigures {
  const ready = Array.from(run.readyAt).filter((ms) => !Number.isNaN(ms));
  const failed = Array.from(run.failedAt).filter((ms) => !Number.isNaN(ms));
  const readyMax = ready.length > 0 ? largest(ready) : null;
  let peakPer100Ms = 0;
  let peakAtMs = 0;
  run.arrivals.forEach((count, bucket) => {
    if (count > peakPer100Ms) {
      peakPer100Ms = count;
      peakAtMs = bucket * BUCKET_MS;
    }
  });
  const spreads = scenario.spreadChecks.map((check) => spreadAfter(run.arrivals, check));
  return {
    scenario: scenario.id,
    client: run.kind,
    jobs: run.jobs,
    up: ready.length,
    upPercent: (100 * ready.length) / run.jobs,
    readyP50: ready.length > 0 ? quantile(ready, 0.5) : null,
    readyP95: ready.length > 0 ? quantile(ready, 0.95) : null,
    readyMax,
    lastUpAfterRecovery:
      readyMax === null || scenario.recoveryMs === null ? null : readyMax - scenario.recoveryMs,
    failureMax: failed.length > 0 ? largest(failed) : null,
    errors: run.errors,
    attemptsPerJob: sum(run.attempts) / run.jobs,
    requestsPerJob: sum(run.requests) / run.jobs,
    requestsPerJobRange: [smallest(run.requests), largest(run.requests)],
    peakPer100Ms,
    peakAtMs,
    spreads,
    worstSpread: worstSpread(spreads),
    events: run.events,
    computeMs,
  };
}

/** How many jobs took another course under the SDK than under the ideal client. */
export function jobsThatDiffered(sdk: FleetRun, ideal: FleetRun): number {
  let differed = 0;
  for (let job = 0; job < sdk.jobs; job += 1) {
    const sameReady =
      sdk.readyAt[job] === ideal.readyAt[job] ||
      (Number.isNaN(sdk.readyAt[job]) && Number.isNaN(ideal.readyAt[job]));
    if (!sameReady || sdk.attempts[job] !== ideal.attempts[job]) differed += 1;
  }
  return differed;
}

/** One target: whether the SDK met it, and what was measured. */
export interface SimVerdict {
  readonly scenario: string;
  readonly target: string;
  readonly pass: boolean;
  /**
   * False when no client could meet the target in this scenario (the service cannot answer
   * every job before the deadline): reported, not counted.
   */
  readonly judged: boolean;
  readonly measured: string;
}

/** How a verdict reads in a report: PASS, FAIL, or n/a for one not judged. */
export function verdictText(verdict: SimVerdict): string {
  return verdict.judged ? (verdict.pass ? 'PASS' : 'FAIL') : 'n/a';
}

/** Most a 100 ms bucket may carry after a recovery or a Retry-After, as a multiple of the mean. */
export const SPREAD_LIMIT = 3;
/** Most attempts per job the SDK may make, as a multiple of the ideal client's. */
export const ATTEMPTS_LIMIT = 1.25;

const seconds = (ms: number | null) => (ms === null ? '—' : `${(ms / 1000).toFixed(2)} s`);
const spreadText = (spread: Spread) =>
  `${spread.ratio.toFixed(2)} × after ${spread.what} (busiest ${spread.busiest} vs mean ${spread.mean.toFixed(1)} per 100 ms over ${(spread.activeMs / 1000).toFixed(1)} s; ${spread.wholeWindowRatio.toFixed(2)} × over the whole ${spread.windowMs / 1000} s)`;

/** The SDK's targets in one scenario, read against the ideal client's figures. */
export function verdictsOf(
  scenario: SimScenario,
  sdk: SimFigures,
  ideal: SimFigures,
): SimVerdict[] {
  const of = (target: string, pass: boolean, measured: string, judged = true): SimVerdict => ({
    scenario: scenario.id,
    target,
    pass,
    judged,
    measured,
  });
  if (scenario.verdict) {
    const [fewest, most] = sdk.requestsPerJobRange;
    return [
      of(
        'a verdict costs exactly one request per job',
        fewest === 1 && most === 1 && sdk.up === 0,
        `${fewest} to ${most} requests per job (ideal ${ideal.requestsPerJobRange.join(' to ')}), all failed by ${seconds(sdk.failureMax)}`,
      ),
    ];
  }
  // How many requests the service can serve, at full capacity, from the recovery to the deadline.
  const { capacity, serviceMs } = scenario.service;
  const servable = Math.floor(
    (capacity * (scenario.waitMs - (scenario.recoveryMs ?? scenario.waitMs))) / serviceMs,
  );
  const verdicts = [
    of(
      'every job up within its wait',
      sdk.up === sdk.jobs,
      `${sdk.upPercent.toFixed(1)} % up, the last at ${seconds(sdk.readyMax)}` +
        (scenario.recoveryMs ? `, ${seconds(sdk.lastUpAfterRecovery)} after the recovery` : '') +
        ` (wait ${scenario.waitMs / 1000} s)` +
        (servable < sdk.jobs
          ? `; not judged: the service can answer at most ${servable} requests between the recovery and the end of the wait, so no client can bring every job up within it`
          : ''),
      servable >= sdk.jobs,
    ),
    of(
      `attempts per job ≤ ${ATTEMPTS_LIMIT} × the ideal's`,
      sdk.attemptsPerJob <= ATTEMPTS_LIMIT * ideal.attemptsPerJob,
      `${sdk.attemptsPerJob.toFixed(2)} vs ideal ${ideal.attemptsPerJob.toFixed(2)} (≤ ${(ATTEMPTS_LIMIT * ideal.attemptsPerJob).toFixed(2)})`,
    ),
  ];
  if (sdk.spreads.length > 0) {
    const judged = sdk.spreads.filter((spread) => spread.judged);
    const worst = sdk.worstSpread;
    const skipped = sdk.spreads.length - judged.length;
    verdicts.push(
      of(
        `busiest 100 ms ≤ ${SPREAD_LIMIT} × the mean, after each recovery or Retry-After`,
        judged.every((spread) => spread.ratio <= SPREAD_LIMIT),
        (worst?.judged ? spreadText(worst) : 'no window busy enough to judge') +
          `; ideal ${ideal.worstSpread?.ratio.toFixed(2) ?? '—'} ×` +
          (skipped > 0
            ? `; ${skipped} of ${sdk.spreads.length} windows under ${SPREAD_MIN_MEAN} per 100 ms, not judged`
            : ''),
      ),
    );
  }
  return verdicts;
}
