/**
 * Writing variables for the readers that load them: a dotenv file, and `export` lines for a
 * shell's `eval`. A vault's values are written by whoever can edit the vault, and the file is
 * read by a shell on every machine that loads it, so the one rule is that no value can make a
 * reader do anything but assign it.
 *
 * A dotenv file has three common readers, and each quotes differently. Node's (`util.parseEnv`,
 * what `node --env-file` uses) has no escape inside quotes and expands `\n` inside double
 * quotes; the `dotenv` package also expands `\r` there and turns CRLF into LF everywhere; a POSIX
 * shell that sources the file (`set -a; . ./.env`) expands `$`, backticks and `\` inside double
 * quotes and nothing inside single quotes. So a value is written in single quotes, which all
 * three read literally, line breaks included; a value with a `'` goes in double quotes only
 * when it holds none of the characters a shell or the readers would act on there; any other
 * value is refused, naming its variable, for `--format shell` or `json`.
 */

/** @internal A variable that a format cannot hold. */
export class EnvFormatError extends Error {
  override name = 'EnvFormatError';
}

// A shell reads `1X=…` as a command to run, not an assignment: names must be identifiers.
const SHELL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
// What a shell acts on inside double quotes (`!` only in an interactive bash, never sourcing),
// and what the dotenv readers expand or end the value on.
const UNSAFE_IN_DOUBLE_QUOTES = /[$`\\"]/;

/**
 * Formats `variables` as dotenv lines that Node's `util.parseEnv`, the `dotenv` package and a
 * POSIX shell sourcing the file all read back byte for byte (values may span lines).
 *
 * @throws {EnvFormatError} naming the variable (never its value) when a name is not a shell
 *   identifier, or a value holds a carriage return or a NUL, ends with `\`, or holds a `'`
 *   together with one of `$`, a backtick, `\` or `"`
 */
export function formatDotenv(variables: Readonly<Record<string, string>>): string {
  return lines(variables, (name, value) => {
    refuse(name, value, /[\r\0]/, 'a carriage return or a NUL, which dotenv readers alter');
    // The dotenv package reads `\'` as an escaped quote, so a value ending in `\` would run on
    // into the next line; in double quotes a shell would take the `\` as an escape.
    refuse(
      name,
      value,
      /\\$/,
      'a \\ at its end, which the dotenv package reads as escaping the quote',
    );
    if (!value.includes("'")) return `${name}='${value}'`;
    refuse(
      name,
      value,
      UNSAFE_IN_DOUBLE_QUOTES,
      'a \' together with one of $ ` \\ ", which no quoting reads the same in Node, dotenv and a shell',
    );
    return `${name}="${value}"`;
  });
}

/**
 * Formats `variables` as `export NAME='value'` lines that `eval "$(…)"` or `.` in any POSIX
 * shell reads back exactly, whatever the value: single quotes are literal, and a `'` is written
 * as `'\''` (close, an escaped quote, reopen).
 *
 * @throws {EnvFormatError} naming the variable when a name is not a shell identifier, or a value
 *   holds a NUL (no shell string can)
 */
export function formatShell(variables: Readonly<Record<string, string>>): string {
  return lines(variables, (name, value) => {
    refuse(name, value, /\0/, 'a NUL, which no shell variable can hold');
    return `export ${name}='${value.replaceAll("'", "'\\''")}'`;
  });
}

function lines(
  variables: Readonly<Record<string, string>>,
  format: (name: string, value: string) => string,
): string {
  const written: string[] = [];
  for (const [name, value] of Object.entries(variables)) {
    if (!SHELL_NAME.test(name)) {
      throw new EnvFormatError(
        `${JSON.stringify(name)} is not a variable name a shell accepts (letters, digits and _, not first a digit); use --format json or --prefix`,
      );
    }
    written.push(format(name, value));
  }
  return written.length === 0 ? '' : `${written.join('\n')}\n`;
}

function refuse(name: string, value: string, pattern: RegExp, why: string): void {
  if (pattern.test(value)) {
    throw new EnvFormatError(
      `the value of ${name} cannot be written in this format: it holds ${why}; use --format json`,
    );
  }
}
