/**
 * The help texts: the top-level one, derived from the list of commands, and each command's,
 * assembled from what its module declares.
 */
import type { Command, Flag } from './command.js';
import { WAIT } from './flags.js';

/** The column the top-level help writes each command's summary in. */
const SUMMARY_COLUMN = 21;

/**
 * @internal The exit codes, as the end of the help of every command that reads the service
 * explains them.
 */
export const EXIT_HELP = `Exit codes: 75 when the service stayed unavailable for the whole wait, 77 when
the token was refused (401, 403), 2 for a usage error, 1 for anything else.
`;

/**
 * The exit codes of a command that never reads the service (`mock`): an outage or a refused
 * token cannot happen to it, and its help's description says when it exits 0.
 */
const LOCAL_EXIT_HELP = `Exit codes: 2 for a usage error, 1 for anything else.
`;

/**
 * @internal The help of `secrets-vault` alone: every command of `commands` with its synopsis and
 * summary, then the options of `flags` that have an overview (each with the commands that take
 * it, when not all do), then the exit codes, each with the commands it applies to.
 */
export function topLevelHelp(commands: readonly Command[], flags: readonly Flag[]): string {
  const listed = commands.map(({ name, synopsis, summary }) => {
    // Continuation lines start under the first argument, after the command's name.
    const [first = '', ...more] = synopsis;
    const under = ' '.repeat(2 + name.length + 1);
    return `  ${name} ${first}\n${more.map((line) => `${under}${line}\n`).join('')}${' '.repeat(SUMMARY_COLUMN)}${summary}\n`;
  });
  const options = flags
    .filter((flag) => flag.overview !== undefined)
    .map((flag) => {
      const takers = takersOf(commands, flag);
      // A flag no command lists is global (`--help`): every command takes it, as it does one
      // that every command lists.
      const some = takers.length > 0 && takers.length < commands.length;
      return `${flag.overview}${some ? `${' '.repeat(SUMMARY_COLUMN)}(${namesOf(takers)} only)\n` : ''}`;
    })
    .join('');
  // The commands that wait out an outage are the ones that read the service: only they can
  // leave with 75 (it stayed unavailable for the whole wait) or 77 (it refused the token).
  const readers = `(${namesOf(takersOf(commands, WAIT))})`;
  // `--version` is no flag of any command: only the first word, so its line is written here.
  return `Usage: secrets-vault <command> [options]

Commands:
${listed.join('')}
Options:
${options}  -v, --version      show the version

Environment: SECRETS_VAULT_BASE_URL, SECRETS_VAULT_TOKEN (or SECRETS_VAULT_TOKEN_FILE,
a file holding it); SECRETS_VAULT_WAIT, SECRETS_VAULT_MAX_RETRIES,
SECRETS_VAULT_TIMEOUT; SECRETS_VAULT_FALLBACK_KEY, SECRETS_VAULT_FALLBACK_MAX_AGE,
SECRETS_VAULT_CACHE_TTL; SECRETS_VAULT_WATCH_INTERVAL; SECRETS_VAULT_LOG (error, warn,
info or debug: logfmt lines on stderr).

Exit codes:
  0   done (run: its command's own; mock, agent: once stopped by SIGINT or SIGTERM)
  75  the service stayed unavailable for the whole wait ${readers}
  77  the token was refused ${readers}
  2   usage error
  1   anything else
`;
}

/** @internal The help of one command: its usage, its description, its documented flags, the exit codes. */
export function commandHelp(command: Command): string {
  const options = command.flags.map(({ help }) => help ?? '').join('');
  const exitCodes = command.flags.some(({ flag }) => flag === WAIT) ? EXIT_HELP : LOCAL_EXIT_HELP;
  return `${command.usage}\n${command.description}\nOptions:\n${options}\n${exitCodes}`;
}

/** @internal The commands of `commands` that list `flag`, in their order. */
export function takersOf(commands: readonly Command[], flag: Flag): readonly Command[] {
  return commands.filter((command) => command.flags.some((listed) => listed.flag === flag));
}

/** @internal The names of `commands` as a sentence lists them: `run, export and ls`. */
export function namesOf(commands: readonly Command[]): string {
  return new Intl.ListFormat('en', { type: 'conjunction' }).format(
    commands.map(({ name }) => name),
  );
}
