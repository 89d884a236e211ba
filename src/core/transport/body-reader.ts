/**
 * Reading a body through a stream reader, counted as it arrives and stopped past the limit: in
 * Node a reader is several times cheaper than `arrayBuffer()` for a small body. The browser
 * build replaces this module with `body-reader.browser.ts`.
 */
import { concatChunks, UnusableBody } from './whole-body.js';

/**
 * @internal The signal to send an attempt with, and how to abort its fetch early: the request's
 * own signal here, since a stream reader can stop the body itself.
 */
export function attemptSignal(signal: AbortSignal): [AbortSignal, (() => void) | undefined] {
  return [signal, undefined];
}

/**
 * @internal Reads a body, at most `maxBytes`, chunk by chunk.
 *
 * @throws {UnusableBody} when the body is larger than `maxBytes`
 * @throws the stream's own error when the body is cut off, or the signal's reason when it fires
 */
export async function readStream(
  response: Response,
  signal: AbortSignal,
  maxBytes: number,
  _abort?: () => void,
): Promise<Uint8Array<ArrayBuffer>> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
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
        throw new UnusableBody(`body is larger than ${maxBytes} bytes`);
      }
      chunks.push(chunk.value);
    }
  } finally {
    signal.removeEventListener('abort', stop);
  }
  // Most bodies arrive in one chunk: no copy then.
  return concatChunks(chunks, size);
}
