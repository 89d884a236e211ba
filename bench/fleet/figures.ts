/**
 * The figures of one fleet run (one scenario, one kind of client), from the jobs' own reports
 * and the proxy's counts: what share came up, how fast, how many attempts each job made, how
 * many requests the service saw, how hard they hit it in the worst second, and whether the
 * attempts after each recovery or `Retry-After` came as a herd (the busiest 100 ms against the
 * mean, as spread.ts defines it for the simulation too).
 */
import { quantile } from '../lib.ts';
import type { FleetOutcome } from './processes.ts';
import type { JobKind, ProxyCounts, Stall } from './protocol.ts';
import { BUCKET_MS, type Spread, type SpreadCheck, spreadAfter, worstSpread } from './spread.ts';

/** The figures of one scenario for one kind of client. Times are ms; null where none apply. */
export interface FleetFigures {
  readonly scenario: string;
  readonly kind: JobKind;
  /**
   * What sent the requests the proxy saw: `node:http`, `fetch`, both joined by `+` when it saw
   * both, or `—` when no HTTP request reached it.
   */
  readonly transport: string;
  readonly jobs: number;
  readonly up: number;
  readonly upPercent: number;
  /** Time to ready of the jobs that came up. */
  readonly readyP50: number | null;
  readonly readyP95: number | null;
  readonly readyMax: number | null;
  /** Time to failure of the jobs that failed (unfinished ones included, at the cap). */
  readonly failureMax: number | null;
  /** Attempts per job as the clients counted them (the SDK's through its logger). */
  readonly attemptsPerJob: number;
  /** HTTP requests per job that reached the proxy. */
  readonly requestsPerJob: number;
  /** The fewest and most HTTP requests any one job made at the proxy. */
  readonly requestsPerJobRange: readonly [number, number];
  readonly peakRequestsPerSecond: number;
  readonly peakAttemptsPerSecond: number;
  /** Ms from the start instant to the last job's report. */
  readonly wallMs: number;
  /** The jobs that failed, by error name. */
  readonly errors: Readonly<Record<string, number>>;
  /** The herd figure after each of the scenario's checks (none for some scenarios). */
  readonly spreads: readonly Spread[];
  /**
   * The same figure from the clients' side: the attempts by the instant each client started
   * them (its own clock), not by when the proxy handled them. Where the two differ, what lies
   * between them (the workers' sockets, the proxy's accept queue and event loop) made the
   * difference, not the retry curve. Diagnostic only; the target reads {@link spreads}.
   */
  readonly sentSpreads: readonly Spread[];
  /**
   * The same figure at the proxy counting only retries: HTTP requests of a job that had sent
   * one before (a reset connection names no job, so these leave resets out). In the lockstep
   * trap and the overload this is the wave that comes back after `Retry-After`, without the
   * tail of the first attempts, which a machine that cannot start every job at one instant
   * spreads over the first seconds. Diagnostic only.
   */
  readonly retrySpreads: readonly Spread[];
  /**
   * Retries only, by the instant each client started them (every attempt of a job after its
   * first, on the worker's clock): the retry curve as the clients ran it, before the sockets,
   * the kernel and the proxy. Diagnostic only.
   */
  readonly sentRetrySpreads: readonly Spread[];
  /** When the jobs' first requests reached the proxy: the first, the median and the last, in ms. */
  readonly firstRequests: {
    readonly first: number;
    readonly p50: number;
    readonly last: number;
  } | null;
  /**
   * The longest event-loop stall in each herd window (aligned with {@link spreads}), in ms, in
   * the service and in any worker: a stall of a few hundred ms bunches that much of the wave
   * into one 100 ms bucket, which the harness then measures, not the client.
   */
  readonly windowStalls: readonly { readonly serviceMs: number; readonly workerMs: number }[];
  /** The spread that speaks for the run, see {@link worstSpread}; null without checks. */
  readonly worstSpread: Spread | null;
  /** The proxy's totals. */
  readonly proxy: Omit<ProxyCounts, 'perJob' | 'timeline' | 'attemptsPer100Ms' | 'stalls'>;
  /** The most ms a worker finished arming after the start instant (0 = every job in time). */
  readonly lateMs: number;
  /** The largest peak resident memory of one worker process, in MB. */
  readonly workerMaxRssMb: number;
  /** The longest a worker's event loop was held up while its jobs ran, in ms. */
  readonly workerMaxLoopDelayMs: number;
}

/** Computes the figures of one fleet run; `checks` are the scenario's herd checks. */
export function figuresOf(
  scenario: string,
  kind: JobKind,
  outcome: FleetOutcome,
  counts: ProxyCounts,
  checks: readonly SpreadCheck[] = [],
): FleetFigures {
  const { results } = outcome;
  const ready = results.filter((result) => result.ok).map((result) => result.ms);
  const failed = results.filter((result) => !result.ok);
  const errors: Record<string, number> = {};
  for (const result of failed) {
    const name = result.error ?? 'Error';
    errors[name] = (errors[name] ?? 0) + 1;
  }
  const perJob = results.map((result) => counts.perJob[result.id] ?? 0);
  const jobs = results.length;
  const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);
  const {
    perJob: _perJob,
    timeline: _timeline,
    attemptsPer100Ms,
    stalls: serviceStalls,
    ...proxy
  } = counts;
  // A stall counts in a window when the time it held the loop up overlaps the window.
  const longest = (stalls: readonly Stall[], check: SpreadCheck) => {
    const from = outcome.startAt + check.atMs;
    const to = from + check.windowMs;
    let most = 0;
    for (const [end, ms] of stalls) if (end > from && end - ms < to) most = Math.max(most, ms);
    return most;
  };
  const windowStalls = checks.map((check) => ({
    serviceMs: longest(serviceStalls, check),
    workerMs: longest(outcome.workerStalls, check),
  }));
  const spreads = checks.map((check) => spreadAfter(attemptsPer100Ms, check));
  const bucketed = (times: Iterable<number>) => {
    const buckets: number[] = [];
    for (const at of times) {
      if (at < 0) continue;
      const bucket = Math.floor(at / BUCKET_MS);
      while (buckets.length <= bucket) buckets.push(0);
      buckets[bucket] = (buckets[bucket] ?? 0) + 1;
    }
    return buckets;
  };
  const sent = bucketed(results.flatMap((result) => result.sentAt));
  const sentRetries = bucketed(results.flatMap((result) => result.sentAt.slice(1)));
  const sentSpreads = checks.map((check) => spreadAfter(sent, check));
  const sentRetrySpreads = checks.map((check) => spreadAfter(sentRetries, check));
  const seen = new Set<string>();
  const retries: number[] = [];
  const firsts: number[] = [];
  for (const [at, job] of counts.timeline) {
    if (!seen.has(job)) {
      seen.add(job);
      firsts.push(at);
      continue;
    }
    if (at < 0) continue;
    const bucket = Math.floor(at / BUCKET_MS);
    while (retries.length <= bucket) retries.push(0);
    retries[bucket] = (retries[bucket] ?? 0) + 1;
  }
  const retrySpreads = checks.map((check) => spreadAfter(retries, check));
  const senders = (['node:http', 'fetch'] as const).filter((sender) => counts.senders[sender] > 0);
  return {
    scenario,
    kind,
    transport: senders.length === 0 ? '—' : senders.join(' + '),
    jobs,
    up: ready.length,
    upPercent: jobs === 0 ? 0 : (100 * ready.length) / jobs,
    readyP50: ready.length === 0 ? null : quantile(ready, 0.5),
    readyP95: ready.length === 0 ? null : quantile(ready, 0.95),
    readyMax: ready.length === 0 ? null : Math.max(...ready),
    failureMax: failed.length === 0 ? null : Math.max(...failed.map((result) => result.ms)),
    attemptsPerJob: jobs === 0 ? 0 : sum(results.map((result) => result.attempts)) / jobs,
    requestsPerJob: jobs === 0 ? 0 : sum(perJob) / jobs,
    requestsPerJobRange: [Math.min(...perJob), Math.max(...perJob)],
    peakRequestsPerSecond: counts.peakRequestsPerSecond,
    peakAttemptsPerSecond: counts.peakAttemptsPerSecond,
    wallMs: outcome.wallMs,
    errors,
    spreads,
    worstSpread: worstSpread(spreads),
    sentSpreads,
    retrySpreads,
    sentRetrySpreads,
    firstRequests:
      firsts.length === 0
        ? null
        : { first: firsts[0] ?? 0, p50: quantile(firsts, 0.5), last: Math.max(...firsts) },
    windowStalls,
    proxy,
    lateMs: outcome.lateMs,
    workerMaxRssMb: outcome.workerMaxRssMb,
    workerMaxLoopDelayMs: outcome.workerMaxLoopDelayMs,
  };
}
