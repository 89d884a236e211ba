/**
 * Fault injection: make a route fail the way real networks and servers do, once, N times, or
 * until cleared, so tests can prove what a client does under each fault.
 */

/** What goes wrong. */
export type MockFault =
  /** The connection drops before the request reaches the service: nothing happens. */
  | { readonly kind: 'network-error' }
  /** The service commits the request, then the connection drops: the response is lost. */
  | { readonly kind: 'network-error-after-commit' }
  /** The service answers with this status (and `Retry-After` seconds when given). */
  | {
      readonly kind: 'status';
      readonly status: number;
      readonly retryAfter?: number | undefined;
      readonly errorCode?: string | undefined;
    }
  /** The response is delayed by `ms` milliseconds, then the request runs normally. */
  | { readonly kind: 'delay'; readonly ms: number }
  /**
   * The request is held in flight after it has been accepted (and, for a create, marked as
   * running under its idempotency key) until the returned handle is released.
   */
  | { readonly kind: 'hold' };

/** Which requests a fault applies to. */
export interface FaultTarget {
  /** HTTP method, such as `POST`; any method when omitted. */
  readonly method?: string | undefined;
  /** A path under the base URL, such as `/v1/vaults` or `/v1/vaults/:vaultId/secrets`. */
  readonly path: string;
  /** How many matching requests it hits; `Infinity` (the default) until cleared. */
  readonly times?: number | undefined;
}

/** A fault that has been injected. */
export interface InjectedFault {
  /** How many requests it has hit so far. */
  readonly hits: number;
  /** Stops the fault. */
  clear(): void;
  /** For a `hold` fault: lets the held requests (and later ones) go on. */
  release(): void;
  /** For a `hold` fault: resolves once a request is being held. */
  readonly held: Promise<void>;
}

/** @internal A fault and its bookkeeping. */
export interface ActiveFault {
  readonly fault: MockFault;
  readonly method: string | undefined;
  readonly pattern: RegExp;
  remaining: number;
  hits: number;
  readonly gate: Promise<void>;
  readonly release: () => void;
  readonly onHeld: () => void;
}

/** The fault-injection switchboard of a mock: `mock.faults`. */
export class MockFaults {
  #active: ActiveFault[] = [];

  /**
   * Injects a fault on the requests matching `target`.
   *
   * @example
   * ```ts
   * mock.faults.inject({ method: 'POST', path: '/v1/vaults', times: 1 }, { kind: 'network-error-after-commit' });
   * ```
   */
  inject(target: FaultTarget, fault: MockFault): InjectedFault {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let onHeld!: () => void;
    const held = new Promise<void>((resolve) => {
      onHeld = resolve;
    });
    const active: ActiveFault = {
      fault,
      method: target.method?.toUpperCase(),
      pattern: pathPattern(target.path),
      remaining: target.times ?? Number.POSITIVE_INFINITY,
      hits: 0,
      gate,
      release,
      onHeld,
    };
    this.#active.push(active);
    return {
      get hits() {
        return active.hits;
      },
      clear: () => {
        this.#active = this.#active.filter((item) => item !== active);
        release();
      },
      release,
      held,
    };
  }

  /** Removes every fault and releases every held request. */
  clear(): void {
    for (const active of this.#active) active.release();
    this.#active = [];
  }

  /**
   * @internal Takes the fault that hits this request, counting it down. When several match, the
   * one injected first applies and the others wait for later requests, so a sequence of
   * `times: 1` faults plays out one attempt at a time.
   */
  take(method: string, pathname: string): ActiveFault | undefined {
    const hit = this.#active.find(
      (active) =>
        active.remaining > 0 &&
        (active.method === undefined || active.method === method) &&
        active.pattern.test(normalizePath(pathname)),
    );
    if (hit === undefined) return undefined;
    hit.remaining -= 1;
    hit.hits += 1;
    this.#active = this.#active.filter((active) => active.remaining > 0);
    return hit;
  }
}

function pathPattern(path: string): RegExp {
  const escaped = path
    .replace(/\/+$/, '')
    .split('/')
    .map((segment) =>
      segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    )
    .join('/');
  return new RegExp(`^${escaped}/?$`);
}

// `/v1/%76aults` reaches the same route as `/v1/vaults`: percent-encoded letters, digits and
// `-._~` are decoded first (the normalisation URLs allow), so a spelling cannot dodge a fault.
function normalizePath(pathname: string): string {
  return pathname.replace(/%([0-9A-Fa-f]{2})/g, (encoded, hex: string) => {
    const char = String.fromCharCode(Number.parseInt(hex, 16));
    return /^[A-Za-z0-9\-._~]$/.test(char) ? char : encoded;
  });
}
