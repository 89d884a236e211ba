/**
 * The help texts: the top-level one, derived from the list of commands, and each command's,
 * assembled from what its module declares.
 */
import type { Command, Flag } from './command.js';

/** The column the top-level help writes each command's summary in. */
const SUMMARY_COLUMN = 21;

/** @internal The exit codes, as the end of every command's help explains them. */
export const EXIT_HELP = `Exit codes: 75 when the service stayed unavailable for the whole wait, 77 when
the token was refused (401, 403), 2 for a usage error, 1 for anything else.
`;

/**
 * @internal The help of `secrets-vault` alone: every command of `commands` with its synopsis and
 * summary, then the options of `flags` that mean the same to every command.
 */
export function topLevelHelp(commands: readonly Command[], flags: readonly Flag[]): string {
  const listed = commands.map(({ name, synopsis, summary }) => {
    // Continuation lines start under the first argument, after the command's name.
    const [first = '', ...more] = synopsis;
    const under = ' '.repeat(2 + name.length + 1);
    return `  ${name} ${first}\n${more.map((line) => `${under}${line}\n`).join('')}${' '.repeat(SUMMARY_COLUMN)}${summary}\n`;
  });
  const options = flags.map((flag) => flag.overview ?? '').join('');
  // `--version` is no flag of any command: only the first word, so its line is written here.
  return `Usage: secrets-vault <command> [options]

Commands:
${listed.join('')}
Options:
${options}  -v, --version      show the version

Environment: SECRETS_VAULT_BASE_URL, SECRETS_VAULT_TOKEN (or SECRETS_VAULT_TOKEN_FILE,
a file holding it); SECRETS_VAULT_WAIT, SECRETS_VAULT_MAX_RETRIES,
SECRETS_VAULT_TIMEOUT; SECRETS_VAULT_FALLBACK_KEY, SECRETS_VAULT_FALLBACK_MAX_AGE;
SECRETS_VAULT_WATCH_INTERVAL; SECRETS_VAULT_LOG (error, warn, info or debug: logfmt
lines on stderr).

Exit codes: 0 done (run: the command's own); 75 the service stayed unavailable for
the whole wait; 77 the token was refused; 2 usage error; 1 anything else.
`;
}

/** @internal The help of one command: its usage, its description, its documented flags, the exit codes. */
export function commandHelp(command: Command): string {
  const options = command.flags.map(({ help }) => help ?? '').join('');
  return `${command.usage}\n${command.description}\nOptions:\n${options}\n${EXIT_HELP}`;
}
