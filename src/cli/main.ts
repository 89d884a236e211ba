/**
 * `secrets-vault`: the package's command, for jobs that want their secrets in the environment
 * without writing code. Node only, and an entry of its own, so the client stays free of `node:`
 * imports. It reads `SECRETS_VAULT_BASE_URL` and `SECRETS_VAULT_TOKEN` (or
 * `SECRETS_VAULT_TOKEN_FILE`) like the client does.
 *
 * This module picks the command and parses its flags; each command is a module of its own
 * (`commands/`), and the option table, the flag-ownership check and the top-level help are
 * derived from their list. Importing it runs nothing: the bin file calls {@link main}.
 *
 * @packageDocumentation
 */
import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';
import packageJson from '../../package.json' with { type: 'json' };
import { escapeControlCharacters } from '../core/redaction.js';
import type { Command, Flag, FlagValues } from './command.js';
import { COMMANDS } from './commands/index.js';
import {
  CommandError,
  describe,
  exitCodeOf,
  shellWord,
  stayedUnavailable,
  usageError,
} from './errors.js';
import { FallbackError } from './fallback.js';
import { GLOBAL_FLAGS, readSharedFlags } from './flags.js';
import { commandHelp, namesOf, takersOf, topLevelHelp } from './help.js';

/**
 * Every flag any command takes, each once, in the order the commands list them, then the global
 * ones. `parseArgs` is given all of them for any command, so that a flag of another command is
 * reported as belonging to it rather than as unknown.
 */
const FLAGS: readonly Flag[] = [
  ...new Set([
    ...COMMANDS.flatMap((command) => command.flags.map(({ flag }) => flag)),
    ...GLOBAL_FLAGS,
  ]),
];

const OPTIONS: ParseArgsOptionsConfig = Object.fromEntries(
  FLAGS.map(({ name, type, multiple, short }) => [
    name,
    { type, ...(multiple ? { multiple } : {}), ...(short === undefined ? {} : { short }) },
  ]),
);

const USAGE = topLevelHelp(COMMANDS, FLAGS);

/** Runs the command line `argv` (without node and the script) and resolves to the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  const started = performance.now();
  try {
    return await dispatch(argv);
  } catch (error) {
    const exitCode = exitCodeOf(error);
    const cause =
      exitCode === 75 && !(error instanceof FallbackError)
        ? `${stayedUnavailable(performance.now() - started)}: `
        : exitCode === 77
          ? 'the token was refused: '
          : '';
    process.stderr.write(`secrets-vault: ${cause}${describe(error)}\n`);
    return exitCode;
  }
}

async function dispatch(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '-h' || name === '--help' || name === 'help') {
    process.stdout.write(USAGE);
    return name === undefined ? 2 : 0;
  }
  // Only as the first word: `-v` is not a flag of any command.
  if (name === '-v' || name === '--version') {
    process.stdout.write(`${packageJson.version}\n`);
    return 0;
  }
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (command === undefined) throw usageError(`unknown command '${name}'`);
  // Everything after `--` belongs to the child command, flags included.
  const separator = rest.indexOf('--');
  const own = separator === -1 ? rest : rest.slice(0, separator);
  const operands = separator === -1 ? [] : rest.slice(separator + 1);
  let parsed: ReturnType<typeof parseOptions> | undefined;
  try {
    parsed = parseOptions(own);
  } catch {
    // Explained below, from what was typed.
  }
  if (parsed?.values.help) {
    process.stdout.write(commandHelp(command));
    return 0;
  }
  if (parsed === undefined || (parsed.positionals.length > 0 && !command.takesArguments)) {
    throw mistakeIn(command, rest, own);
  }
  const { values } = parsed;
  const flagValues = readValues(values);
  const shared = readSharedFlags(flagValues, command);
  for (const flag of FLAGS) {
    if (values[flag.name] !== undefined && !takes(command, flag)) {
      throw usageError(`--${flag.name} belongs to ${ownersOf(flag)}`, name);
    }
  }
  const args = command.takesArguments ? [...parsed.positionals, ...operands] : [];
  return command.action({ ...flagValues, ...shared, operands, arguments: args });
}

function parseOptions(args: string[]) {
  return parseArgs({ args, allowPositionals: true, strict: true, options: OPTIONS });
}

/**
 * The usage error for `args` (what was typed after the command's name; `own`, the part before
 * any `--`), which did not parse or held an argument no flag takes: it names the fix. The usual
 * mistake is a command given to `run` without `--`, which Node's parser reports as an unknown
 * option of the command's (`-e` of `node -e 1`) or as a stray argument.
 */
function mistakeIn(command: Command, args: readonly string[], own: string[]): CommandError {
  const { tokens } = parseArgs({
    args: own,
    allowPositionals: true,
    strict: false,
    tokens: true,
    options: OPTIONS,
  });
  // A command that takes arguments has no stray word: its mistake is an option.
  const stray = command.takesArguments
    ? undefined
    : tokens.find((token) => token.kind === 'positional');
  const unknown = tokens.find(
    (token) =>
      token.kind === 'option' &&
      !Object.hasOwn(OPTIONS, token.name) &&
      (stray === undefined || token.index < stray.index),
  );
  if (unknown?.kind === 'option') {
    return usageError(`unknown option '${escapeControlCharacters(unknown.rawName)}'`, command.name);
  }
  if (stray?.kind === 'positional') {
    if (!takesCommand(command)) {
      return usageError(
        `unexpected argument '${escapeControlCharacters(stray.value)}'`,
        command.name,
      );
    }
    // Everything from the first stray word on is taken for the command, as the user wrote it.
    const fixed = [
      'secrets-vault',
      command.name,
      ...args.slice(0, stray.index),
      '--',
      ...args.slice(stray.index),
    ];
    return new CommandError(`put the command after --: ${fixed.map(shellWord).join(' ')}`, 2);
  }
  // A flag without its value, or a switch given one: Node's first line says which.
  try {
    parseOptions(own);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return usageError(message.split('\n')[0] ?? message, command.name);
  }
  return usageError('unexpected arguments', command.name);
}

/** Whether `command` runs a command given after `--`, as its synopsis shows (`run`). */
function takesCommand(command: Command): boolean {
  return command.synopsis.some((line) => line.includes('-- <command>'));
}

/** Whether `command` takes `flag`: it lists it, or every command does. */
function takes(command: Command, flag: Flag): boolean {
  return GLOBAL_FLAGS.includes(flag) || command.flags.some((listed) => listed.flag === flag);
}

/** The commands that take `flag`, as a message names them ("run", "run and export"). */
function ownersOf(flag: Flag): string {
  return namesOf(takersOf(COMMANDS, flag));
}

type ParsedValues = ReturnType<typeof parseOptions>['values'];

/** The parsed values, read through the flags that declare them. */
function readValues(values: ParsedValues): FlagValues {
  return {
    string: (flag) => {
      const value = values[flag.name];
      return typeof value === 'string' ? value : undefined;
    },
    boolean: (flag) => values[flag.name] === true,
    strings: (flag) => {
      const value = values[flag.name];
      return Array.isArray(value)
        ? value.filter((item): item is string => typeof item === 'string')
        : [];
    },
  };
}
