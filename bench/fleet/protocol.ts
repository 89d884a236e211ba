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

/** What the fault proxy does to the traffic of one scenario, from its start instant. */
export type Fault =
  | { readonly kind: 'none' }
  /** Every connection is reset as it arrives, for `seconds` from the start instant. */
  | { readonly kind: 'outage'; readonly seconds: number }
  /** Each request is answered 503 with probability `rate`, else forwarded. */
  | { readonly kind: 'random503'; readonly rate: number }
  /**
   * At most `capacity` requests in flight upstream, each held `serviceMs` first; any request
   * beyond that is answered 429 with `Retry-After: retryAfter` at once.
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
  /** The most HTTP requests in any 1-second window. */
  readonly peakRequestsPerSecond: number;
  /** The most connection attempts (HTTP requests plus refused connections) in any 1-second window. */
  readonly peakAttemptsPerSecond: number;
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
}

/** Worker → harness messages. */
export type WorkerMessage =
  | { readonly type: 'ready' }
  /** The clients are built; `late` is how many ms after the start instant that was (0 = in time). */
  | { readonly type: 'armed'; readonly late: number }
  /** Every job's outcome, and the worker's peak resident memory in MB. */
  | {
      readonly type: 'results';
      readonly results: readonly JobResult[];
      readonly maxRssMb: number;
    };
