/** `secrets-vault set`: creates a secret, or writes keys into the one the vault has. */
import type { SecretValue } from '../../resources/secrets.js';
import { newClient } from '../client.js';
import type { Command, Flag } from '../command.js';
import { CommandError, shellWord, usageError } from '../errors.js';
import { VAULT, WAIT, WAIT_HELP } from '../flags.js';
import { callOptions, currentValue, findSecret } from '../secret-by-name.js';

/** `--replace`: the keys given become the whole value, instead of being merged into it. */
const REPLACE: Flag = { name: 'replace', type: 'boolean' };

/** The value that stands for "read this value from stdin". */
const FROM_STDIN = '-';

/**
 * The most bytes read from stdin: the service takes request bodies of at most 1 MB, so a longer
 * value could never be stored, and reading on would only fill memory.
 */
const MAX_STDIN_BYTES = 1_000_000;

/** One `KEY=VALUE` of the command line; `fromStdin` for `KEY=-`. */
interface Assignment {
  readonly key: string;
  readonly value: string;
  readonly fromStdin: boolean;
}

/** @internal `secrets-vault set --vault <id> <secret> <KEY>=<VALUE>... [--replace] [--wait D]`. */
export const setCommand: Command = {
  name: 'set',
  summary: 'create a secret or write keys into it (prints its id, never a value)',
  synopsis: ['--vault <id> <secret> <KEY>=<VALUE>... [--replace] [--wait D]'],
  usage: `Usage: secrets-vault set --vault <id> <secret> <KEY>=<VALUE>... [--replace] [--wait D]
`,
  description: `Creates the secret named <secret> with the keys given when the vault has no secret of
that name; otherwise writes the keys given into its value, keeping its other keys
(with --replace, the keys given become its whole value). Prints the secret's id,
never a value. The secret is found by its name in every page of the vault's listing.

KEY=VALUE sets KEY to VALUE; KEY= sets it to the empty string. KEY=- reads the value
from stdin instead, so that it never appears in the process list or the shell's
history: everything up to the end of the input, one trailing newline dropped (end the
input with two newlines to keep one). At most one KEY=- per command. A key is never
empty and holds no '='; the value is everything after the first '='.

Not safe against a concurrent write: the service has no conditional update, so set
reads the value, merges the keys given into it and sends the whole value back. Two
sets (or a set and an rm) of one secret at the same moment can lose one's keys, and
two sets creating the same new secret can create it twice. Write each secret from one
place at a time.
`,
  flags: [
    { flag: VAULT, help: '  --vault <id>       the vault that holds the secret (required)\n' },
    {
      flag: REPLACE,
      help: `  --replace          the keys given become the secret's whole value: every other
                     key is removed
`,
    },
    { flag: WAIT, help: WAIT_HELP },
  ],
  takesArguments: true,
  async action(context) {
    const [vaultId = '', ...more] = context.vaultIds;
    if (more.length > 0) throw usageError('set writes one vault: give --vault once', 'set');
    const [name, ...rest] = context.arguments;
    if (name === undefined || name === '') {
      throw usageError(
        'give the name of the secret, then KEY=VALUE: set --vault <id> <secret> KEY=VALUE',
        'set',
      );
    }
    const assignments = parseAssignments(rest);
    const given: SecretValue = Object.create(null);
    if (assignments.some(({ fromStdin }) => fromStdin)) {
      const fromStdin = await readStdinValue();
      for (const { key, fromStdin: fromThere } of assignments)
        if (fromThere) given[key] = fromStdin;
    }
    for (const { key, value, fromStdin } of assignments) if (!fromStdin) given[key] = value;

    const client = newClient();
    const options = callOptions(context.startup);
    const secret = await findSecret(client, vaultId, name, options);
    if (secret === undefined) {
      // The SDK makes the Idempotency-Key once, before the first attempt, and every retry
      // reuses it: a create whose answer was lost is replayed, never made twice.
      const created = await client.secrets.create(vaultId, { name, value: given }, options);
      process.stdout.write(`${created.id}\n`);
      return 0;
    }
    // The contract's PATCH replaces the whole value: merging is ours, from the value just read.
    // On an object without a prototype, a key named `__proto__` is a key like any other.
    const value: SecretValue = context.boolean(REPLACE)
      ? given
      : Object.assign(
          Object.create(null),
          await currentValue(client, vaultId, secret, options),
          given,
        );
    await client.secrets.update(secret.id, { value }, options);
    process.stdout.write(`${secret.id}\n`);
    return 0;
  },
};

/**
 * The `KEY=VALUE` arguments, checked. A mistake is named by its key or its place, never by its
 * value: what was typed may be a secret.
 *
 * @throws {CommandError} a usage error naming the fix
 */
function parseAssignments(args: readonly string[]): Assignment[] {
  if (args.length === 0) {
    throw usageError(
      'give at least one KEY=VALUE after the secret (KEY=- reads the value from stdin)',
      'set',
    );
  }
  const seen = new Set<string>();
  const assignments = args.map((arg, index): Assignment => {
    const equals = arg.indexOf('=');
    const place = `the ${ordinal(index + 1)} KEY=VALUE`;
    if (equals === -1) {
      throw usageError(
        `${place} has no '=': give KEY=VALUE, or KEY=- to read the value from stdin`,
        'set',
      );
    }
    if (equals === 0) throw usageError(`${place} has no key: a key is never empty`, 'set');
    const key = arg.slice(0, equals);
    const value = arg.slice(equals + 1);
    if (seen.has(key))
      throw usageError(`key ${shellWord(key)} is given twice: give it once`, 'set');
    seen.add(key);
    return { key, value, fromStdin: value === FROM_STDIN };
  });
  if (assignments.filter(({ fromStdin }) => fromStdin).length > 1) {
    throw usageError(
      'only one KEY=- can read stdin: give the other values as KEY=VALUE, or set them one command at a time',
      'set',
    );
  }
  return assignments;
}

/** `1st`, `2nd`, `3rd`, `4th`, … `11th`, `21st`. */
function ordinal(count: number): string {
  const tens = count % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][count % 10] ?? 'th');
  return `${count}${suffix}`;
}

/**
 * The value of `KEY=-`: stdin to its end as UTF-8, exactly one trailing `\n` dropped (the one
 * `echo`, a heredoc or an editor ends its text with, which is no part of the value). Only one:
 * a value that ends in a newline is sent with two.
 *
 * @throws {CommandError} a usage error when stdin is a terminal (the value would be echoed on
 *   the screen), is not UTF-8, or is larger than the service takes
 */
async function readStdinValue(): Promise<string> {
  if (process.stdin.isTTY) {
    throw usageError(
      'KEY=- reads the value from stdin, which is a terminal: pipe it in (set ... KEY=- < file)',
      'set',
    );
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_STDIN_BYTES) {
      process.stdin.destroy();
      throw new CommandError(
        `the value on stdin is larger than the ${MAX_STDIN_BYTES} bytes the service takes in one request`,
        1,
      );
    }
    chunks.push(chunk);
  }
  let text: string;
  try {
    // Exactly as sent: a byte-order mark is part of the value, a stray byte an error.
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(Buffer.concat(chunks));
  } catch {
    throw usageError('the value on stdin is not UTF-8 text', 'set');
  }
  return text.endsWith('\n') ? text.slice(0, -1) : text;
}
