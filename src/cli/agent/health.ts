/**
 * Whether the service is reachable, as the agent last saw it: one log line when it stops being
 * (with what the first failure was), one when it answers again (with how long it did not), and
 * nothing per request, however many there are in between.
 */
import { logfmtLine } from '../client.js';

/** @internal The service's availability as the agent's requests find it. */
export class UpstreamHealth {
  readonly #write: (line: string) => void;
  #unavailableSince: number | undefined;
  #staleServed = 0;

  /** @param write where each log line goes (stderr) */
  constructor(write: (line: string) => void) {
    this.#write = write;
  }

  /** An exchange found the service unavailable; `cause` is a code or a status, never a value. */
  unavailable(cause: string): void {
    if (this.#unavailableSince !== undefined) return;
    this.#unavailableSince = performance.now();
    this.#staleServed = 0;
    this.#write(logfmtLine('warn', 'the service is unavailable', { cause }));
  }

  /** A request was answered with an entry kept past its time, while the service is unavailable. */
  servedStale(): void {
    this.#staleServed += 1;
  }

  /** The service answered (any answer but an unavailable one). */
  available(): void {
    if (this.#unavailableSince === undefined) return;
    const unavailableMs = Math.round(performance.now() - this.#unavailableSince);
    this.#unavailableSince = undefined;
    this.#write(
      logfmtLine('info', 'the service is available again', {
        unavailable_ms: unavailableMs,
        stale_served: this.#staleServed,
      }),
    );
  }
}
