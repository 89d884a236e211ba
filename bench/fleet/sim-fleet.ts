/**
 * One fleet through one scenario, as a discrete-event simulation: every job of the fleet calls
 * `secrets.load` at time 0, and the simulation replays what each job's client does from there,
 * on virtual time, against the scenario's service model. Nothing is sent and nothing waits: an
 * event queue holds each job's next step (send an attempt, the service's answer, the end of its
 * wait), and the time jumps from one event to the next.
 *
 * Two clients: the SDK, whose every decision is its own retry policy (src/core/retry.ts, asked
 * as its call loop in src/core/call.ts asks it, deadline and all), and the ideal client model of
 * ideal.ts (its own `idealDelay`, the documented curve, no deadline).
 */
import { idealDelay } from './ideal.ts';
import { EventQueue } from './sim-queue.ts';
import { type Fault, IDEAL_CAP_MS, type SimScenario } from './sim-scenarios.ts';
import { clock, errors, onVirtualTime, retry } from './sim-sdk.ts';
import { BUCKET_MS } from './spread.ts';

type SecretsVaultError = InstanceType<typeof errors.SecretsVaultError>;

/** Which client the jobs run. */
export type ClientKind = 'sdk' | 'ideal';

/** One way an attempt can fail, as the SDK's error and as the ideal client reads it. */
interface Answer {
  readonly error: SecretsVaultError;
  /** `Retry-After` in seconds, or null without one. */
  readonly retryAfterSeconds: number | null;
  /** A verdict (401): the ideal client gives up at once. */
  readonly verdict: boolean;
}

/** What a fleet did: per job and per 100 ms of the service's time. */
export interface FleetRun {
  readonly kind: ClientKind;
  readonly jobs: number;
  /** Ms from the release to ready, per job; NaN for a job that did not come up. */
  readonly readyAt: Float64Array;
  /** Ms from the release to the failure of its call, per job; NaN for one that did not fail. */
  readonly failedAt: Float64Array;
  /** Attempts per job: every connection tried, refused ones included. */
  readonly attempts: Int32Array;
  /** HTTP requests per job: the attempts the service answered (or accepted). */
  readonly requests: Int32Array;
  /** Attempts that reached the service in each 100 ms from the release. */
  readonly arrivals: Int32Array;
  /** The failed calls, by the name of the error each ended with. */
  readonly errors: Readonly<Record<string, number>>;
  /** How many events the run processed. */
  readonly events: number;
}

// What an event does, in the low 3 bits of its payload; the job's index is the rest.
const SEND = 0;
const DONE = 1; // the service answered 200; a slot frees
const FREE = 2; // a slot frees, its job having given up on it
const END = 3; // the job's call ends with the error it was waiting on
const TIMED_OUT = 4; // the attempt in flight is cut at the job's deadline
const KIND_BITS = 3;
const KIND_MASK = 0b111;

// The request of `secrets.load`: a GET, so always safe to retry.
const REQUEST = {
  method: 'GET',
  url: 'https://vault.example.com/v1/vaults/vlt_fleet/secrets/values',
  idempotencyKey: null,
} as const;
// The SDK's default per-attempt `timeout`.
const ATTEMPT_TIMEOUT_MS = 30_000;

/** The error of an answer with `status`, made by the SDK's own function from status to class. */
function answered(status: number, errorCode: string, headers: Record<string, string> = {}) {
  const body = { statusCode: status, errorCode, message: `fleet simulation: ${errorCode}` };
  return errors.makeAPIError(status, new Headers(headers), body, []);
}

/**
 * The answers of a scenario, made once and reused: the policy reads only an error's class,
 * status, code and `Retry-After`, and never changes one.
 */
function answersOf(scenario: SimScenario) {
  const retryAfter = scenario.service.retryAfterSeconds;
  const refusedCause = Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:443'), {
    code: 'ECONNREFUSED',
  });
  const refused: Answer = {
    error: new errors.APIConnectionError('Connection error: ECONNREFUSED 10.0.0.1:443', {
      cause: refusedCause,
    }),
    retryAfterSeconds: null,
    verdict: false,
  };
  const throttled: Answer = {
    error: answered(429, 'rate_limited', { 'retry-after': String(retryAfter) }),
    retryAfterSeconds: retryAfter,
    verdict: false,
  };
  const unavailable: Answer = {
    error: answered(503, 'unavailable'),
    retryAfterSeconds: null,
    verdict: false,
  };
  const unauthorized: Answer = {
    error: answered(401, 'unauthorized'),
    retryAfterSeconds: null,
    verdict: true,
  };
  // What `interpretFailure` makes of an attempt cut at the call's deadline.
  const timedOut: Answer = {
    error: new errors.APITimeoutError(
      `Request timed out: the wait of ${scenario.waitMs} ms ran out`,
    ),
    retryAfterSeconds: null,
    verdict: false,
  };
  const list = [refused, throttled, unavailable, unauthorized, timedOut] as const;
  return { list, refused, throttled, unavailable, unauthorized, timedOut };
}

function faultAt(faults: readonly Fault[], time: number): Fault | undefined {
  for (const fault of faults) if (time >= fault.fromMs && time < fault.toMs) return fault;
  return undefined;
}

/**
 * Runs `jobs` jobs of `kind` through `scenario`, all released at time 0, on virtual time with
 * jitter seeded by `seed`.
 * @throws when the simulation's own bookkeeping disagrees with itself (a broken harness)
 */
export function simulateFleet(
  scenario: SimScenario,
  jobs: number,
  kind: ClientKind,
  seed: number,
): FleetRun {
  return onVirtualTime(seed, () => run(scenario, jobs, kind));
}

function run(scenario: SimScenario, jobs: number, kind: ClientKind): FleetRun {
  const { service, faults, waitMs } = scenario;
  const sdk = kind === 'sdk';
  const answers = answersOf(scenario);
  const horizonMs = sdk ? waitMs + service.serviceMs + 1 : IDEAL_CAP_MS;
  const readyAt = new Float64Array(jobs).fill(Number.NaN);
  const failedAt = new Float64Array(jobs).fill(Number.NaN);
  const attempts = new Int32Array(jobs);
  const requests = new Int32Array(jobs);
  const arrivals = new Int32Array(Math.ceil(horizonMs / BUCKET_MS) + 1);
  const errorCounts: Record<string, number> = {};
  // The answer each job is waiting on the end of (END), by its index in `answers.list`.
  const pending = new Int8Array(jobs);
  // The ideal client's counts: every failure so far, and answers with a Retry-After.
  const failures = new Int32Array(sdk ? 0 : jobs);
  const retryAfters = new Int32Array(sdk ? 0 : jobs);
  // Each SDK job is a client of its own: its own call's retries, and its own budget.
  const retries: ReturnType<typeof retry.startRetries>[] = [];
  const policy = { maxRetries: 2, wait: waitMs };
  const queue = new EventQueue();
  let inFlight = 0;
  let events = 0;

  clock.ms = 0;
  for (let job = 0; job < jobs; job += 1) {
    if (sdk) retries.push(retry.startRetries(policy, new retry.RetryBudget(), 0));
    queue.push(0, job << KIND_BITS);
  }

  const fail = (job: number, time: number, error: SecretsVaultError) => {
    failedAt[job] = time;
    errorCounts[error.name] = (errorCounts[error.name] ?? 0) + 1;
  };

  const schedule = (job: number, time: number, what: number) => {
    queue.push(time, (job << KIND_BITS) | what);
  };

  // The attempt of `job` at `time` failed with `answer`: what its client does next.
  const failed = (job: number, time: number, answer: Answer) => {
    if (!sdk) {
      if (answer.verdict) return fail(job, time, answer.error);
      failures[job] = (failures[job] ?? 0) + 1;
      if (answer.retryAfterSeconds !== null) retryAfters[job] = (retryAfters[job] ?? 0) + 1;
      const delay = idealDelay(failures[job] ?? 1, answer.retryAfterSeconds, retryAfters[job] ?? 0);
      return schedule(job, time + delay, SEND);
    }
    // The SDK's call loop: ask the policy, then sleep until the retry or the deadline.
    const retriesOfJob = retries[job];
    if (retriesOfJob === undefined) throw new Error(`job ${job} has no retries`);
    const delay = retriesOfJob.next(answer.error, REQUEST, attempts[job] ?? 0);
    if (delay === undefined) return fail(job, time, answer.error);
    const untilDeadline = waitMs - time;
    if (retriesOfJob.last === true) {
      // The rest of the wait, which a Retry-After past the deadline left no retry in.
      pending[job] = answers.list.indexOf(answer);
      return schedule(job, time + Math.min(delay, untilDeadline), END);
    }
    if (delay > untilDeadline) {
      // The sleep ends at the deadline: the call fails as timed out.
      pending[job] = answers.list.indexOf(answers.timedOut);
      return schedule(job, waitMs, END);
    }
    schedule(job, time + delay, SEND);
  };

  const send = (job: number, time: number) => {
    // An attempt is not sent once the call's deadline has passed (call.ts `#attempt`).
    if (sdk && time >= waitMs) return fail(job, time, answers.timedOut.error);
    attempts[job] = (attempts[job] ?? 0) + 1;
    const bucket = Math.floor(time / BUCKET_MS);
    arrivals[bucket] = (arrivals[bucket] ?? 0) + 1;
    const fault = faultAt(faults, time);
    if (fault?.kind === 'refused') return failed(job, time, answers.refused);
    requests[job] = (requests[job] ?? 0) + 1;
    if (fault?.kind === 'unauthorized') return failed(job, time, answers.unauthorized);
    if (fault?.kind === 'brownout' && Math.random() < fault.fraction) {
      return failed(job, time, answers.unavailable);
    }
    if (inFlight >= service.capacity) return failed(job, time, answers.throttled);
    inFlight += 1;
    // The attempt's timeout: the SDK's, cut to what is left of the call's deadline.
    const timeoutMs = sdk
      ? Math.max(1, Math.min(ATTEMPT_TIMEOUT_MS, Math.ceil(waitMs - time)))
      : ATTEMPT_TIMEOUT_MS;
    if (service.serviceMs <= timeoutMs) return schedule(job, time + service.serviceMs, DONE);
    schedule(job, time + service.serviceMs, FREE);
    schedule(job, time + timeoutMs, TIMED_OUT);
  };

  while (queue.size > 0 && queue.peekTime() <= horizonMs) {
    const time = queue.peekTime();
    const payload = queue.pop();
    const job = payload >> KIND_BITS;
    events += 1;
    clock.ms = time;
    switch (payload & KIND_MASK) {
      case SEND:
        send(job, time);
        break;
      case DONE:
        inFlight -= 1;
        readyAt[job] = time;
        retries[job]?.succeeded();
        break;
      case FREE:
        inFlight -= 1;
        break;
      case TIMED_OUT:
        failed(job, time, answers.timedOut);
        break;
      case END: {
        const answer = answers.list[pending[job] ?? -1];
        if (answer === undefined) throw new Error(`job ${job} ended on no answer`);
        fail(job, time, answer.error);
        break;
      }
      default:
        throw new Error(`unknown event ${payload & KIND_MASK}`);
    }
  }

  // Bookkeeping the report relies on: each SDK job ends exactly once, up or failed.
  for (let job = 0; job < jobs; job += 1) {
    const up = !Number.isNaN(readyAt[job] ?? Number.NaN);
    const down = !Number.isNaN(failedAt[job] ?? Number.NaN);
    if (up && down) throw new Error(`job ${job} both came up and failed`);
    if (sdk && !up && !down) throw new Error(`SDK job ${job} neither came up nor failed`);
  }
  return {
    kind,
    jobs,
    readyAt,
    failedAt,
    attempts,
    requests,
    arrivals,
    errors: errorCounts,
    events,
  };
}
