/**
 * A job worker of the fleet benchmark, forked by run.ts: one process running its share of the
 * fleet. Each job is one startup job with its own client, built before the start instant; at
 * that instant every job of every worker calls `client.secrets.load(vaultId)` (or runs the
 * ideal model, ideal.ts) at once, as a fleet does when a deploy starts it.
 *
 * The worker's environment holds the scenario's knobs (such as `SECRETS_VAULT_WAIT`), so the
 * SDK's clients keep their default settings otherwise, their default sender included: a client
 * is given no `fetch`, and counts its attempts through its `logger`. It reports each job's
 * outcome over IPC ({@link JobResult}) and exits; at the scenario's deadline it reports
 * unfinished jobs as `Unfinished`, and it exits at once if the harness goes away.
 */
import { SecretsVault } from '@secrets-vault/sdk';
import { idealLoad } from './ideal.ts';
import {
  epochNow,
  type JobResult,
  type WorkerMessage,
  type WorkerPlan,
  watchStalls,
} from './protocol.ts';

function send(message: WorkerMessage): Promise<void> {
  return new Promise((resolve, reject) => {
    if (!process.send) {
      reject(new Error('worker.ts runs only as a child of run.ts'));
      return;
    }
    process.send(message, undefined, {}, (error) => (error ? reject(error) : resolve()));
  });
}

const ignore = () => {};

/** One job, armed: `run` starts it and resolves to its outcome. */
interface ArmedJob {
  readonly id: string;
  readonly run: () => Promise<JobResult>;
  /** The outcome so far, for a job still running at the deadline. */
  readonly unfinished: () => JobResult;
}

function arm(plan: WorkerPlan, id: string, stop: AbortSignal): ArmedJob {
  let attempts = 0;
  const sentAt: number[] = [];
  const elapsed = () => epochNow() - plan.startAt;
  const attempted = () => {
    attempts += 1;
    sentAt.push(elapsed());
  };
  const outcome = (ok: boolean, error: string | null): JobResult => ({
    id,
    ok,
    error,
    ms: elapsed(),
    attempts,
    sentAt,
  });
  let run: () => Promise<string | null>;
  if (plan.kind === 'sdk') {
    // No `fetch` option: a job's client sends with the SDK's default sender (node:http in
    // Node), and that is what is measured. Attempts are counted from the client's log instead,
    // which leaves the sender alone: the SDK logs each attempt once, at debug level, as it
    // sends it (and never anything else at that level).
    const client = new SecretsVault({
      baseUrl: plan.baseUrl,
      token: plan.token,
      headers: { 'x-fleet-job': id },
      logger: {
        debug: attempted,
        info: ignore,
        warn: ignore,
        error: ignore,
      },
      logLevel: 'debug',
    });
    run = async () => {
      await client.secrets.load(plan.vaultId);
      return null;
    };
  } else {
    run = () =>
      idealLoad({
        baseUrl: plan.baseUrl,
        token: plan.token,
        vaultId: plan.vaultId,
        jobId: id,
        signal: stop,
        onAttempt: attempted,
      });
  }
  return {
    id,
    run: async () => {
      try {
        const verdict = await run();
        return outcome(verdict === null, verdict);
      } catch (error) {
        if (stop.aborted) return outcome(false, 'Unfinished');
        return outcome(false, error instanceof Error ? error.name : typeof error);
      }
    },
    unfinished: () => outcome(false, 'Unfinished'),
  };
}

async function execute(plan: WorkerPlan): Promise<void> {
  const stop = new AbortController();
  const jobs = plan.jobIds.map((id) => arm(plan, id, stop.signal));
  await send({ type: 'armed', late: Math.max(0, epochNow() - plan.startAt) });
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, plan.startAt - epochNow())));
  // setTimeout may fire up to a millisecond early; the start instant is not before startAt.
  while (epochNow() < plan.startAt) {
    /* spin for the last fraction of a millisecond */
  }
  // How long the event loop is held up while the jobs run: a stall delays their sends.
  const loop = watchStalls();
  const results = new Map<string, JobResult>();
  const all = Promise.all(
    jobs.map((job) => job.run().then((result) => results.set(job.id, result))),
  );
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, Math.max(0, plan.deadline - epochNow()));
  });
  await Promise.race([all, deadline]);
  clearTimeout(timer);
  stop.abort();
  await send({
    type: 'results',
    results: jobs.map((job) => results.get(job.id) ?? job.unfinished()),
    // maxRSS is in kilobytes: the peak of the whole run, clients and sockets included.
    maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
    maxLoopDelayMs: Math.max(0, ...loop.stalls().map(([, ms]) => ms)),
    stalls: loop.stalls(),
  });
  // Whatever a job left behind (an SDK call still waiting to retry) ends with the process.
  process.exit(0);
}

process.on('message', (message) => {
  const plan = message as WorkerPlan;
  if (plan.type !== 'plan') return;
  execute(plan).catch((error: unknown) => {
    console.error(`fleet worker: ${error instanceof Error ? error.stack : String(error)}`);
    process.exit(1);
  });
});
process.on('disconnect', () => process.exit(0));
await send({ type: 'ready' });
