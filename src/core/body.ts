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
 * Reads the whole body of `response` as UTF-8 text, at most `maxBytes`, counting bytes as they
 * arrive whatever `Content-Length` says (a custom or mocked fetch need not keep to it). A body
 * that declares more than `maxBytes` is refused before any of it is read.
 *
 * @throws {ResponseTooLarge} when the body is (or says it is) larger than `maxBytes`
 * @throws the stream's own error when the body is cut off, or the signal's reason when it fires
 */
export async function readText(
  response: Response,
  signal: AbortSignal,
  maxBytes = MAX_RESPONSE_BYTES,
): Promise<string> {
  if (Number(response.headers.get('content-length')) > maxBytes) {
    // Compressed or not, what would arrive is at least this much.
    void response.body?.cancel().catch(() => undefined);
    throw new ResponseTooLarge(`body is larger than ${maxBytes} bytes`);
  }
  return utf8.decode(await readBody(response, signal, maxBytes));
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
  if (response.body === null) return readWithoutStream(response, signal, maxBytes);
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
  // Most bodies arrive in one chunk: no copy then.
  const [only] = chunks;
  if (chunks.length === 1 && only) return only as Uint8Array<ArrayBuffer>;
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/**
 * Reads a body that has no stream: React Native's fetch, whatwg-fetch-style polyfills and some
 * test doubles give `body === null` and still hold the body behind `arrayBuffer()` (a status
 * without a body gives an empty one). It cannot be counted as it arrives, so the limit applies
 * once it is read, and the signal ends the wait.
 */
async function readWithoutStream(
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
