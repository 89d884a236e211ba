/**
 * Reading a response body, bounded in bytes. It is read inside the attempt, so the attempt's
 * deadline (and the caller's signal) covers the body as well as the headers: a server that
 * sends headers at once and then trickles, stalls or cuts the body fails that attempt.
 */

import { readStream } from './body-reader.js';
import { ResponseTooLarge, readWhole } from './whole-body.js';

export { ResponseTooLarge } from './whole-body.js';

/** The largest response body read; a bigger one is refused rather than buffered. */
export const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

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
 * Reads the whole body of `response`, at most `maxBytes`: counted as it arrives and stopped past
 * the limit (`body-reader.ts`, which the browser build replaces: a browser wants to read a
 * body itself).
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
  if (response.body === null) return readWhole(response, signal, maxBytes);
  return readStream(response, signal, maxBytes, abort);
}
