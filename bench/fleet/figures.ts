/**
 * The figures of one fleet run (one scenario, one kind of client), from the jobs' own reports
 * and the proxy's counts: what share came up, how fast, how many attempts each job made, how
 * many requests the service saw, and how hard they hit it in the worst second.
 */
import { quantile } from '../lib.ts';
import type { FleetOutcome } from './processes.ts';
import type { JobKind, ProxyCounts } from './protocol.ts';

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
  /** The proxy's totals. */
  readonly proxy: Omit<ProxyCounts, 'perJob' | 'timeline'>;
  /** The most ms a worker finished arming after the start instant (0 = every job in time). */
  readonly lateMs: number;
  /** The largest peak resident memory of one worker process, in MB. */
  readonly workerMaxRssMb: number;
}

/** Computes the figures of one fleet run. */
export function figuresOf(
  scenario: string,
  kind: JobKind,
  outcome: FleetOutcome,
  counts: ProxyCounts,
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
  const { perJob: _perJob, timeline: _timeline, ...proxy } = counts;
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
    proxy,
    lateMs: outcome.lateMs,
    workerMaxRssMb: outcome.workerMaxRssMb,
  };
}
