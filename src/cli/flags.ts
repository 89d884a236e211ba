/**
 * The flags more than one command takes, declared once here and listed by each command that
 * takes them, and the checks they get before any command-specific one.
 */
import { parseDuration, readEnv } from '../core/env.js';
import type { StartupOptions } from '../resources/secrets.js';
import type { Command, CommandContext, Flag, FlagValues } from './command.js';
import { usageError } from './errors.js';

/**
 * @internal `--vault <id>`, repeatable: the vaults a command reads, in order (a later vault's
 * variable replaces an earlier one's).
 */
export const VAULT: Flag = { name: 'vault', type: 'string', multiple: true };

/** @internal The environment variable that stands in for `--vault`: comma-separated ids. */
export const VAULT_VARIABLE = 'SECRETS_VAULT_VAULT_ID';

/**
 * @internal `--format <format>`: how a command prints what it read. Each command that takes it
 * checks the value against its own formats (`export`: dotenv, shell, json; `ls`: text, json).
 */
export const FORMAT: Flag = { name: 'format', type: 'string' };

/** @internal `--prefix <P>`: prepended to every variable name (`ls` accepts it undocumented). */
export const PREFIX: Flag = { name: 'prefix', type: 'string' };

/** @internal `--wait <duration>`: how long each command that reads the service waits out an outage. */
export const WAIT: Flag = {
  name: 'wait',
  type: 'string',
  overview: `  --wait <duration>  how long to wait out an unavailable service: 500ms, 90s, 2m,
                     or milliseconds (default: SECRETS_VAULT_WAIT, else 60s)
`,
};

/** @internal The lines every command's help describes `--wait` in. */
export const WAIT_HELP = `  --wait <duration>  how long to wait out an unavailable service (connection
                     failures, timeouts, 408, 429, 5xx), retrying with jittered
                     backoff: 500ms, 90s, 2m, or milliseconds; 0 for three attempts
                     (default: SECRETS_VAULT_WAIT, else 60s). A refused token or an
                     unknown vault fails at once.
`;

/**
 * @internal `--watch`: keep polling the vaults and act when what they give changes (`run`:
 * restart the command; `inject`: rewrite the files). Each command's help says what it does.
 */
export const WATCH: Flag = { name: 'watch', type: 'boolean' };

/** @internal `--watch-interval <duration>`: how often `--watch` polls. */
export const WATCH_INTERVAL: Flag = { name: 'watch-interval', type: 'string' };

/** @internal `--grace <duration>`: how long a restart lets the command stop after SIGTERM. */
export const GRACE: Flag = { name: 'grace', type: 'string' };

/**
 * @internal `--allow-var <NAME>`, repeatable: a variable the vault may set although it changes
 * how programs start (`run`: for its command; `export --format github`: for the job's later
 * steps).
 */
export const ALLOW_VAR: Flag = { name: 'allow-var', type: 'string', multiple: true };

/** @internal The names `--allow-var` opens, each checked to be a variable's name. */
export function allowedVariables(values: FlagValues, command: string): ReadonlySet<string> {
  const allowed = values.strings(ALLOW_VAR);
  if (allowed.some((name) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))) {
    throw usageError('--allow-var takes a variable name (letters, digits and _)', command);
  }
  return new Set(allowed);
}

/** @internal Whether `flag` was given on the command line. */
export function isGiven(values: FlagValues, flag: Flag): boolean {
  if (flag.type === 'boolean') return values.boolean(flag);
  return flag.multiple ? values.strings(flag).length > 0 : values.string(flag) !== undefined;
}

/** @internal `-h, --help`: the help of the command it follows (the top-level help has its own words). */
export const HELP: Flag = {
  name: 'help',
  type: 'boolean',
  short: 'h',
  overview: `  -h, --help         show help (also after a command)
`,
};

/**
 * @internal The flags every command takes without listing them: the top-level help documents
 * them once for all.
 */
export const GLOBAL_FLAGS: readonly Flag[] = [HELP];

/** @internal The shared flags' values, once checked. */
export type SharedValues = Pick<CommandContext, 'vaultIds' | 'prefix' | 'startup'>;

/**
 * @internal Checks `--vault`, `--prefix` and `--wait`, in that order, each for a command that
 * takes it. Run before the check that every flag given belongs to `command`: of several mistakes
 * at once, a missing vault is the one reported, and a flag the command does not take is refused
 * there, naming the commands that take it, whatever its value.
 *
 * @throws {CommandError} a usage error naming the flag
 */
export function readSharedFlags(values: FlagValues, command: Command): SharedValues {
  const takes = (flag: Flag) => command.flags.some((owned) => owned.flag === flag);
  const vaultIds = takes(VAULT) ? readVaults(values, command.name) : [];
  const prefix = (takes(PREFIX) && values.string(PREFIX)) || '';
  if (!/^[A-Za-z0-9_]*$/.test(prefix)) {
    throw usageError('--prefix may hold only letters, digits and _', command.name);
  }
  const startup: StartupOptions = {};
  const waitText = takes(WAIT) ? values.string(WAIT) : undefined;
  if (waitText !== undefined) {
    const wait = parseDuration(waitText);
    if (wait === undefined) {
      throw usageError(
        '--wait takes a duration such as 500ms, 90s, 2m, or milliseconds',
        command.name,
      );
    }
    Object.assign(startup, { wait });
  }
  return { vaultIds, prefix, startup };
}

/** The vaults of every `--vault`, else of `SECRETS_VAULT_VAULT_ID`, each once, in order. */
function readVaults(values: FlagValues, command: string): readonly string[] {
  const given = values.strings(VAULT);
  const fromVariable = given.length === 0;
  const ids = fromVariable ? (readEnv(VAULT_VARIABLE)?.split(',') ?? []) : given;
  if (ids.length === 0) {
    throw usageError(`--vault <id> is required (or set ${VAULT_VARIABLE})`, command);
  }
  const trimmed = ids.map((id) => id.trim());
  if (trimmed.some((id) => id === '')) {
    throw usageError(
      fromVariable
        ? `${VAULT_VARIABLE} takes vault ids separated by commas, none of them empty`
        : '--vault takes a vault id',
      command,
    );
  }
  return [...new Set(trimmed)];
}
