/**
 * The fleet simulation's scenarios: a service model (at most `capacity` requests in flight,
 * each served in `serviceMs`, a request beyond that answered 429 with `Retry-After` at once),
 * the faults laid over it in time, the startup `wait` the SDK's jobs run with, and the instants
 * after which the fleet's arrivals must be spread (a recovery, a `Retry-After` running out).
 */

/** The capacity-limited service every scenario runs on, outside its faults. */
export interface ServiceModel {
  /** Requests in flight at most; one more is answered 429 at once. */
  readonly capacity: number;
  /** How long the service takes to answer a request it accepted (200). */
  readonly serviceMs: number;
  /** The `Retry-After` (seconds) of its 429. */
  readonly retryAfterSeconds: number;
}

/** A fault over the span [fromMs, toMs) of the simulation's time. */
export type Fault =
  /** Every connection refused: the client gets no HTTP answer. */
  | { readonly kind: 'refused'; readonly fromMs: number; readonly toMs: number }
  /** This share of requests answered 503 at once (no `Retry-After`), the rest served. */
  | {
      readonly kind: 'brownout';
      readonly fromMs: number;
      readonly toMs: number;
      readonly fraction: number;
    }
  /** Every request answered 401 at once. */
  | { readonly kind: 'unauthorized'; readonly fromMs: number; readonly toMs: number };

/** An instant after which the fleet's arrivals are checked for a spike. */
export interface SpreadCheck {
  /** Ms after the release of the fleet. */
  readonly atMs: number;
  /** What happens then, in words. */
  readonly what: string;
  /** How long after it the window runs (10 s, or less when the next fault starts sooner). */
  readonly windowMs: number;
}

/** One scenario: a fleet released at one instant (time 0) into a service and its faults. */
export interface SimScenario {
  readonly id: string;
  /** The faults, in words. */
  readonly label: string;
  readonly service: ServiceModel;
  readonly faults: readonly Fault[];
  /** The `wait` of each SDK job's `secrets.load` (startup mode), in ms. */
  readonly waitMs: number;
  /** When the service is whole again for good (0 when it never fails, null when never). */
  readonly recoveryMs: number | null;
  readonly spreadChecks: readonly SpreadCheck[];
  /** Whether every answer is a verdict (each job must then send exactly one request). */
  readonly verdict: boolean;
}

/** The SDK's default startup `wait` of `secrets.load`. */
export const DEFAULT_WAIT_MS = 60_000;
/** How long after a spread check's instant its window runs, at most. */
export const SPREAD_WINDOW_MS = 10_000;
/** When the ideal client, which never gives up, is stopped; a job not up by then is not up. */
export const IDEAL_CAP_MS = 180_000;

/** The service of most scenarios: 10 000 requests a second at most. */
const SERVICE: ServiceModel = { capacity: 500, serviceMs: 50, retryAfterSeconds: 1 };
/** The lockstep trap's: a small service (4 000 a second) telling every job to come back in 2 s. */
const SMALL_SERVICE: ServiceModel = { capacity: 200, serviceMs: 50, retryAfterSeconds: 2 };

const afterRetryAfter = (service: ServiceModel): SpreadCheck => ({
  atMs: service.retryAfterSeconds * 1000,
  what: `the first Retry-After (${service.retryAfterSeconds} s) runs out`,
  windowMs: SPREAD_WINDOW_MS,
});

const afterRecovery = (atMs: number, windowMs = SPREAD_WINDOW_MS): SpreadCheck => ({
  atMs,
  what: `recovery at ${atMs / 1000} s`,
  windowMs,
});

const serviceLabel = (service: ServiceModel) =>
  `≤ ${service.capacity} in flight, ${service.serviceMs} ms each, 429 + Retry-After: ${service.retryAfterSeconds} beyond`;

function throttled(): SimScenario {
  return {
    id: 'throttled',
    label: 'no fault: the capacity-limited service only',
    service: SERVICE,
    faults: [],
    waitMs: DEFAULT_WAIT_MS,
    recoveryMs: 0,
    spreadChecks: [afterRetryAfter(SERVICE)],
    verdict: false,
  };
}

function outage(seconds: number): SimScenario {
  const toMs = seconds * 1000;
  return {
    id: `outage-${seconds}s`,
    label: `connections refused for ${seconds} s, then the service`,
    service: SERVICE,
    faults: [{ kind: 'refused', fromMs: 0, toMs }],
    waitMs: DEFAULT_WAIT_MS,
    recoveryMs: toMs,
    spreadChecks: [afterRecovery(toMs)],
    verdict: false,
  };
}

function brownout(seconds: number, fraction: number): SimScenario {
  const toMs = seconds * 1000;
  return {
    id: `brownout-${seconds}s`,
    label: `${fraction * 100} % of requests answered 503 (no Retry-After) for ${seconds} s`,
    service: SERVICE,
    faults: [{ kind: 'brownout', fromMs: 0, toMs, fraction }],
    waitMs: DEFAULT_WAIT_MS,
    recoveryMs: toMs,
    spreadChecks: [afterRecovery(toMs)],
    verdict: false,
  };
}

function lockstep(): SimScenario {
  return {
    id: 'lockstep-429',
    label: `all at one instant into a small service (${serviceLabel(SMALL_SERVICE)})`,
    service: SMALL_SERVICE,
    faults: [],
    waitMs: DEFAULT_WAIT_MS,
    recoveryMs: 0,
    spreadChecks: [afterRetryAfter(SMALL_SERVICE)],
    verdict: false,
  };
}

function flapping(downSeconds: number, upSeconds: number, cycles: number): SimScenario {
  const period = (downSeconds + upSeconds) * 1000;
  const faults: Fault[] = [];
  const checks: SpreadCheck[] = [];
  for (let cycle = 0; cycle < cycles; cycle += 1) {
    const fromMs = cycle * period;
    const toMs = fromMs + downSeconds * 1000;
    faults.push({ kind: 'refused', fromMs, toMs });
    // Each up spell is checked over itself; the last one, over the full window.
    checks.push(afterRecovery(toMs, cycle < cycles - 1 ? upSeconds * 1000 : SPREAD_WINDOW_MS));
  }
  const last = faults.at(-1);
  return {
    id: 'flapping',
    label: `down ${downSeconds} s / up ${upSeconds} s, ${cycles} times, then up`,
    service: SERVICE,
    faults,
    waitMs: DEFAULT_WAIT_MS,
    recoveryMs: last?.toMs ?? 0,
    spreadChecks: checks,
    verdict: false,
  };
}

function unauthorized(): SimScenario {
  return {
    id: 'unauthorized',
    label: 'every request answered 401',
    service: SERVICE,
    faults: [{ kind: 'unauthorized', fromMs: 0, toMs: Number.POSITIVE_INFINITY }],
    waitMs: DEFAULT_WAIT_MS,
    recoveryMs: null,
    spreadChecks: [],
    verdict: true,
  };
}

/** Every scenario, in the order of the report; both modes run them all. */
export const SCENARIOS: readonly SimScenario[] = [
  throttled(),
  outage(5),
  outage(30),
  // Recovery 5 s before the wait ends: the jobs still waiting then all share one deadline.
  outage(55),
  brownout(20, 0.8),
  lockstep(),
  flapping(3, 3, 5),
  unauthorized(),
];

/** The service of a scenario, in words. */
export function describeService(service: ServiceModel): string {
  return serviceLabel(service);
}
