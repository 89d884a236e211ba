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

/**
 * Reads the whole body of `response` as text, at most `maxBytes`. A body whose length is
 * declared, and whose bytes are what arrives (no `Content-Encoding`, and headers the runtime
 * shows in full, which it does not for a cross-origin response), is read in one go by the
 * runtime, which stops at the declared length; any other body is counted as it streams in.
 *
 * @throws {ResponseTooLarge} when the body is (or says it is) larger than `maxBytes`
 * @throws the stream's own error when the body is cut off, or the signal's reason when it fires
 */
export async function readText(
  response: Response,
  signal: AbortSignal,
  maxBytes = MAX_RESPONSE_BYTES,
): Promise<string> {
  if (response.body === null) return '';
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) {
    // Compressed or not, what would arrive is at least this much.
    void response.body.cancel().catch(() => undefined);
    throw new ResponseTooLarge(`body is larger than ${maxBytes} bytes`);
  }
  const encoding = response.headers.get('content-encoding');
  if (
    Number.isSafeInteger(declared) &&
    response.type !== 'cors' &&
    (encoding === null || encoding.toLowerCase() === 'identity')
  ) {
    return untilAborted(response.text(), signal);
  }
  return new TextDecoder().decode(await readBody(response, signal, maxBytes));
}

/**
 * `reading`, unless `signal` fires first: not every fetch (a test double, a polyfill) aborts the
 * body with the request's signal, and a stalled body must never outlive its deadline.
 */
function untilAborted<T>(reading: Promise<T>, signal: AbortSignal): Promise<T> {
  signal.throwIfAborted();
  let stop: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    stop = () => reject(signal.reason);
    signal.addEventListener('abort', stop, { once: true });
  });
  // Whichever loses is settled later and must not surface as an unhandled rejection.
  reading.catch(() => undefined);
  aborted.catch(() => undefined);
  return Promise.race([reading, aborted]).finally(() => {
    if (stop) signal.removeEventListener('abort', stop);
  });
}

/**
 * Reads the whole body of `response`, at most `maxBytes`.
 *
 * @throws {ResponseTooLarge} when the body is larger than `maxBytes`
 * @throws the stream's own error when the body is cut off, or the signal's reason when it fires
 */
export async function readBody(
  response: Response,
  signal: AbortSignal,
  maxBytes = MAX_RESPONSE_BYTES,
): Promise<Uint8Array<ArrayBuffer>> {
  if (response.body === null) return new Uint8Array(0);
  const reader = response.body.getReader();
  // Not every fetch (a test double, a polyfill) aborts the body when the request's signal fires:
  // cancel the reader too, so a stalled body never outlives its deadline.
  const stop = () => void reader.cancel().catch(() => undefined);
  signal.addEventListener('abort', stop, { once: true });
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      signal.throwIfAborted();
      const chunk = await reader.read();
      // A cancelled reader reports the end of the stream: the body is incomplete, not done.
      signal.throwIfAborted();
      if (chunk.done) break;
      size += chunk.value.byteLength;
      if (size > maxBytes) {
        stop();
        throw new ResponseTooLarge(`body is larger than ${maxBytes} bytes`);
      }
      chunks.push(chunk.value);
    }
  } finally {
    signal.removeEventListener('abort', stop);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
