/**
 * Keeping secrets and forged lines out of error messages. A server may echo what it was sent
 * (verbatim, in its own escaping, or one line of it), and may put control characters in its
 * messages; everything server-supplied passes through here before it reaches an error.
 */

const REDACTED = '[REDACTED]';
// Shorter strings match ordinary words in a message; scrubbing them would garble it for nothing.
const MIN_REDACTED_LENGTH = 4;

/**
 * Every form in which a sensitive string can come back inside a server's text, so that
 * {@link scrubServerText} finds it however the server escaped it: the string itself and each
 * of its lines (a multi-line value such as a PEM key, quoted one line at a time), each also as
 * JSON (as JavaScript, PHP, Python and Go write it), percent-encoded (URI component, form and
 * path styles) and HTML-escaped (named and numeric references). A string shorter than 4
 * characters, once trimmed, has no forms at all. Longest first, so a value that contains another
 * is scrubbed whole.
 */
export function sensitiveForms(values: Iterable<string>): string[] {
  const forms = new Set<string>();
  for (const value of values) {
    for (const text of new Set([value, ...value.split(/\r\n|\r|\n/)])) {
      // The length of what was sent decides, not of its escaping: `&` is short even as `&amp;`.
      if (text.trim().length < MIN_REDACTED_LENGTH) continue;
      forms.add(text);
      for (const form of jsonForms(text)) forms.add(form);
      for (const form of percentForms(text)) forms.add(form);
      for (const form of htmlForms(text)) forms.add(form);
    }
  }
  return [...forms].sort((a, b) => b.length - a.length);
}

// A server escapes what it echoes in the one style of its encoder, not a mix: each form below is
// what one common encoder writes. Variants that coincide for a given text collapse in the set.

const hex4 = (code: number) => code.toString(16).padStart(4, '0');

/**
 * The text as JSON string contents: JSON.stringify's escaping, optionally with `/` as `\/`
 * (PHP), with non-ASCII code units as `\uXXXX` (Python's ensure_ascii, PHP; surrogate pairs
 * beyond the BMP), with `<`, `>` and `&` as `\u003c`… (Go), in lower- or upper-case hex.
 */
function jsonForms(text: string): string[] {
  const plain = JSON.stringify(text).slice(1, -1);
  const forms: string[] = [];
  for (const slash of [false, true]) {
    for (const ascii of [false, true]) {
      for (const htmlSafe of [false, true]) {
        let form = plain.replace(/[^\x20-\x7e]|[/<>&]/g, (char) => {
          const code = char.charCodeAt(0);
          if (char === '/') return slash ? '\\/' : char;
          if ('<>&'.includes(char)) return htmlSafe ? `\\u${hex4(code)}` : char;
          return ascii && code > 0x7e ? `\\u${hex4(code)}` : char;
        });
        forms.push(form);
        form = form.replace(/\\u[0-9a-f]{4}/g, (sequence) =>
          sequence.toUpperCase().replace('\\U', '\\u'),
        );
        forms.push(form);
      }
    }
  }
  return forms;
}

// The characters each percent-encoder leaves alone, besides ASCII letters and digits.
const PERCENT_SAFE = [
  "-_.!~*'()", // encodeURIComponent
  '-_.~', // RFC 3986 unreserved: PHP's rawurlencode, Python's quote(safe='')
  '-_.~/', // Python's quote, which keeps `/` by default
  '-_.*', // form encoding: URLSearchParams, Java's URLEncoder
  '-_.', // PHP's urlencode
];
const utf8 = new TextEncoder();

/**
 * The text percent-encoded as UTF-8 by each common encoder, with a space as `%20` or `+`, and
 * the hex in upper or lower case.
 */
function percentForms(text: string): string[] {
  const forms: string[] = [];
  for (const safe of PERCENT_SAFE) {
    let encoded = '';
    for (const char of text) {
      if (/^[A-Za-z0-9]$/.test(char) || safe.includes(char)) {
        encoded += char;
      } else {
        // A lone surrogate becomes U+FFFD, as every encoder that does not throw writes it.
        for (const byte of utf8.encode(char)) {
          encoded += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
        }
      }
    }
    for (const form of [encoded, encoded.replaceAll('%20', '+')]) {
      forms.push(
        form,
        form.replace(/%[0-9A-F]{2}/g, (sequence) => sequence.toLowerCase()),
      );
    }
  }
  return forms;
}

// How HTML escapers write `"` and `'`; each also writes `&amp;`, `&lt;` and `&gt;`.
const QUOTE_STYLES: ReadonlyArray<Readonly<Record<string, string>>> = [
  {}, // text content only: & < >
  { '"': '&quot;' }, // PHP's htmlspecialchars before 8.1
  { '"': '&quot;', "'": '&#39;' }, // lodash, escape-html, Ruby
  { '"': '&quot;', "'": '&#039;' }, // PHP's htmlspecialchars since 8.1
  { '"': '&quot;', "'": '&#x27;' }, // Python's html.escape, Django
  { '"': '&quot;', "'": '&apos;' }, // XML
  { '"': '&#34;', "'": '&#39;' }, // Go's html.EscapeString
];
const HTML_NAMED: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };
type Reference = (codePoint: number) => string;
const decimal: Reference = (code) => `&#${code};`;
const hexLower: Reference = (code) => `&#x${code.toString(16)};`;
const hexUpper: Reference = (code) => `&#x${code.toString(16).toUpperCase()};`;

/**
 * The text HTML-escaped: `&`, `<`, `>` (and `"`, `'` in each common style) as named entities
 * with non-ASCII kept or written as numeric references, or every one of them as a decimal or
 * hex numeric reference.
 */
function htmlForms(text: string): string[] {
  const escaped = (entity: (char: string, code: number) => string | undefined) =>
    Array.from(text, (char) => entity(char, char.codePointAt(0) ?? 0) ?? char).join('');
  const forms: string[] = [];
  for (const quotes of QUOTE_STYLES) {
    for (const nonAscii of [undefined, decimal, hexLower, hexUpper]) {
      forms.push(
        escaped(
          (char, code) =>
            HTML_NAMED[char] ?? quotes[char] ?? (code > 0x7e ? nonAscii?.(code) : undefined),
        ),
      );
    }
  }
  for (const reference of [decimal, hexLower, hexUpper]) {
    forms.push(
      escaped((char, code) =>
        code > 0x7e || `&<>"'`.includes(char) ? reference(code) : undefined,
      ),
    );
  }
  return forms;
}

/**
 * Replaces every occurrence of the given forms (from {@link sensitiveForms}) in `text`, then
 * escapes control characters, so what is left is one line that cannot forge a log entry.
 */
export function scrubServerText(text: string, forms: readonly string[]): string {
  let result = text;
  for (const form of forms) result = result.replaceAll(form, REDACTED);
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
  const line = text.split(/\r\n|\r|\n/, 1)[0] ?? '';
  return escapeControlCharacters(line.length > 200 ? `${line.slice(0, 200)}…` : line);
}
