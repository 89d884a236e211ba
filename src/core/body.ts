/**
 * Reading a response body, bounded in bytes. It is read inside the attempt, so the attempt's
 * deadline (and the caller's signal) covers the body as well as the headers: a server that
 * sends headers at once and then trickles, stalls or cuts the body fails that attempt.
 */

/** The largest response body read; a bigger one is refused rather than buffered. */
export const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

/** @internal The body was larger than {@link MAX_RESPONSE_BYTES}. */
export class ResponseTooLarge extends Error {
  override name = 'ResponseTooLarge';
}

// One decoder for every body: without `stream`, each decode() stands alone.
const utf8 = new TextDecoder();

/**
 * Reads the whole body of `response` as UTF-8 text, at most `maxBytes` (see {@link readBody}). A
 * body that declares more than `maxBytes` is refused before any of it is read.
 *
 * @throws {ResponseTooLarge} when the body is (or says it is) larger than `maxBytes`
 * @throws the stream's own error when the body is cut off, or the signal's reason when it fires
 */
export async function readText(
  response: Response,
  signal: AbortSignal,
  maxBytes = MAX_RESPONSE_BYTES,
  abort?: () => void,
): Promise<string> {
  if (Number(response.headers.get('content-length')) > maxBytes) {
    // Compressed or not, what would arrive is at least this much.
    void response.body?.cancel().catch(() => undefined);
    throw new ResponseTooLarge(`body is larger than ${maxBytes} bytes`);
  }
  return utf8.decode(await readBody(response, signal, maxBytes, abort));
}

/**
 * Reads the whole body of `response`, at most `maxBytes`, through the runtime's own reader
 * (`arrayBuffer()`), never a script's stream reader: Chromium reports a request whose body a
 * script read to its end as cancelled ("(canceled)" in DevTools, `net::ERR_ABORTED`) when the
 * script's reader finishes before the network layer does, and may drop the connection with it.
 *
 * A body that declares its length (within the limit, checked by {@link readText}) is read as it
 * is: every native fetch holds a body to its `Content-Length`. One of unknown length is counted
 * on a clone as it arrives, and `abort` (which aborts the fetch) stops it past the limit.
 *
 * @throws {ResponseTooLarge} when the body is larger than `maxBytes`
 * @throws the stream's own error when the body is cut off, or the signal's reason when it fires
 */
export async function readBody(
  response: Response,
  signal: AbortSignal,
  maxBytes = MAX_RESPONSE_BYTES,
  abort?: () => void,
): Promise<Uint8Array<ArrayBuffer>> {
  if (response.body === null || /^\d+$/.test(response.headers.get('content-length') ?? '')) {
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
        throw new ResponseTooLarge(`body is larger than ${maxBytes} bytes`);
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
}

const never = new Promise<never>(() => undefined);

/**
 * Reads a body at once, through `arrayBuffer()`: one that declares its length, or one that has no
 * stream (React Native's fetch, whatwg-fetch-style polyfills and some test doubles give
 * `body === null` and still hold the body there; a status without a body gives an empty one).
 * The limit is checked again once it is read (a custom fetch need not keep to its
 * `Content-Length`), and the signal ends the wait, whether or not the fetch aborts the body.
 */
async function readWhole(
  response: Response,
  signal: AbortSignal,
  maxBytes: number,
): Promise<Uint8Array<ArrayBuffer>> {
  signal.throwIfAborted();
  let stop: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    stop = () => reject(signal.reason);
    signal.addEventListener('abort', stop, { once: true });
  });
  try {
    const buffer = await Promise.race([response.arrayBuffer(), aborted]);
    if (buffer.byteLength > maxBytes) {
      throw new ResponseTooLarge(`body is larger than ${maxBytes} bytes`);
    }
    return new Uint8Array(buffer);
  } finally {
    if (stop) signal.removeEventListener('abort', stop);
  }
}
