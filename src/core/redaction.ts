/**
 * Keeping secrets and forged lines out of error messages. A server may echo what it was sent
 * (verbatim, in its own escaping, or one line of it), and may put control characters in its
 * messages; everything server-supplied passes through here before it reaches an error.
 */

const REDACTED = '[REDACTED]';
// Shorter strings match ordinary words in a message; scrubbing them would garble it for nothing.
const MIN_REDACTED_LENGTH = 4;
const LINE_BREAK = /\r\n|\r|\n/;

/**
 * What {@link scrubServerText} looks for: each sensitive string and each of its lines (a
 * multi-line value such as a PEM key may be quoted one line at a time), with a lone surrogate
 * also as U+FFFD (as encoders write it). A string shorter than 4 characters, once trimmed, is
 * left out. Longest first, so a value that contains another is scrubbed whole.
 */
export function sensitiveStrings(values: Iterable<string>): string[] {
  const found = new Set<string>();
  for (const value of values) {
    for (const text of [value, ...value.split(LINE_BREAK)]) {
      if (text.trim().length < MIN_REDACTED_LENGTH) continue;
      found.add(text).add(text.replace(/\p{Surrogate}/gu, '\ufffd'));
    }
  }
  return [...found].sort((a, b) => b.length - a.length);
}

const JSON_ESCAPES: Readonly<Record<string, string>> = {
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};
const HTML_NAMED: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
};

const fromCodePoint = (code: number, otherwise: string) =>
  code <= 0x10ffff ? String.fromCodePoint(code) : otherwise;
const percentDecoded = (text: string) =>
  text.replace(/(?:%[0-9a-f]{2})+/gi, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run; // not UTF-8: nothing a server makes of a string
    }
  });

/**
 * How servers escape what they echo, each undone leniently (what is not an escape stays): JSON
 * string escapes as every encoder writes them (`\/`, `\u00f6` or `\u00F6`, surrogate pairs, Go's
 * `\u003c`), HTML character references (named, decimal, hex, in either case, zero-padded or
 * not), and percent-encoding of UTF-8 by any encoder, with a space as `%20` or `+`. Undoing an
 * escaping covers every encoder that writes it, where listing the forms of a value would cover
 * only the encoders listed.
 */
const DECODINGS: ReadonlyArray<(text: string) => string> = [
  (text) =>
    text.replace(/\\(?:u([0-9a-fA-F]{4})|(.))/g, (_, hex: string | undefined, char: string) =>
      hex ? String.fromCharCode(Number.parseInt(hex, 16)) : (JSON_ESCAPES[char] ?? char),
    ),
  (text) =>
    text.replace(
      /&(?:#(\d+)|#x([0-9a-f]+)|([a-z]+));/gi,
      (reference, decimal: string | undefined, hex: string | undefined, name: string) =>
        decimal || hex
          ? fromCodePoint(Number.parseInt(decimal ?? hex ?? '', decimal ? 10 : 16), reference)
          : (HTML_NAMED[name.toLowerCase()] ?? reference),
    ),
  percentDecoded,
  (text) => percentDecoded(text.replaceAll('+', ' ')),
  // Last, so that an escaped value is replaced whole rather than its unescaped prefix.
  (text) => text,
];

/**
 * Replaces every sensitive string (from {@link sensitiveStrings}) in `text`, however the server
 * escaped it, then escapes control characters, so what is left is one line that cannot forge a
 * log entry. A text in which an escaping hides one is kept with that escaping undone (and the
 * string replaced); a text that hides none is kept as sent.
 */
export function scrubServerText(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const decode of DECODINGS) {
    const decoded = decode(result);
    if (secrets.some((secret) => decoded.includes(secret))) {
      result = secrets.reduce((scrubbed, secret) => scrubbed.replaceAll(secret, REDACTED), decoded);
    }
  }
  return escapeControlCharacters(result);
}

// C0 and C1 controls, DEL, line and paragraph separators, and the bidirectional overrides that
// can make a terminal show text in another order than it is stored.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * Makes a string safe to print on one line: CR, LF and tab become `\n`, `\r`, `\t`, and every
 * other control character (a terminal escape, for example) becomes `\u` and its code.
 */
export function escapeControlCharacters(text: string): string {
  return text.replace(
    CONTROL,
    (char) => NAMED[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** @internal One line of at most 200 characters, control characters escaped. */
export function oneLine(text: string): string {
  const line = text.split(LINE_BREAK, 1)[0] ?? '';
  return escapeControlCharacters(line.length > 200 ? `${line.slice(0, 200)}…` : line);
}
