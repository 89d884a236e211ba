/**
 * The browser build's `body-reader.ts`. Chromium reports a request whose body a script read to
 * its end through a stream reader as cancelled ("(canceled)" in DevTools, `net::ERR_ABORTED`)
 * when the reader finishes before the network layer does, and may drop the connection with it.
 * So the browser reads every body itself (`arrayBuffer()`): as it is when it declares its length
 * (a browser holds a body to its `Content-Length`), otherwise while a clone of it is counted,
 * the fetch aborted past the limit.
 */
import type * as BodyReader from './body-reader.js';
import { readWhole, UnusableBody } from './whole-body.js';

/** @internal The request's signal joined to one that aborts the fetch when its body is too large. */
export const attemptSignal: typeof BodyReader.attemptSignal = (signal) => {
  const own = new AbortController();
  return [AbortSignal.any([signal, own.signal]), () => own.abort()];
};

const never = new Promise<never>(() => undefined);

/** @internal Reads a body with `arrayBuffer()`, counting a clone of it when its length is unknown. */
export const readStream: typeof BodyReader.readStream = async (
  response,
  signal,
  maxBytes,
  abort,
) => {
  if (/^\d+$/.test(response.headers.get('content-length') ?? '')) {
    return readWhole(response, signal, maxBytes);
  }
  const counted = response.clone().body?.getReader();
  const tooLarge = (async () => {
    let size = 0;
    for (;;) {
      const chunk = await counted?.read();
      if (chunk === undefined || chunk.done) return;
      size += chunk.value.byteLength;
      if (size > maxBytes) {
        abort?.();
        void counted?.cancel().catch(() => undefined);
        throw new UnusableBody(`body is larger than ${maxBytes} bytes`);
      }
    }
  })();
  tooLarge.catch(() => undefined);
  try {
    // The count ends with the body, so only its error (too large) can come first.
    return await Promise.race([readWhole(response, signal, maxBytes), tooLarge.then(() => never)]);
  } finally {
    // A fetch that does not abort its body on the signal would leave the count waiting.
    void counted?.cancel().catch(() => undefined);
  }
};
