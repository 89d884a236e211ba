/**
 * Sending an attempt with a `fetch`: the runtime's own everywhere but Node (where node-http.ts
 * is faster), and the caller's `fetch` option everywhere.
 */
import { readBody } from './body.js';
import { attemptSignal } from './body-reader.js';
import { isNetworkFailure } from './network-failure.js';
import type { HttpResponseHead, HttpSend } from './sender.js';
import { BodyCutOff, NoResponse } from './sender.js';
import { UnusableBody } from './whole-body.js';

/** @internal The sender that hands ky's Request to `fetch` and reads the body it answers with. */
export function fetchSender(fetch: typeof globalThis.fetch): HttpSend {
  return async (_request, signal, original) => {
    // The browser build aborts an attempt's fetch itself when its body turns out too large.
    const [fetchSignal, abortBody] = attemptSignal(signal);
    let response: Response;
    try {
      response = await fetch(
        original,
        fetchSignal === signal ? undefined : { signal: fetchSignal },
      );
    } catch (error) {
      // A fetch may fail by its own bug (a tracing wrapper's, say), which a retry would only
      // repeat: only a network's failure is a response that did not come.
      if (signal.aborted || !isNetworkFailure(error)) throw error;
      throw new NoResponse(error);
    }
    const head: HttpResponseHead = {
      status: response.status,
      headers: response.headers,
      response,
      read: async (maxBytes) => {
        if (Number(response.headers.get('content-length')) > maxBytes) {
          // Compressed or not, what would arrive is at least this much.
          head.discard();
          throw new UnusableBody(`body is larger than ${maxBytes} bytes`);
        }
        try {
          return await readBody(response, signal, maxBytes, abortBody);
        } catch (error) {
          if (signal.aborted || error instanceof UnusableBody) throw error;
          throw new BodyCutOff(error);
        }
      },
      discard: () => void response.body?.cancel().catch(() => undefined),
    };
    return head;
  };
}

// Looked up at each attempt, so a fetch patched after the client was made (as test tools do) is
// the one used.
/** @internal The runtime's `fetch`, as it is when an attempt starts. */
export const globalFetch: typeof globalThis.fetch = (input, init) => globalThis.fetch(input, init);
