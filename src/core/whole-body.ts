/**
 * What every way of reading a body shares: the error of a body over the limit, and reading a
 * body at once through the runtime's own reader.
 */

/** @internal The body was larger than the limit. */
export class ResponseTooLarge extends Error {
  override name = 'ResponseTooLarge';
}

/**
 * @internal Reads a body at once, through `arrayBuffer()`: one that declares its length, or one that has no
 * stream (React Native's fetch, whatwg-fetch-style polyfills and some test doubles give
 * `body === null` and still hold the body there; a status without a body gives an empty one).
 * The limit is checked again once it is read (a custom fetch need not keep to its
 * `Content-Length`), and the signal ends the wait, whether or not the fetch aborts the body.
 */
export async function readWhole(
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
