/**
 * The fleet benchmark's child processes, seen from the harness: the service with its fault
 * proxy (service.ts) and the job workers (worker.ts). Every wait here is bounded, and anything
 * unexpected from a child (an early exit, a lost IPC channel, a missed deadline) rejects, so a
 * broken harness fails loudly instead of hanging or reporting half a fleet as a result.
 */
import { type ChildProcess, fork } from 'node:child_process';
import os from 'node:os';
import { benchFile, stopChild } from '../lib.ts';
import {
  type ConfigureMessage,
  epochNow,
  type Fault,
  type JobKind,
  type JobResult,
  type ProxyCounts,
  type ServiceReady,
  type ServiceReply,
  type Stall,
  type WorkerMessage,
  type WorkerPlan,
} from './protocol.ts';

/** How many processes the fleet is spread over: 2 to 4, after the machine's parallelism. */
export const WORKERS = Math.min(4, Math.max(2, os.availableParallelism()));

/** How long a child may take to start and say it is ready. */
const STARTUP_MS = 30_000;
/** How long a worker may take past the scenario's deadline to report. */
const GRACE_MS = 15_000;

/** The environment of a child, without any `SECRETS_VAULT_` variable of the caller's. */
export function cleanEnv(extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('SECRETS_VAULT_')) env[name] = value;
  }
  return { ...env, ...extra };
}

/** Waits for the next IPC message of `child` that `accept` takes, or rejects after `ms`. */
function nextMessage<T>(
  child: ChildProcess,
  what: string,
  ms: number,
  accept: (message: unknown) => T | undefined,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    const onMessage = (message: unknown) => {
      const value = accept(message);
      if (value === undefined) return;
      cleanup();
      resolve(value);
    };
    // A message sent just before the exit may still be on its way: give it a moment.
    const onExit = (code: number | null, signal: string | null) => {
      setTimeout(() => {
        cleanup();
        reject(new Error(`${what}: the child exited first (code ${code}, signal ${signal})`));
      }, 250);
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`${what}: no answer within ${ms} ms`));
    }, ms);
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

/** The service child: the seeded mock behind the fault proxy. */
export interface Service {
  readonly ready: ServiceReady;
  /** Starts a scenario: a fresh fault from `startAt`, the previous counts dropped. */
  configure(fault: Fault, startAt: number): Promise<void>;
  /** The counts of the current scenario. */
  counts(): Promise<ProxyCounts>;
  /** Replaces the whole value of the seeded secret `secret`, as its owner would. */
  rotate(secret: string, value: Readonly<Record<string, string>>): Promise<void>;
  stop(): Promise<void>;
}

/** Forks service.ts and waits until it is listening and seeded. */
export async function startService(): Promise<Service> {
  const child = fork(benchFile('./fleet/service.ts'), [], {
    execArgv: [],
    env: cleanEnv(),
    stdio: 'inherit',
  });
  const ready = await nextMessage(child, 'fleet service start', STARTUP_MS, (message) =>
    (message as { type?: string }).type === 'ready' ? (message as ServiceReady) : undefined,
  );
  const ask = <T>(message: object, type: string, pick: (reply: ServiceReply) => T) => {
    const answer = nextMessage(child, `fleet service ${type}`, 10_000, (raw) => {
      const reply = raw as ServiceReply;
      return reply.type === type ? pick(reply) : undefined;
    });
    child.send(message);
    return answer;
  };
  return {
    ready,
    configure: async (fault, startAt) => {
      const message: ConfigureMessage = { type: 'configure', fault, startAt };
      await ask(message, 'configured', () => true);
    },
    counts: () =>
      ask({ type: 'stats' }, 'stats', (reply) =>
        reply.type === 'stats' ? reply.counts : undefined,
      ) as Promise<ProxyCounts>,
    rotate: async (secret, value) => {
      await ask({ type: 'rotate', secret, value }, 'rotated', () => true);
    },
    stop: () => stopChild(child),
  };
}

/** One fleet run: which client, how many jobs, against what, with what in the environment. */
export interface FleetRun {
  readonly kind: JobKind;
  readonly jobs: number;
  readonly baseUrl: string;
  readonly token: string;
  readonly vaultId: string;
  /** Extra environment of the workers (the SDK's knobs). */
  readonly env: Readonly<Record<string, string>>;
  /** Ms after the start instant at which unfinished jobs count as not up. */
  readonly capMs: number;
  /** Called with the start instant once every worker is ready, before any job is armed. */
  readonly beforeStart: (startAt: number) => Promise<void>;
}

/** What a fleet run returns: every job's result, and when the last one was in. */
export interface FleetOutcome {
  readonly startAt: number;
  readonly results: readonly JobResult[];
  /** Ms from the start instant to the last worker's report. */
  readonly wallMs: number;
  /** The most ms any worker finished building its clients after the start instant (0 = in time). */
  readonly lateMs: number;
  /** The largest peak resident memory of one worker, in MB. */
  readonly workerMaxRssMb: number;
  /** The longest any worker's event loop was held up while its jobs ran, in ms. */
  readonly workerMaxLoopDelayMs: number;
  /** Every worker's event-loop stalls, see {@link watchStalls}. */
  readonly workerStalls: readonly Stall[];
}

/** The fleet's job ids: job-0001, job-0002, … */
export function jobIds(count: number): string[] {
  return Array.from({ length: count }, (_, index) => `job-${String(index + 1).padStart(4, '0')}`);
}

/**
 * Forks the workers, gives each its share of the jobs, starts them all at one instant and
 * collects every job's result.
 */
export async function runFleet(run: FleetRun): Promise<FleetOutcome> {
  const ids = jobIds(run.jobs);
  const count = Math.min(WORKERS, ids.length);
  const shares = Array.from({ length: count }, (_, worker) =>
    ids.filter((_, index) => index % count === worker),
  );
  const children = shares.map(() =>
    fork(benchFile('./fleet/worker.ts'), [], {
      execArgv: [],
      env: cleanEnv(run.env),
      stdio: 'inherit',
    }),
  );
  try {
    const messages = <T extends WorkerMessage['type']>(child: ChildProcess, type: T, ms: number) =>
      nextMessage(child, `fleet worker ${type}`, ms, (message) =>
        (message as WorkerMessage).type === type
          ? (message as Extract<WorkerMessage, { type: T }>)
          : undefined,
      );
    await Promise.all(children.map((child) => messages(child, 'ready', STARTUP_MS)));
    // Room to build every client before the instant: a few hundred microseconds each.
    const startAt = epochNow() + 300 + run.jobs;
    await run.beforeStart(startAt);
    const deadline = startAt + run.capMs;
    const waitMs = deadline - epochNow() + GRACE_MS;
    const armed = children.map((child) => messages(child, 'armed', waitMs));
    const reports = children.map((child) => messages(child, 'results', waitMs));
    children.forEach((child, index) => {
      const plan: WorkerPlan = {
        type: 'plan',
        kind: run.kind,
        jobIds: shares[index] ?? [],
        startAt,
        deadline,
        baseUrl: run.baseUrl,
        token: run.token,
        vaultId: run.vaultId,
      };
      child.send(plan);
    });
    const lateMs = Math.max(...(await Promise.all(armed)).map((message) => message.late));
    const reported = await Promise.all(reports);
    const results = reported.flatMap((message) => message.results);
    const wallMs = epochNow() - startAt;
    const workerMaxRssMb = Math.max(...reported.map((message) => message.maxRssMb));
    const workerMaxLoopDelayMs = Math.max(...reported.map((message) => message.maxLoopDelayMs));
    const workerStalls = reported.flatMap((message) => message.stalls);
    return {
      startAt,
      results,
      wallMs,
      lateMs,
      workerMaxRssMb,
      workerMaxLoopDelayMs,
      workerStalls,
    };
  } finally {
    await Promise.all(children.map(stopChild));
  }
}
