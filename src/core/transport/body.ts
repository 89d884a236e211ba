/**
 * Reading a response body, bounded in bytes. It is read inside the attempt, so the attempt's
 * deadline (and the caller's signal) covers the body as well as the headers: a server that
 * sends headers at once and then trickles, stalls or cuts the body fails that attempt.
 */

import { readStream } from './body-reader.js';
import { readWhole } from './whole-body.js';

/** The largest response body read; a bigger one is refused rather than buffered. */
export const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

/**
 * Reads the whole body of `response`, at most `maxBytes`: counted as it arrives and stopped past
 * the limit (`body-reader.ts`, which the browser build replaces: a browser wants to read a
 * body itself).
 *
 * @throws {UnusableBody} when the body is larger than `maxBytes`
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
