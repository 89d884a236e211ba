/**
 * `secrets-vault`: the package's command, for jobs that want their secrets in the environment
 * without writing code. Node only, and an entry of its own, so the client stays free of `node:`
 * imports. It reads `SECRETS_VAULT_BASE_URL` and `SECRETS_VAULT_TOKEN` like the client does.
 *
 * This module picks the command and parses its flags; each command is a module of its own
 * (`commands/`), and the option table, the flag-ownership check and the top-level help are
 * derived from their list. Importing it runs nothing: the bin file calls {@link main}.
 *
 * @packageDocumentation
 */
import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';
import packageJson from '../../package.json' with { type: 'json' };
import type { Command, Flag, FlagValues } from './command.js';
import { COMMANDS } from './commands/index.js';
import { describe, exitCodeOf, stayedUnavailable, usageError } from './errors.js';
import { FallbackError } from './fallback.js';
import { GLOBAL_FLAGS, readSharedFlags } from './flags.js';
import { commandHelp, topLevelHelp } from './help.js';

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
  let parsed: ReturnType<typeof parseOptions>;
  try {
    parsed = parseOptions(own);
  } catch (error) {
    // Node explains some parse errors over several lines; the first says what is wrong.
    const message = error instanceof Error ? error.message : String(error);
    throw usageError(message.split('\n')[0] ?? message, name);
  }
  const { values } = parsed;
  if (values.help) {
    process.stdout.write(commandHelp(command));
    return 0;
  }
  if (parsed.positionals.length > 0) {
    throw usageError(`unexpected argument '${parsed.positionals[0]}'`, name);
  }
  const flagValues = readValues(values);
  const shared = readSharedFlags(flagValues, command);
  for (const flag of FLAGS) {
    if (values[flag.name] !== undefined && !takes(command, flag)) {
      throw usageError(`--${flag.name} belongs to ${ownersOf(flag)}`, name);
    }
  }
  return command.action({ ...flagValues, ...shared, operands });
}

function parseOptions(args: string[]) {
  return parseArgs({ args, allowPositionals: true, strict: true, options: OPTIONS });
}

/** Whether `command` takes `flag`: it lists it, or every command does. */
function takes(command: Command, flag: Flag): boolean {
  return GLOBAL_FLAGS.includes(flag) || command.flags.some((listed) => listed.flag === flag);
}

/** The commands that take `flag`, as a message names them ("run", "run and export"). */
function ownersOf(flag: Flag): string {
  const owners = COMMANDS.filter((command) => takes(command, flag)).map(({ name }) => name);
  return new Intl.ListFormat('en', { type: 'conjunction' }).format(owners);
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
