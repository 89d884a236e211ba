/**
 * The messages the fleet benchmark's processes exchange over IPC, and the clock they share.
 * The harness (run.ts), the service with its fault proxy (service.ts) and the job workers
 * (worker.ts) are separate processes; every instant they exchange is epoch milliseconds, read
 * with sub-millisecond precision, so "the start instant" means the same thing in all of them.
 */

/** The current time as epoch milliseconds, with sub-millisecond precision. */
export function epochNow(): number {
  return performance.timeOrigin + performance.now();
}

/** A stall of a process's event loop: [epoch ms when it ended, ms the loop was held up]. */
export type Stall = readonly [number, number];

/**
 * Watches the event loop of this process: a 10 ms interval timer, and every time it fires more
 * than `minMs` late, a {@link Stall}. A stall delays whatever the process would have done
 * during it (a worker's retries, the proxy's stamping of arrivals) and bunches it after it.
 */
export function watchStalls(minMs = 20): { stalls: () => Stall[]; reset: () => void } {
  const period = 10;
  let stalls: Stall[] = [];
  let last = epochNow();
  const timer = setInterval(() => {
    const now = epochNow();
    const late = now - last - period;
    if (late > minMs) stalls.push([now, Math.round(late)]);
    last = now;
  }, period);
  timer.unref();
  return {
    stalls: () => stalls,
    reset: () => {
      stalls = [];
    },
  };
}

/** What the fault proxy does to the traffic of one scenario, from its start instant. */
export type Fault =
  | { readonly kind: 'none' }
  /** Every connection is reset as it arrives, for `seconds` from the start instant. */
  | { readonly kind: 'outage'; readonly seconds: number }
  /**
   * A flapping service: every connection reset for `downSeconds` from the start instant, then
   * forwarded for `upSeconds`, `cycles` times over; forwarded for good afterwards.
   */
  | {
      readonly kind: 'flapping';
      readonly downSeconds: number;
      readonly upSeconds: number;
      readonly cycles: number;
    }
  /**
   * Each request is answered 503 (no `Retry-After`) with probability `rate`, else forwarded;
   * with `seconds`, only for that long from the start instant (a brownout), then forwarded.
   */
  | { readonly kind: 'random503'; readonly rate: number; readonly seconds?: number }
  /**
   * At most `capacity` requests in flight upstream, each held `serviceMs` first; any request
   * beyond that is answered 429 with `Retry-After: retryAfter` at once. The overloaded service
   * and the lockstep trap (a small service a fleet is released into at one instant) are both
   * this fault, with their own capacity, service time and `Retry-After`.
   */
  | {
      readonly kind: 'overload';
      readonly capacity: number;
      readonly retryAfter: number;
      readonly serviceMs: number;
    }
  /** Every request is answered 401. */
  | { readonly kind: 'unauthorized' };

/** What the service child reports once it is listening and seeded. */
export interface ServiceReady {
  readonly type: 'ready';
  /** The fault proxy's base URL: the only address jobs are given. */
  readonly proxyUrl: string;
  /** The served mock's own base URL, behind the proxy. */
  readonly upstreamUrl: string;
  readonly vaultId: string;
  readonly token: string;
  readonly secrets: number;
}

/** Harness → service: a fresh configuration (the previous scenario's records are dropped). */
export interface ConfigureMessage {
  readonly type: 'configure';
  readonly startAt: number;
  readonly fault: Fault;
}

/** Harness → service: asks for the counts of the current scenario. */
export interface StatsRequest {
  readonly type: 'stats';
}

/**
 * What sent a request, as the proxy tells it: `fetch` for a WHATWG fetch (Node's own adds a
 * `Sec-Fetch-Mode` header to every request, which nothing else here sends), `node:http` for
 * anything else, which in this harness is the SDK's node:http sender.
 */
export type Sender = 'node:http' | 'fetch';

/** What the proxy counted during one scenario. */
export interface ProxyCounts {
  /** HTTP requests that reached the proxy (whatever it then did with them). */
  readonly requests: number;
  /** Connections reset on arrival during an outage. */
  readonly refused: number;
  /** Requests passed on to the mock. */
  readonly forwarded: number;
  /** Requests the proxy answered itself, by status (503, 429, 401). */
  readonly answered: Readonly<Record<string, number>>;
  /** HTTP requests by what sent them. */
  readonly senders: Readonly<Record<Sender, number>>;
  /**
   * HTTP requests per job: the `x-fleet-job` header's value, or the `<id>` of a base URL's
   * leading `/fleet-job/<id>` (for the command, which sends no header of ours).
   */
  readonly perJob: Readonly<Record<string, number>>;
  /** Every HTTP request that named its job: [ms since the start instant, job id], in order. */
  readonly timeline: readonly (readonly [number, string])[];
  /**
   * Attempts (HTTP requests plus connections reset) per 100 ms bucket from the start instant:
   * index i counts those that reached the proxy in [i × 100, (i + 1) × 100) ms after it.
   */
  readonly attemptsPer100Ms: readonly number[];
  /** The most HTTP requests in any 1-second window. */
  readonly peakRequestsPerSecond: number;
  /** The most connection attempts (HTTP requests plus refused connections) in any 1-second window. */
  readonly peakAttemptsPerSecond: number;
  /**
   * The longest the service process's event loop was held up during the scenario, in ms: the
   * proxy stamps an attempt when it handles it, so a stall bunches the attempts that arrived
   * during it into the bucket after it.
   */
  readonly maxLoopDelayMs: number;
  /** The service's event-loop stalls during the scenario, see {@link watchStalls}. */
  readonly stalls: readonly Stall[];
  /** The service process's peak resident memory so far (mock and proxy), in MB. */
  readonly maxRssMb: number;
}

/** Harness → service: replaces one secret's whole value, as its owner would. */
export interface RotateRequest {
  readonly type: 'rotate';
  readonly secret: string;
  readonly value: Readonly<Record<string, string>>;
}

/** Service → harness: the answer to {@link ConfigureMessage}, {@link StatsRequest} or {@link RotateRequest}. */
export type ServiceReply =
  | { readonly type: 'configured' }
  | { readonly type: 'rotated' }
  | { readonly type: 'stats'; readonly counts: ProxyCounts };

/** Which client the jobs run: the SDK, or the ideal client model. */
export type JobKind = 'sdk' | 'ideal';

/** Harness → worker: the share of the fleet this worker runs. */
export interface WorkerPlan {
  readonly type: 'plan';
  readonly kind: JobKind;
  readonly jobIds: readonly string[];
  readonly startAt: number;
  /** Epoch ms after which the worker reports unfinished jobs as not up and exits. */
  readonly deadline: number;
  readonly baseUrl: string;
  readonly token: string;
  readonly vaultId: string;
}

/** One job's outcome. */
export interface JobResult {
  readonly id: string;
  readonly ok: boolean;
  /** The error's `name` when the job failed; `Unfinished` when it hit the scenario's cap. */
  readonly error: string | null;
  /** Ms from the start instant to ready, or to the failure. */
  readonly ms: number;
  /**
   * Attempts the client made: for the SDK, the lines its logger got at debug level (the SDK logs
   * each attempt once, as it sends it); for the ideal model, its own count.
   */
  readonly attempts: number;
  /** Ms from the start instant at which the client started each of those attempts. */
  readonly sentAt: readonly number[];
}

/** Worker → harness messages. */
export type WorkerMessage =
  | { readonly type: 'ready' }
  /** The clients are built; `late` is how many ms after the start instant that was (0 = in time). */
  | { readonly type: 'armed'; readonly late: number }
  /**
   * Every job's outcome, the worker's peak resident memory in MB, and the longest its event
   * loop was held up from the start instant on, in ms.
   */
  | {
      readonly type: 'results';
      readonly results: readonly JobResult[];
      readonly maxRssMb: number;
      readonly maxLoopDelayMs: number;
      /** The worker's event-loop stalls from the start instant on, see {@link watchStalls}. */
      readonly stalls: readonly Stall[];
    };
