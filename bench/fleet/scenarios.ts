/**
 * The fleet benchmark's scenarios and the targets the SDK is held to in each. The full plan is
 * the real measurement; the short plan (`--short`) keeps the same scenarios at a size and
 * length that only prove the harness works.
 */
import type { FleetFigures } from './figures.ts';
import type { Fault } from './protocol.ts';
import type { RotationPlan } from './rotation.ts';

/** One target: whether the SDK met it, and what was measured. */
export interface Verdict {
  readonly pass: boolean;
  readonly target: string;
  readonly measured: string;
}

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
    targets: (sdk, ideal) => [
      allUp(sdk),
      maxReady(sdk, (outageSeconds + 10) * 1000),
      {
        pass: sdk.attemptsPerJob <= 1.25 * ideal.attemptsPerJob,
        target: "attempts per job ≤ 1.25 × the ideal's",
        measured: `${sdk.attemptsPerJob.toFixed(2)} vs ideal ${ideal.attemptsPerJob.toFixed(2)} (≤ ${(1.25 * ideal.attemptsPerJob).toFixed(2)})`,
      },
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
    targets: (sdk) => [allUp(sdk), maxReady(sdk, (outageSeconds + 10) * 1000)],
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

function overload(jobs: number, capacity: number, capMs: number): Scenario {
  const retryAfter = 1;
  const serviceMs = 200;
  return {
    id: 'overload',
    label: `at most ${capacity} in flight (${serviceMs} ms each), 429 with Retry-After: ${retryAfter} beyond`,
    jobs,
    fault: { kind: 'overload', capacity, retryAfter, serviceMs },
    env: {},
    capMs,
    targets: (sdk) => [
      allUp(sdk),
      maxReady(sdk, 25_000),
      {
        pass: sdk.requestsPerJob <= 4,
        target: 'requests per job at the service ≤ 4',
        measured: `${sdk.requestsPerJob.toFixed(2)} requests per job`,
      },
    ],
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
