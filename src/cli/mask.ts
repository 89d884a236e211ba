/**
 * Masking secret values in a command's output (`run --mask`): every printed form of a value (the
 * value, each of its lines, its CRLF form, and each as JSON encoders escape it: see
 * `printedForms`) becomes `<redacted>`, however the command's writes cut the text, and the output
 * stays line-buffered. Values under 4 characters are left alone.
 *
 * The masker works on bytes, never on decoded text: a write may end inside a multi-byte
 * character, and a command may print bytes that are not UTF-8 at all; both must reach the
 * terminal exactly as written, except where a value stood. Forms are matched as their UTF-8
 * bytes (a lone surrogate as U+FFFD, as an encoder writes it).
 *
 * At each position the longest form that starts there is replaced, so a value that contains
 * another is masked whole. A position is only decided once the bytes seen so far settle it:
 * while the text from a position to the end of what was written could still be the start of a
 * form, those bytes are held back (never more than the longest form less one byte), so a value
 * split across writes, or across lines, is masked as if it had been written at once.
 *
 * Matching takes time in proportion to the bytes it is given (the bytes of each write, and those
 * held back from the one before), whatever the values: a vault's editor chooses them, and a
 * value such as `aaaa…ab` must not make a command's run of `a`s cost its length times the
 * value's.
 */
import { Transform } from 'node:stream';
import { printedForms } from '../core/redaction.js';

const REDACTED = Buffer.from('<redacted>');
const NEWLINE = 0x0a;
const DEFAULT_MAX_LINE_BYTES = 64 * 1024;
const ROOT = 0;

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
 * An Aho-Corasick automaton of byte strings. Fed bytes one at a time from the root, it stands at
 * the node of the longest suffix of what it was fed that begins one of the strings; every shorter
 * such suffix is on the node's chain of failure links. Each byte costs a constant number of steps
 * on average: a failure step shortens that suffix, and a byte lengthens it by one at most.
 */
class Automaton {
  /** The trie's edges, `node * 256 + byte` to the child: one map, as a map per node costs more. */
  readonly #edges = new Map<number, number>();
  readonly #fail: Int32Array;
  /** Per node: the length of the text from the root to it. */
  readonly depth: Int32Array;
  /** Per node: the length of the longest string that ends its text, 0 when none does. */
  readonly longestEnding: Int32Array;
  /** Per node: whether a string goes on past it. */
  readonly hasChildren: Uint8Array;
  /** The length of the longest string. */
  readonly longest: number;
  /** How many steps {@link next} has taken: what shows that matching is linear. */
  steps = 0;

  constructor(strings: Iterable<Uint8Array>) {
    const depth = [0];
    const parent = [ROOT];
    const label = [0];
    const ends = [false];
    for (const string of strings) {
      let node = ROOT;
      for (const byte of string) {
        const key = node * 256 + byte;
        let child = this.#edges.get(key);
        if (child === undefined) {
          child = depth.length;
          this.#edges.set(key, child);
          depth.push((depth[node] ?? 0) + 1);
          parent.push(node);
          label.push(byte);
          ends.push(false);
        }
        node = child;
      }
      ends[node] = true;
    }
    const count = depth.length;
    this.depth = Int32Array.from(depth);
    this.#fail = new Int32Array(count);
    this.longestEnding = new Int32Array(count);
    this.hasChildren = new Uint8Array(count);
    this.longest = this.depth.reduce((longest, length) => Math.max(longest, length), 0);
    // Shallower nodes first: a node's failure link and its parent are shallower than it.
    const byDepth = Array.from(depth.keys()).sort((a, b) => (depth[a] ?? 0) - (depth[b] ?? 0));
    for (const node of byDepth) {
      if (node === ROOT) continue;
      const from = parent[node] ?? ROOT;
      this.hasChildren[from] = 1;
      this.#fail[node] =
        from === ROOT ? ROOT : this.next(this.#fail[from] ?? ROOT, label[node] ?? 0);
      this.longestEnding[node] = ends[node]
        ? (depth[node] ?? 0)
        : (this.longestEnding[this.#fail[node] ?? ROOT] ?? 0);
    }
    this.steps = 0;
  }

  /** The node that `byte` leads to from `node`. */
  next(node: number, byte: number): number {
    for (let from = node; ; from = this.#fail[from] ?? ROOT) {
      this.steps++;
      const child = this.#edges.get(from * 256 + byte);
      if (child !== undefined) return child;
      if (from === ROOT) return ROOT;
    }
  }

  /** The node of the longest proper suffix of `node`'s text that is a node too. */
  fail(node: number): number {
    return this.#fail[node] ?? ROOT;
  }
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
  /** The forms, to tell where output could still be inside one. */
  readonly #forward: Automaton;
  /** The forms reversed, to find the longest that starts at each position, reading backwards. */
  readonly #backward: Automaton;
  readonly #maxLineBytes: number;
  /** Written bytes not yet decided: the text from here on could still be the start of a value. */
  #undecided: Buffer = Buffer.alloc(0);
  /** Masked output of the current line, waiting for its newline. */
  #line: Buffer[] = [];
  #lineBytes = 0;

  /**
   * @param values the secret values; those under 4 characters (Unicode code points, so an
   *   emoji counts as one, once trimmed) are ignored, and duplicates count once
   * @throws {RangeError} when `maxLineBytes` is not a positive whole number
   */
  constructor(values: Iterable<string>, options: MaskerOptions = {}) {
    const { maxLineBytes = DEFAULT_MAX_LINE_BYTES } = options;
    if (!Number.isSafeInteger(maxLineBytes) || maxLineBytes < 1) {
      throw new RangeError('maxLineBytes must be a positive whole number');
    }
    this.#maxLineBytes = maxLineBytes;
    const forms = printedForms(values).map((form) => Buffer.from(form, 'utf8'));
    this.#forward = new Automaton(forms);
    this.#backward = new Automaton(forms.map((form) => Buffer.from(form).reverse()));
  }

  /** @internal The automaton steps taken so far: in proportion to the bytes, whatever the values. */
  get steps(): number {
    return this.#forward.steps + this.#backward.steps;
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
    const longestAt = this.#longestFormsAt(bytes);
    const open = isEnd ? new Set<number>() : this.#openStarts(bytes);
    const parts: Buffer[] = [];
    let copied = 0;
    let position = 0;
    while (position < bytes.length && !open.has(position)) {
      const length = longestAt[position] ?? 0;
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

  /**
   * For each position of `bytes`, the length of the longest form that starts there and ends
   * within them (0 when none): read backwards, a form starting at a position is one ending there.
   */
  #longestFormsAt(bytes: Buffer): Int32Array {
    const longestAt = new Int32Array(bytes.length);
    let node = ROOT;
    for (let index = bytes.length - 1; index >= 0; index--) {
      node = this.#backward.next(node, bytes[index] ?? 0);
      longestAt[index] = this.#backward.longestEnding[node] ?? 0;
    }
    return longestAt;
  }

  /**
   * The positions from which the rest of `bytes` is the start of a form that goes on: not yet
   * decided. Only the last bytes can be, as many as the longest form less one.
   */
  #openStarts(bytes: Buffer): Set<number> {
    const forward = this.#forward;
    let node = ROOT;
    for (
      let index = Math.max(0, bytes.length - forward.longest + 1);
      index < bytes.length;
      index++
    ) {
      node = forward.next(node, bytes[index] ?? 0);
    }
    const open = new Set<number>();
    for (; node !== ROOT; node = forward.fail(node)) {
      if (forward.hasChildren[node]) open.add(bytes.length - (forward.depth[node] ?? 0));
    }
    return open;
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
