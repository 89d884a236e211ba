/**
 * Keeping secrets and forged lines out of error messages. A server may echo what it was sent
 * (verbatim, JSON-encoded, or one line of it), and may put control characters in its messages;
 * everything server-supplied passes through here before it reaches an error.
 */

const REDACTED = '[REDACTED]';
// Shorter strings match ordinary words in a message; scrubbing them would garble it for nothing.
const MIN_REDACTED_LENGTH = 4;

/**
 * Every form in which a sensitive string can come back inside a server's text: the string
 * itself, its JSON-escaped form (a server echoing the request body), and each of its lines
 * (a multi-line value such as a PEM key, quoted one line at a time), each also JSON-escaped.
 */
export function sensitiveForms(values: Iterable<string>): string[] {
  const forms = new Set<string>();
  const add = (form: string) => {
    if (form.trim().length >= MIN_REDACTED_LENGTH) forms.add(form);
  };
  for (const value of values) {
    for (const text of [value, ...value.split(/\r\n|\r|\n/)]) {
      add(text);
      add(jsonEscaped(text));
    }
  }
  // Longest first, so a value that contains another is scrubbed whole.
  return [...forms].sort((a, b) => b.length - a.length);
}

function jsonEscaped(text: string): string {
  return JSON.stringify(text).slice(1, -1);
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
