/**
 * The filters of `inject`'s placeholders (`{{ vault://… | json }}`): each writes a value in one
 * file format's own quoting, so that the program reading the file gets the value back exactly,
 * whatever it holds. A value is written by whoever can edit the vault, and the file is read by a
 * parser that acts on quotes, line breaks and `$`: quoting in the template cannot be enough.
 *
 * A value comes from JSON and so may hold a lone surrogate (half of a UTF-16 pair), which UTF-8
 * cannot encode: `json` and `yaml` write it as an escape, and the filters that write the value's
 * characters or bytes refuse it, as `shell` refuses a NUL. A refusal says why in words that never
 * quote the value.
 */

/** @internal Why a filter cannot write a value; the message never quotes the value. */
export class UnfilterableValueError extends Error {
  override name = 'UnfilterableValueError';
}

/**
 * @internal `value` as a JSON string literal, quotes included. U+2028 and U+2029 are escaped
 * too: JSON allows them raw, but JavaScript before ES2019 ends a string at them, and a JSON
 * file is often pasted into a script.
 */
export function jsonString(value: string): string {
  // JSON.stringify escapes a lone surrogate as \udXXX (well-formed JSON.stringify, ES2019).
  return JSON.stringify(value).replace(/[\u2028\u2029]/g, (char) => unicodeEscape(char));
}

// Characters YAML reads as line breaks (a double-quoted scalar folds them), that it does not
// count as printable (C0 and C1 controls, DEL, surrogates, U+FFFE/U+FFFF), a BOM (allowed only
// at the start of a stream), and the two that end the scalar or start an escape.
const YAML_ESCAPED =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
  /[\u0000-\u001f\u007f-\u009f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff"\\]/u;
const YAML_NAMED: Readonly<Record<string, string>> = {
  '\0': '\\0',
  '\t': '\\t',
  '\n': '\\n',
  '\r': '\\r',
  '"': '\\"',
  '\\': '\\\\',
};

/**
 * @internal `value` as a YAML double-quoted scalar that YAML 1.2 and YAML 1.1 parsers read back
 * exactly: a string, never a number, boolean or null (`no`, `0x10`, `~` stay text). It is one
 * line: every line break and every non-printable character is an escape (`\n`, `\xNN`,
 * `\uNNNN`), using only the escapes both versions define.
 */
export function yamlDoubleQuoted(value: string): string {
  let quoted = '"';
  // By code point: a surrogate pair is one printable character, a lone surrogate an escape.
  for (const char of value) {
    if (!YAML_ESCAPED.test(char)) quoted += char;
    else {
      const code = char.charCodeAt(0);
      quoted += YAML_NAMED[char] ?? (code < 0x100 ? `\\x${hex(code, 2)}` : unicodeEscape(char));
    }
  }
  return `${quoted}"`;
}

/**
 * @internal `value` as one POSIX shell word, in single quotes, inside which a shell reads every
 * character literally; a `'` is written `'\''` (close, an escaped quote, reopen). An empty value
 * is `''`, still one word.
 *
 * @throws {UnfilterableValueError} when the value holds a NUL (no shell word can) or a lone
 *   surrogate (UTF-8 cannot encode it)
 */
export function singleQuotedShellWord(value: string): string {
  if (value.includes('\0')) {
    throw new UnfilterableValueError('it holds a NUL, which no shell word can hold');
  }
  return `'${wellFormedOrThrow(value).replaceAll("'", "'\\''")}'`;
}

/**
 * @internal The standard base64 (RFC 4648, with padding) of `value`'s UTF-8 bytes.
 *
 * @throws {UnfilterableValueError} when the value holds a lone surrogate (UTF-8 cannot encode it)
 */
export function base64(value: string): string {
  return Buffer.from(wellFormedOrThrow(value), 'utf8').toString('base64');
}

/**
 * @internal `value` percent-encoded as `encodeURIComponent` does: every byte of its UTF-8 but
 * letters, digits and `-_.!~*'()`, so it fits in a URL's path segment, query or userinfo.
 *
 * @throws {UnfilterableValueError} when the value holds a lone surrogate (UTF-8 cannot encode it)
 */
export function urlComponent(value: string): string {
  return encodeURIComponent(wellFormedOrThrow(value));
}

/** @internal The filters a placeholder can name after its `|`, by name. */
export const TEMPLATE_FILTERS: ReadonlyMap<string, (value: string) => string> = new Map([
  ['json', jsonString],
  ['yaml', yamlDoubleQuoted],
  ['shell', singleQuotedShellWord],
  ['base64', base64],
  ['url', urlComponent],
]);

// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** `value`, when it holds no lone surrogate: the filters that encode its UTF-8 need that. */
function wellFormedOrThrow(value: string): string {
  if (!LONE_SURROGATE.test(value)) return value;
  throw new UnfilterableValueError(
    'it holds a lone surrogate (half of a UTF-16 pair), which UTF-8 cannot encode',
  );
}

function unicodeEscape(char: string): string {
  return `\\u${hex(char.charCodeAt(0), 4)}`;
}

function hex(code: number, digits: number): string {
  return code.toString(16).toUpperCase().padStart(digits, '0');
}
