/**
 * Masking secret values in a command's output (`run --mask`): every value of 4 characters or
 * more becomes `<redacted>`, however the command's writes cut the text, and the output stays
 * line-buffered.
 *
 * The masker works on bytes, never on decoded text: a write may end inside a multi-byte
 * character, and a command may print bytes that are not UTF-8 at all; both must reach the
 * terminal exactly as written, except where a value stood. Values are matched as their UTF-8
 * bytes (a lone surrogate as U+FFFD, as an encoder writes it).
 *
 * At each position the longest value that starts there is replaced, so a value that contains
 * another is masked whole. A position is only decided once the bytes seen so far settle it:
 * while the text from a position to the end of what was written could still be the start of a
 * value, those bytes are held back (never more than the longest value less one byte), so a value
 * split across writes, or across lines, is masked as if it had been written at once.
 */
import { Transform } from 'node:stream';

const REDACTED = Buffer.from('<redacted>');
/** Shorter values match ordinary words in a program's output; masking them would garble it. */
const MIN_MASKED_CHARACTERS = 4;
const NEWLINE = 0x0a;
const DEFAULT_MAX_LINE_BYTES = 64 * 1024;
/** What {@link longestMatch} answers when the end of the bytes came before it could decide. */
const UNDECIDED = -1;

/** @internal How a {@link Masker} buffers output. */
export interface MaskerOptions {
  /**
   * Masked output of a line with no newline yet is written out once it reaches this many
   * bytes, so that a command that never ends its line cannot grow memory without bound. The
   * bytes that could still begin a value are held back even then.
   * @default 65536
   */
  maxLineBytes?: number;
}

/**
 * A byte trie of the values: walking it from a position finds the longest value there in as many
 * steps as the text shares with some value, whatever the number of values.
 */
interface TrieNode {
  readonly next: Map<number, TrieNode>;
  /** A value ends at this node. */
  isValue: boolean;
}

/**
 * @internal The masking state of one output stream: use one per stream, as a value split
 * across writes is only a value within one stream. Bytes go in with {@link Masker.write};
 * what comes back is ready to be written out: whole lines, or a long line's first part.
 *
 * @example
 * const masker = new Masker(['hunter2']);
 * masker.write(Buffer.from('password: hunt')); // empty: the line is not over
 * masker.write(Buffer.from('er2\n')); // 'password: <redacted>\n'
 */
export class Masker {
  readonly #root: TrieNode = { next: new Map(), isValue: false };
  readonly #maxLineBytes: number;
  /** Written bytes not yet decided: the text from here on could still be the start of a value. */
  #undecided: Buffer = Buffer.alloc(0);
  /** Masked output of the current line, waiting for its newline. */
  #line: Buffer[] = [];
  #lineBytes = 0;

  /**
   * @param values the secret values; those under 4 characters (Unicode code points, so an
   *   emoji counts as one) are ignored, and duplicates count once
   * @throws {RangeError} when `maxLineBytes` is not a positive whole number
   */
  constructor(values: Iterable<string>, options: MaskerOptions = {}) {
    const { maxLineBytes = DEFAULT_MAX_LINE_BYTES } = options;
    if (!Number.isSafeInteger(maxLineBytes) || maxLineBytes < 1) {
      throw new RangeError('maxLineBytes must be a positive whole number');
    }
    this.#maxLineBytes = maxLineBytes;
    for (const value of values) {
      if ([...value].length < MIN_MASKED_CHARACTERS) continue;
      let node = this.#root;
      for (const byte of Buffer.from(value, 'utf8')) {
        let child = node.next.get(byte);
        if (child === undefined) {
          child = { next: new Map(), isValue: false };
          node.next.set(byte, child);
        }
        node = child;
      }
      node.isValue = true;
    }
  }

  /**
   * Takes the next bytes of the stream and returns the masked output that is ready: everything
   * up to the last newline decided so far (empty when the line is not over), or the whole
   * current line once it passes `maxLineBytes`.
   */
  write(chunk: Uint8Array): Buffer {
    const decided = this.#decide(Buffer.concat([this.#undecided, chunk]), false);
    const lineStart = decided.lastIndexOf(NEWLINE) + 1;
    const ready = lineStart > 0 ? [this.#takeLine(), decided.subarray(0, lineStart)] : [];
    this.#keepInLine(decided.subarray(lineStart));
    if (this.#lineBytes >= this.#maxLineBytes) ready.push(this.#takeLine());
    return Buffer.concat(ready);
  }

  /**
   * Ends the stream: returns the rest, masked (a value cut short by the end is not a value).
   * The masker can then take a new stream.
   */
  end(): Buffer {
    this.#keepInLine(this.#decide(this.#undecided, true));
    return this.#takeLine();
  }

  /** Masks `bytes` from the start as far as they settle it, keeping the rest as undecided. */
  #decide(bytes: Buffer, isEnd: boolean): Buffer {
    const parts: Buffer[] = [];
    let copied = 0;
    let position = 0;
    while (position < bytes.length) {
      const length = longestMatch(this.#root, bytes, position, isEnd);
      if (length === UNDECIDED) break;
      if (length === 0) {
        position++;
        continue;
      }
      parts.push(bytes.subarray(copied, position), REDACTED);
      position += length;
      copied = position;
    }
    parts.push(bytes.subarray(copied, position));
    // A copy: a view would keep the whole of a large write alive for a few bytes.
    this.#undecided = Buffer.from(bytes.subarray(position));
    return Buffer.concat(parts);
  }

  #keepInLine(output: Buffer): void {
    if (output.length === 0) return;
    this.#line.push(output);
    this.#lineBytes += output.length;
  }

  #takeLine(): Buffer {
    const line = Buffer.concat(this.#line);
    this.#line = [];
    this.#lineBytes = 0;
    return line;
  }
}

/**
 * The length in bytes of the longest value at `start` (0 when none), or {@link UNDECIDED} when
 * the bytes end while a longer value could still follow (unless they are the stream's last).
 */
function longestMatch(root: TrieNode, bytes: Buffer, start: number, isEnd: boolean): number {
  let node = root;
  let longest = 0;
  for (let index = start; ; index++) {
    const byte = bytes[index];
    if (byte === undefined) return isEnd || node.next.size === 0 ? longest : UNDECIDED;
    const child = node.next.get(byte);
    if (child === undefined) return longest;
    node = child;
    if (node.isValue) longest = index + 1 - start;
  }
}

/**
 * @internal A stream that passes bytes through a {@link Masker}: pipe a command's stdout (or
 * stderr) through it to the terminal. Strings written to it are encoded as the write says.
 *
 * @example
 * child.stdout.pipe(createMasker(values)).pipe(process.stdout);
 * child.stderr.pipe(createMasker(values)).pipe(process.stderr);
 *
 * @throws {RangeError} when `maxLineBytes` is not a positive whole number
 */
export function createMasker(values: Iterable<string>, options: MaskerOptions = {}): Transform {
  const masker = new Masker(values, options);
  const ready = (output: Buffer) => (output.length > 0 ? output : undefined);
  return new Transform({
    // Strings are encoded to Buffers before `transform` sees them (`decodeStrings`, the default).
    transform(chunk: Buffer, _encoding, callback) {
      callback(null, ready(masker.write(chunk)));
    },
    flush(callback) {
      callback(null, ready(masker.end()));
    },
  });
}
