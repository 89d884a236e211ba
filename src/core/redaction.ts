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

/**
 * How a JSON encoder writes a string between its quotes, where encoders differ: which characters,
 * beyond the ones JSON requires it to escape, it writes as `\uXXXX` (by UTF-16 code unit, so a
 * character beyond U+FFFF becomes a surrogate pair), whether it writes `/` as `\/`, and in which
 * case it writes hex digits. Every encoder writes `"`, `\`, backspace, form feed, newline, carriage
 * return and tab as `\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t` (unless `\u` takes `"`), other
 * controls and lone surrogates as `\u00XX` and `\udXXX`.
 */
interface JsonEncoder {
  readonly asUnicode?: RegExp;
  readonly slash?: boolean;
  readonly upperCaseHex?: boolean;
}

/**
 * The JSON encoders whose output {@link printedForms} knows, one per way of writing: a bounded
 * list, so that a value has a bounded number of printed forms.
 */
const JSON_ENCODERS: readonly JsonEncoder[] = [
  // JavaScript's JSON.stringify (pino, winston, bunyan), Jackson, serde_json, Ruby, and Python
  // with ensure_ascii=False.
  {},
  // Python's json.dumps (ensure_ascii, its default): every character beyond ASCII.
  { asUnicode: /[^\0-\x7f]/ },
  // PHP's json_encode: Python's, and `/` as `\/`.
  { asUnicode: /[^\0-\x7f]/, slash: true },
  // Go's encoding/json: HTML's `<`, `>`, `&`, and the line and paragraph separators.
  { asUnicode: /[<>&\u2028\u2029]/ },
  // Gson (html-safe, its default): Go's, and `=` and `'`; base64 lines end in `=`.
  { asUnicode: /[<>&='\u2028\u2029]/ },
  // .NET's System.Text.Json (its default encoder): everything beyond printable ASCII, and the
  // characters HTML or JavaScript give a meaning (`"` included), in capitals: `\u002B` for `+`.
  { asUnicode: /[^\x20-\x7e]|[<>&'"+`]/, upperCaseHex: true },
];

const SHORT_JSON_ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\\\',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};

/** `text` as `encoder` writes it between a JSON string's quotes. */
function jsonEscaped(text: string, encoder: JsonEncoder): string {
  const unicode = (unit: string) => {
    const hex = unit.charCodeAt(0).toString(16).padStart(4, '0');
    return `\\u${encoder.upperCaseHex ? hex.toUpperCase() : hex}`;
  };
  // A surrogate pair is one character; a surrogate alone is a code unit no encoder writes raw.
  return text.replace(/[\ud800-\udbff][\udc00-\udfff]|[\s\S]/g, (char) => {
    if (char.length === 2) {
      return encoder.asUnicode?.test(char) ? `${unicode(char)}${unicode(char.slice(1))}` : char;
    }
    const short = SHORT_JSON_ESCAPES[char];
    if (short !== undefined) return short;
    if (encoder.asUnicode?.test(char)) return unicode(char);
    if (char === '"') return '\\"';
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the controls JSON requires escaped.
    if (/[\0-\x1f\ud800-\udfff]/.test(char)) return unicode(char);
    return char === '/' && encoder.slash ? '\\/' : char;
  });
}

/**
 * Every way a program may print the given secret values, for masking its output (`run --mask`):
 * what {@link sensitiveStrings} finds (each value and each of its lines, a lone surrogate also as
 * U+FFFD), with a multi-line value's lines also ended by CRLF, each as it is and as each JSON
 * encoder of a bounded list writes it between quotes (a JSON logger prints a PEM key on one
 * line, its newlines as `\n`). At most 7 forms of each of these texts, so the list grows with
 * the values, never faster. A text shorter than 4 characters once trimmed is left out, counting
 * characters as code points (an emoji is one): masking it would garble ordinary output.
 *
 * Forms are listed rather than escapes undone (as {@link scrubServerText} does): output is a
 * stream, masked as it passes, and every byte outside a value must reach the reader unchanged.
 */
export function printedForms(values: Iterable<string>): string[] {
  const texts: string[] = [];
  for (const value of values) {
    texts.push(value);
    // Written on Windows, or through a pseudo-terminal (`docker run -t`), a newline comes out as CRLF.
    const withCrlf = value.replace(/\r?\n/g, '\r\n');
    if (withCrlf !== value) texts.push(withCrlf);
  }
  const forms = new Set<string>();
  for (const text of sensitiveStrings(texts)) {
    if ([...text.trim()].length < MIN_REDACTED_LENGTH) continue;
    forms.add(text);
    for (const encoder of JSON_ENCODERS) forms.add(jsonEscaped(text, encoder));
  }
  return [...forms];
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
