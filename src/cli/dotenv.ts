/**
 * Writing variables as a dotenv file that Node's own reader (`util.parseEnv`, what
 * `node --env-file` uses) reads back exactly. That reader expands nothing inside single quotes
 * or backticks, expands `\n` inside double quotes, has no escape for a quote character, and
 * drops carriage returns, so each value is wrapped in a quote it does not contain, preferring
 * the literal ones.
 */

/** @internal A value the dotenv format cannot hold. */
export class DotenvError extends Error {
  override name = 'DotenvError';
}

/**
 * Formats `variables` as dotenv lines, one `NAME='value'` per variable (values may span lines).
 *
 * @throws {DotenvError} naming the variable (never its value) when a value holds a carriage
 *   return (the reader drops them), or all three quote characters (`\n` counts as `"` then)
 */
export function formatDotenv(variables: Readonly<Record<string, string>>): string {
  const lines: string[] = [];
  for (const [name, value] of Object.entries(variables)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      throw new DotenvError(`${JSON.stringify(name)} is not a valid variable name`);
    }
    lines.push(`${name}=${quote(name, value)}`);
  }
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

function quote(name: string, value: string): string {
  // The reader drops every carriage return, quoted or not.
  if (value.includes('\r')) {
    throw new DotenvError(
      `${name} cannot be written as dotenv (it holds a carriage return); use --format json`,
    );
  }
  if (!value.includes("'")) return `'${value}'`;
  if (!value.includes('`')) return `\`${value}\``;
  // Double quotes turn the two characters `\n` into a line break: usable only without them.
  if (!value.includes('"') && !value.includes('\\n')) return `"${value}"`;
  throw new DotenvError(
    `${name} cannot be written as dotenv (it holds every kind of quote); use --format json`,
  );
}
