/**
 * What every way of reading a body shares: the errors of a body that cannot be used (over the
 * limit, or in a coding that cannot be decoded), and reading a body at once through the runtime's
 * own reader.
 */

/**
 * @internal A body the client refuses to use, its message says why: larger than the limit, or in
 * a `Content-Encoding` that cannot be decoded safely (an unknown coding, or more than one
 * stacked), whose bytes passed on as the body would be wrong.
 */
export class UnusableBody extends Error {
  override name = 'UnusableBody';
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
      throw new UnusableBody(`body is larger than ${maxBytes} bytes`);
    }
    return new Uint8Array(buffer);
  } finally {
    if (stop) signal.removeEventListener('abort', stop);
  }
}

/** @internal The chunks of a body as one array: the only chunk itself, without a copy. */
export function concatChunks(chunks: readonly Uint8Array[], size: number): Uint8Array<ArrayBuffer> {
  const [only] = chunks;
  // A plain view, since a Buffer (what node:http gives) would not copy on `slice` as a
  // Uint8Array does.
  if (chunks.length === 1 && only) {
    return new Uint8Array(only.buffer as ArrayBuffer, only.byteOffset, only.byteLength);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
