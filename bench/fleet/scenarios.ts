/**
 * The fleet benchmark's scenarios and the targets the SDK is held to in each. The full plan is
 * the real measurement; the short plan (`--short`) keeps the same scenarios at a size and
 * length that only prove the harness works.
 */
import type { FleetFigures } from './figures.ts';
import type { Fault } from './protocol.ts';
import type { RotationPlan } from './rotation.ts';
import { SPREAD_MIN_MEAN, type Spread, type SpreadCheck } from './spread.ts';
import type { Verdict } from './verdict.ts';

/**
 * What the SDK's `load` runs with in a scenario: the scenario's environment over the SDK's
 * defaults, since the jobs pass no option that changes them.
 */
export interface SdkSettings {
  /** `wait`: how long `load` keeps retrying an unavailable service. */
  readonly waitMs: number;
  /** `timeout`: the limit of each attempt. */
  readonly timeoutMs: number;
  /** `maxRetries`: what bounds the retries when `wait` is 0 (while it is not, `wait` does). */
  readonly maxRetries: number;
}

// The SDK's documented defaults (`wait`, `timeout`, `maxRetries` of its options). The harness
// cannot read them from a client, so a change of default must be made here too.
const SDK_DEFAULTS: SdkSettings = { waitMs: 60_000, timeoutMs: 30_000, maxRetries: 2 };

/**
 * The settings the SDK resolves from `env` (knobs in the harness's plan are plain numbers).
 * @throws when a knob is not a whole number, which only a mistake in a plan can cause
 */
export function sdkSettings(env: Readonly<Record<string, string>>): SdkSettings {
  const knob = (name: string, fallback: number) => {
    const value = env[name];
    if (value === undefined) return fallback;
    if (!/^\d+$/.test(value)) throw new Error(`fleet plan: ${name}=${value} is not a number`);
    return Number(value);
  };
  return {
    waitMs: knob('SECRETS_VAULT_WAIT', SDK_DEFAULTS.waitMs),
    timeoutMs: knob('SECRETS_VAULT_TIMEOUT', SDK_DEFAULTS.timeoutMs),
    maxRetries: knob('SECRETS_VAULT_MAX_RETRIES', SDK_DEFAULTS.maxRetries),
  };
}

/** A scenario: a fleet of `jobs` jobs started at one instant through one fault. */
export interface Scenario {
  /** The scenario's name in the full plan, kept in the short one. */
  readonly id: string;
  /** The fault, in words. */
  readonly label: string;
  readonly jobs: number;
  readonly fault: Fault;
  /**
   * Environment of the SDK's workers (the ideal model reads none): the only way a scenario
   * changes the SDK's settings, as an operator would, see {@link sdkSettings}.
   */
  readonly env: Readonly<Record<string, string>>;
  /** Ms after the start instant at which unfinished jobs count as not up. */
  readonly capMs: number;
  /**
   * The instants after which the attempts reaching the proxy are checked for a herd: each
   * recovery, or when the first `Retry-After` runs out; none where nothing recovers.
   */
  readonly spreadChecks: readonly SpreadCheck[];
  /** The targets, checked against the SDK's figures (and the ideal model's, for ratios). */
  readonly targets: (sdk: FleetFigures, ideal: FleetFigures) => Verdict[];
}

/** The command part: runs through an outage, a dead service, a refused token. */
export interface CommandPlan {
  readonly runs: number;
  readonly outageSeconds: number;
  /** Ms after which a run is killed and counted as not started. */
  readonly capMs: number;
}

/** Caching across process starts (caching.ts): a crash loop, and jobs behind one agent. */
export interface CachingPlan {
  /** Starts of the crashing job, one after the other, in each variant (without and with TTL). */
  readonly crashStarts: number;
  /** `--cache-ttl` of the cached variant, in ms. */
  readonly cacheTtlMs: number;
  /** `run` processes started at one instant behind the agent. */
  readonly agentJobs: number;
  /** Ms after which one `run` is killed and counted as failed. */
  readonly capMs: number;
}

/** Everything one mode runs. */
export interface Plan {
  readonly scenarios: readonly Scenario[];
  readonly command: CommandPlan;
  readonly caching: CachingPlan;
  /** Rotation under a fleet: `run --watch` jobs and caches started together (rotation.ts). */
  readonly rotation: RotationPlan;
}

const seconds = (ms: number | null) => (ms === null ? '—' : `${(ms / 1000).toFixed(2)} s`);

/** How long after a herd check's instant its window runs, at most (the simulation's too). */
const SPREAD_WINDOW_MS = 10_000;
/** Most a 100 ms bucket may carry after a recovery or a Retry-After, as a multiple of the mean. */
export const SPREAD_LIMIT = 3;
/** Most attempts per job the SDK may make, as a multiple of the ideal client's. */
const ATTEMPTS_LIMIT = 1.25;

const afterRecovery = (atMs: number, windowMs = SPREAD_WINDOW_MS): SpreadCheck => ({
  atMs,
  what: `recovery at ${atMs / 1000} s`,
  windowMs,
});

const afterRetryAfter = (retryAfterSeconds: number): SpreadCheck => ({
  atMs: retryAfterSeconds * 1000,
  what: `the first Retry-After (${retryAfterSeconds} s) runs out`,
  windowMs: SPREAD_WINDOW_MS,
});

/** One window's herd figure in words, as the simulation's report gives it. */
export function spreadText(spread: Spread): string {
  return `${spread.ratio.toFixed(2)} × after ${spread.what} (busiest ${spread.busiest} vs mean ${spread.mean.toFixed(1)} per 100 ms over ${(spread.activeMs / 1000).toFixed(1)} s; ${spread.wholeWindowRatio.toFixed(2)} × over the whole ${spread.windowMs / 1000} s)`;
}

/**
 * The herd target: in every judged window (mean ≥ {@link SPREAD_MIN_MEAN} per 100 ms), the
 * busiest 100 ms carries at most {@link SPREAD_LIMIT} × the mean; the ideal's figure beside it.
 * Not judged when no window of the SDK's run was busy enough.
 */
function spreadVerdict(sdk: FleetFigures, ideal: FleetFigures): Verdict {
  const judged = sdk.spreads.filter((spread) => spread.judged);
  const skipped = sdk.spreads.length - judged.length;
  const worst = sdk.worstSpread;
  const idealWorst = ideal.worstSpread;
  return {
    pass: judged.every((spread) => spread.ratio <= SPREAD_LIMIT),
    judged: judged.length > 0,
    target: `busiest 100 ms ≤ ${SPREAD_LIMIT} × the mean, after each recovery or Retry-After`,
    measured:
      (worst === null
        ? 'no window'
        : worst.judged
          ? spreadText(worst)
          : `no window busy enough to judge (the busiest: ${spreadText(worst)})`) +
      `; ideal ${idealWorst === null ? '—' : `${idealWorst.ratio.toFixed(2)} ×${idealWorst.judged ? '' : ' (not judged)'}`}` +
      (skipped > 0 && judged.length > 0
        ? `; ${skipped} of ${sdk.spreads.length} windows under ${SPREAD_MIN_MEAN} per 100 ms, not judged`
        : ''),
  };
}

function attemptsVerdict(sdk: FleetFigures, ideal: FleetFigures): Verdict {
  return {
    pass: sdk.attemptsPerJob <= ATTEMPTS_LIMIT * ideal.attemptsPerJob,
    target: `attempts per job ≤ ${ATTEMPTS_LIMIT} × the ideal's`,
    measured: `${sdk.attemptsPerJob.toFixed(2)} vs ideal ${ideal.attemptsPerJob.toFixed(2)} (≤ ${(ATTEMPTS_LIMIT * ideal.attemptsPerJob).toFixed(2)})`,
  };
}

function allUp(sdk: FleetFigures): Verdict {
  return {
    pass: sdk.up === sdk.jobs,
    target: '100% up',
    measured: `${sdk.upPercent.toFixed(1)}% up`,
  };
}

function maxReady(sdk: FleetFigures, limitMs: number): Verdict {
  return {
    pass: sdk.up === sdk.jobs && sdk.readyMax !== null && sdk.readyMax <= limitMs,
    target: `max time to ready ≤ ${limitMs / 1000} s`,
    measured:
      sdk.readyMax === null
        ? 'no job came up'
        : `max ${seconds(sdk.readyMax)}${sdk.up < sdk.jobs ? ' (of those up)' : ''}`,
  };
}

function outage(
  outageSeconds: number,
  jobs: number,
  capSlackMs: number,
  env: Record<string, string> = {},
  id = `outage-${outageSeconds}s`,
): Scenario {
  return {
    id,
    label: `every connection reset for ${outageSeconds} s`,
    jobs,
    fault: { kind: 'outage', seconds: outageSeconds },
    env,
    capMs: outageSeconds * 1000 + capSlackMs,
    spreadChecks: [afterRecovery(outageSeconds * 1000)],
    targets: (sdk, ideal) => [
      allUp(sdk),
      maxReady(sdk, (outageSeconds + 10) * 1000),
      attemptsVerdict(sdk, ideal),
      spreadVerdict(sdk, ideal),
    ],
  };
}

function longOutage(
  id: string,
  outageSeconds: number,
  jobs: number,
  waitMs: number,
  capSlackMs: number,
): Scenario {
  return {
    id,
    label: `every connection reset for ${outageSeconds} s`,
    jobs,
    fault: { kind: 'outage', seconds: outageSeconds },
    env: { SECRETS_VAULT_WAIT: String(waitMs) },
    capMs: outageSeconds * 1000 + capSlackMs,
    spreadChecks: [afterRecovery(outageSeconds * 1000)],
    targets: (sdk, ideal) => [
      allUp(sdk),
      maxReady(sdk, (outageSeconds + 10) * 1000),
      spreadVerdict(sdk, ideal),
    ],
  };
}

function random503(jobs: number, capMs: number): Scenario {
  return {
    id: 'random-503',
    label: 'half of all requests answered 503',
    jobs,
    fault: { kind: 'random503', rate: 0.5 },
    env: {},
    capMs,
    // Nothing recovers: the 503s run throughout, so there is no instant to check after.
    spreadChecks: [],
    targets: (sdk) => [
      allUp(sdk),
      {
        pass: sdk.attemptsPerJob <= 2.2,
        target: 'attempts per job ≤ 2.2',
        measured: `${sdk.attemptsPerJob.toFixed(2)} attempts per job`,
      },
      {
        pass: sdk.up === sdk.jobs && sdk.readyP95 !== null && sdk.readyP95 <= 6_000,
        target: 'p95 time to ready ≤ 6 s',
        measured: sdk.readyP95 === null ? 'no job came up' : `p95 ${seconds(sdk.readyP95)}`,
      },
    ],
  };
}

/** A capacity-limited service: the overload fault's settings. */
interface Capacity {
  /** Requests in flight at most; one more is answered 429 at once. */
  readonly capacity: number;
  /** How long each accepted request is held before it is forwarded. */
  readonly serviceMs: number;
  /** The `Retry-After` (seconds) of the 429. */
  readonly retryAfter: number;
}

const capacityLabel = ({ capacity, serviceMs, retryAfter }: Capacity) =>
  `at most ${capacity} in flight (${serviceMs} ms each), 429 with Retry-After: ${retryAfter} beyond`;

function capacityFault(service: Capacity): Fault {
  return { kind: 'overload', ...service };
}

function overload(jobs: number, capacity: number, capMs: number): Scenario {
  const service: Capacity = { capacity, serviceMs: 200, retryAfter: 1 };
  return {
    id: 'overload',
    label: capacityLabel(service),
    jobs,
    fault: capacityFault(service),
    env: {},
    capMs,
    spreadChecks: [afterRetryAfter(service.retryAfter)],
    targets: (sdk, ideal) => [
      allUp(sdk),
      maxReady(sdk, 25_000),
      {
        pass: sdk.requestsPerJob <= 4,
        target: 'requests per job at the service ≤ 4',
        measured: `${sdk.requestsPerJob.toFixed(2)} requests per job`,
      },
      spreadVerdict(sdk, ideal),
    ],
  };
}

/**
 * The lockstep trap: no fault, but a small capacity-limited service, and the whole fleet
 * released into it at one instant; most of it is turned away with the same `Retry-After`.
 */
function lockstep(jobs: number, service: Capacity, capMs: number): Scenario {
  return {
    id: 'lockstep-429',
    label: `all at one instant into a small service: ${capacityLabel(service)}`,
    jobs,
    fault: capacityFault(service),
    env: {},
    capMs,
    spreadChecks: [afterRetryAfter(service.retryAfter)],
    targets: (sdk, ideal) => [
      allUp(sdk),
      maxReady(sdk, 30_000),
      attemptsVerdict(sdk, ideal),
      spreadVerdict(sdk, ideal),
    ],
  };
}

/**
 * A flapping service: connections reset for `downSeconds`, then forwarded for `upSeconds`,
 * `cycles` times, then up for good. Each up spell is checked over itself, the last one over
 * the full window.
 */
function flapping(
  jobs: number,
  downSeconds: number,
  upSeconds: number,
  cycles: number,
  capMs: number,
): Scenario {
  const periodMs = (downSeconds + upSeconds) * 1000;
  const spreadChecks = Array.from({ length: cycles }, (_, cycle) =>
    afterRecovery(
      cycle * periodMs + downSeconds * 1000,
      cycle < cycles - 1 ? upSeconds * 1000 : SPREAD_WINDOW_MS,
    ),
  );
  return {
    id: 'flapping',
    label: `every connection reset for ${downSeconds} s, then forwarded for ${upSeconds} s, ${cycles} times, then up`,
    jobs,
    fault: { kind: 'flapping', downSeconds, upSeconds, cycles },
    env: {},
    capMs,
    spreadChecks,
    targets: (sdk, ideal) => [allUp(sdk), attemptsVerdict(sdk, ideal), spreadVerdict(sdk, ideal)],
  };
}

/** A brownout: a share of the requests answered 503 (no `Retry-After`) for a while. */
function brownout(jobs: number, rate: number, brownoutSeconds: number, capMs: number): Scenario {
  return {
    id: 'brownout',
    label: `${Math.round(rate * 100)} % of requests answered 503 (no Retry-After) for ${brownoutSeconds} s`,
    jobs,
    fault: { kind: 'random503', rate, seconds: brownoutSeconds },
    env: {},
    capMs,
    spreadChecks: [afterRecovery(brownoutSeconds * 1000)],
    targets: (sdk, ideal) => [allUp(sdk), attemptsVerdict(sdk, ideal), spreadVerdict(sdk, ideal)],
  };
}

function unauthorized(jobs: number, capMs: number): Scenario {
  return {
    id: 'unauthorized',
    label: 'every request answered 401',
    jobs,
    fault: { kind: 'unauthorized' },
    env: {},
    capMs,
    spreadChecks: [],
    targets: (sdk) => [
      {
        pass: sdk.up === 0 && sdk.failureMax !== null && sdk.failureMax <= 2_000,
        target: 'every job failed within 2 s',
        measured: `${sdk.jobs - sdk.up} of ${sdk.jobs} failed, the last at ${seconds(sdk.failureMax)}`,
      },
      {
        pass: sdk.requestsPerJobRange[0] === 1 && sdk.requestsPerJobRange[1] === 1,
        target: 'exactly 1 request per job at the service',
        measured: `${sdk.requestsPerJobRange[0]} to ${sdk.requestsPerJobRange[1]} requests per job`,
      },
    ],
  };
}

/** The full plan: the figures docs/fleet.md shows. */
export const FULL_PLAN: Plan = {
  scenarios: [
    outage(5, 500, 150_000),
    outage(20, 200, 150_000),
    longOutage('outage-60s', 60, 200, 120_000, 150_000),
    random503(500, 150_000),
    overload(200, 20, 150_000),
    // 2 000 jobs, the largest fleet this machine carries, into 2 000 requests a second.
    lockstep(2_000, { capacity: 50, serviceMs: 100, retryAfter: 2 }, 150_000),
    flapping(500, 3, 3, 3, 150_000),
    brownout(500, 0.8, 10, 150_000),
    unauthorized(200, 150_000),
  ],
  command: { runs: 20, outageSeconds: 10, capMs: 10_000 + 60_000 },
  caching: { crashStarts: 20, cacheTtlMs: 30_000, agentJobs: 200, capMs: 60_000 },
  rotation: {
    watchJobs: 200,
    intervalMs: 5_000,
    graceMs: 2_000,
    outageSeconds: 30,
    cacheJobs: 200,
    ttlMs: 5_000,
    cacheSeconds: 15,
  },
};

/** The short plan: the same scenarios, small and brief, to prove the harness runs. */
export const SHORT_PLAN: Plan = {
  scenarios: [
    outage(2, 20, 30_000, {}, 'outage-5s'),
    outage(2, 20, 30_000, {}, 'outage-20s'),
    longOutage('outage-60s', 3, 20, 20_000, 30_000),
    random503(20, 30_000),
    // 5 in flight, not 20: with 20 jobs a capacity of 20 would never shed anything.
    overload(20, 5, 30_000),
    lockstep(20, { capacity: 5, serviceMs: 50, retryAfter: 2 }, 30_000),
    flapping(20, 1, 1, 3, 30_000),
    brownout(20, 0.8, 3, 30_000),
    unauthorized(20, 30_000),
  ],
  command: { runs: 3, outageSeconds: 2, capMs: 2_000 + 30_000 },
  caching: { crashStarts: 4, cacheTtlMs: 30_000, agentJobs: 10, capMs: 30_000 },
  rotation: {
    watchJobs: 20,
    intervalMs: 5_000,
    graceMs: 2_000,
    outageSeconds: 8,
    cacheJobs: 20,
    ttlMs: 5_000,
    cacheSeconds: 8,
  },
};
