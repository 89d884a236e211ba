/**
 * `secrets-vault export`: the vault's secrets as environment variables, printed or written to a
 * file, for the readers that load them (a dotenv file, a shell's `eval`, JSON), appended to the
 * `$GITHUB_ENV` file of a GitHub Actions step, or written as the encrypted snapshot
 * `run --fallback` starts from.
 */
import { randomUUID } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  ftruncateSync,
  openSync,
  readSync,
  writeSync,
} from 'node:fs';
import { EOL } from 'node:os';
import { readEnv } from '../../core/env.js';
import { changesHowProgramsStart } from '../child-env.js';
import { newClient } from '../client.js';
import type { Command, Flag } from '../command.js';
import { EnvFormatError, formatDotenv, formatShell } from '../dotenv.js';
import { CommandError, shellWord, usageError } from '../errors.js';
import {
  checkSnapshotPath,
  FALLBACK_KEY_VARIABLE,
  readFallbackKey,
  writeSnapshot,
} from '../fallback.js';
import { writeOutput } from '../files.js';
import { ALLOW_VAR, allowedVariables, FORMAT, PREFIX, VAULT, WAIT, WAIT_HELP } from '../flags.js';
import { loadForRun, variablesOf } from '../load.js';

const OUTPUT: Flag = { name: 'output', type: 'string' };

/** The file a GitHub Actions step appends variables to, for the steps after it. */
const GITHUB_ENV_VARIABLE = 'GITHUB_ENV';

/** @internal `secrets-vault export --vault <id> --format dotenv|shell|json|github|snapshot [options]`. */
export const exportCommand: Command = {
  name: 'export',
  summary: "print (or write) the vault's secrets as environment variables",
  synopsis: [
    '--vault <id> --format dotenv|shell|json [--output F] [--wait D]',
    '--vault <id> --format github [--allow-var NAME]... [--wait D]',
    '--vault <id> --format snapshot --output F [--wait D]',
  ],
  usage: `Usage: secrets-vault export --vault <id> --format dotenv|shell|json
                              [--output <file>] [--wait D]
       secrets-vault export --vault <id> --format github [--allow-var NAME]... [--wait D]
       secrets-vault export --vault <id> --format snapshot --output <file> [--wait D]
`,
  description: `Prints the vault's secrets as environment variables on stdout, or writes them to a
file: dotenv lines that node --env-file, the dotenv package and a shell sourcing
the file (set -a; . ./.env) all read back exactly, with no value able to make a
shell run anything (a value no quoting can carry for all three is refused, naming
its variable); export lines for eval "$(secrets-vault export --format shell ...)";
or one JSON object.

--format github, in a GitHub Actions step, masks every line of every value in the
job's log (one ::add-mask:: line each on stdout, which the runner does not show),
then appends the variables to the file named by GITHUB_ENV for the steps after
it, each between a random delimiter its value does not contain. Without
GITHUB_ENV it exits 2, printing nothing. A variable that would change how the
later steps run (PATH, BASH_ENV, NODE_*, LD_*, ...: the names run refuses) is
refused unless --allow-var names it, and one of SECRETS_VAULT_*, GITHUB_*,
RUNNER_* and ACTIONS_* always is, naming it; then nothing is printed or written.

--format snapshot writes the encrypted snapshot that run --fallback <file> reads
(key in SECRETS_VAULT_FALLBACK_KEY, bound to the vault and to the origin of
SECRETS_VAULT_BASE_URL, with the vault:// references of this environment resolved),
so that a job can start from it with run --fallback <file> --fallback-only, or
through an outage before its first good load. It is never printed: --output is
required, and --prefix belongs to run.
`,
  flags: [
    { flag: VAULT, help: '  --vault <id>       the vault to load (required)\n' },
    {
      flag: FORMAT,
      help: '  --format <format>  dotenv, shell, json, github or snapshot (required)\n',
    },
    {
      flag: OUTPUT,
      help: `  --output <file>    write to <file> instead of stdout: created with mode 0600 (never
                     wider than the file it replaces), replaced atomically
`,
    },
    { flag: PREFIX, help: '  --prefix <P>       prepended to every variable name\n' },
    {
      flag: ALLOW_VAR,
      help: `  --allow-var <NAME>  with --format github: let the vault set NAME for the later
                     steps although it changes how programs start (repeat for each)
`,
    },
    { flag: WAIT, help: WAIT_HELP },
  ],
  async action(context) {
    const { vaultIds, prefix, startup } = context;
    const format = context.string(FORMAT);
    if (
      format !== 'dotenv' &&
      format !== 'shell' &&
      format !== 'json' &&
      format !== 'github' &&
      format !== 'snapshot'
    ) {
      throw usageError('--format must be dotenv, shell, json, github or snapshot', 'export');
    }
    const output = context.string(OUTPUT);
    if (output === '') throw usageError('--output takes a file', 'export');
    const allowed = allowedVariables(context, 'export');
    if (format !== 'github' && allowed.size > 0) {
      throw usageError('--allow-var belongs to --format github (and to run)', 'export');
    }
    if (format === 'github') {
      if (output !== undefined) {
        throw usageError('--format github appends to $GITHUB_ENV: it takes no --output', 'export');
      }
      const file = process.env[GITHUB_ENV_VARIABLE];
      if (file === undefined || file === '') {
        throw usageError(
          '--format github needs GITHUB_ENV, which GitHub Actions sets in every step: run it in a workflow step',
          'export',
        );
      }
      // Before the load: a file that cannot take the variables costs no request.
      const githubEnv = openGithubEnv(file);
      try {
        const client = newClient();
        const variables = variablesOf(await loadForRun(client, vaultIds, {}, startup), prefix);
        // Everything is checked and formatted before anything is printed or written.
        const { masks, text } = formatGithub(variables, { allowed });
        // Masks first: once the file is written, the steps after this one hold the values, and
        // they must already be masked in anything those steps print.
        await printed(masks);
        appendGithubEnv(githubEnv, text);
      } finally {
        closeSync(githubEnv.descriptor);
      }
      return 0;
    }
    if (format === 'snapshot') {
      // Encrypted or not, a snapshot is not for a terminal or a log: it only ever goes to a file.
      if (output === undefined) {
        throw usageError('--format snapshot needs --output <file>', 'export');
      }
      // `run` applies its own --prefix to what the snapshot holds.
      if (prefix !== '') {
        throw usageError(
          '--prefix cannot be used with --format snapshot: give it to run',
          'export',
        );
      }
      const key = readFallbackKey(process.env[FALLBACK_KEY_VARIABLE]);
      // Before the load: a path a snapshot cannot be written to costs no request.
      checkSnapshotPath(output);
      const client = newClient();
      // The client has checked the base URL: the snapshot is bound to the service it names.
      const origin = new URL(readEnv('SECRETS_VAULT_BASE_URL') ?? '').origin;
      writeSnapshot(output, key, origin, await loadForRun(client, vaultIds, process.env, startup));
      return 0;
    }
    const client = newClient();
    // Plain data: `load`'s records print as [REDACTED], and this is the one place meant to print.
    // No references are resolved: what is printed is the vaults' own variables.
    const variables = variablesOf(await loadForRun(client, vaultIds, {}, startup), prefix);
    let text: string;
    try {
      text =
        format === 'json'
          ? `${JSON.stringify(variables, null, 2)}\n`
          : format === 'shell'
            ? formatShell(variables)
            : formatDotenv(variables);
    } catch (error) {
      if (error instanceof EnvFormatError) throw new CommandError(error.message, 1);
      throw error;
    }
    await writeOutput(output, text);
    return 0;
  },
};

/** @internal What `--format github` prints and appends, once every variable has been checked. */
export interface GithubExport {
  /** The `::add-mask::` lines for stdout, each ending with a newline. */
  readonly masks: string;
  /** The variables in the runner's `NAME<<DELIMITER` form, for the `$GITHUB_ENV` file. */
  readonly text: string;
}

/** @internal How {@link formatGithub} writes; the defaults are the runner's. */
export interface GithubFormatOptions {
  /**
   * The line ending of the file, as `@actions/core` writes it: the runner reads `\r\n` as one on
   * Windows only, where a value's last `\r` would otherwise be taken as part of the line ending.
   * @default os.EOL
   */
  readonly eol?: string;
  /** Draws a delimiter. @default `ghadelimiter_` and a random UUID, as `@actions/core` draws it */
  readonly newDelimiter?: () => string;
  /** `--allow-var` names: variables that change how programs start, allowed all the same. */
  readonly allowed?: ReadonlySet<string>;
}

// Variables that belong to the runner, GitHub and the command itself: a vault that set
// ACTIONS_ID_TOKEN_REQUEST_URL or SECRETS_VAULT_BASE_URL for the steps after this one would send
// their tokens wherever its editor chose. Compared upper-cased: Windows reads names in any case.
const RESERVED_PREFIXES = ['SECRETS_VAULT_', 'GITHUB_', 'RUNNER_', 'ACTIONS_'];
// A UTF-16 surrogate without its pair: written as UTF-8, it would become U+FFFD in the file.
const LONE_SURROGATE = /\p{Surrogate}/u;
// Drawing a delimiter a value holds means the random source is broken: a few draws, then refuse.
const DELIMITER_DRAWS = 3;

/**
 * @internal The variables as a GitHub Actions step hands them to the steps after it, as
 * `@actions/core`'s `exportVariable` and `setSecret` write them: each value between a delimiter
 * drawn for it, which neither its name nor its value contains anywhere (so no line of a value
 * can end it early, and no value can set another variable), and `::add-mask::` lines for every
 * line of every value, escaped as `@actions/core` escapes command data, so that no value can
 * issue a workflow command of its own.
 *
 * @throws {CommandError} (exit 1) naming the variable, never its value, when a name is not a
 *   shell identifier, is reserved (`SECRETS_VAULT_*`, `GITHUB_*`, `RUNNER_*`, `ACTIONS_*`) or
 *   changes how programs start (as `run` refuses it), or a value holds a NUL or a lone
 *   surrogate, or every delimiter drawn is in the name or the value
 */
export function formatGithub(
  variables: Readonly<Record<string, string>>,
  {
    eol = EOL,
    newDelimiter = () => `ghadelimiter_${randomUUID()}`,
    allowed = new Set(),
  }: GithubFormatOptions = {},
): GithubExport {
  try {
    // The shell formats' rules: names are identifiers (no `=`, `<<` or line break for the
    // runner's parser to act on) and no value holds a NUL, which no environment can carry.
    formatShell(variables);
  } catch (error) {
    if (error instanceof EnvFormatError) throw new CommandError(error.message, 1);
    throw error;
  }
  const masks = new Set<string>();
  let text = '';
  for (const [name, value] of Object.entries(variables)) {
    const upper = name.toUpperCase();
    const reserved = RESERVED_PREFIXES.find((prefix) => upper.startsWith(prefix));
    if (reserved !== undefined) {
      throw new CommandError(
        `the vault would set ${name}: ${reserved}* variables belong to ${reserved === 'SECRETS_VAULT_' ? 'this command' : 'GitHub Actions'}, and the vault never sets them for later steps`,
        1,
      );
    }
    if (changesHowProgramsStart(name) && !allowed.has(name)) {
      throw new CommandError(
        `the vault would set ${name}, which changes how programs start or what they load, for every later step of the job; allow it with --allow-var ${name}`,
        1,
      );
    }
    if (LONE_SURROGATE.test(value)) {
      throw new CommandError(
        `the value of ${name} holds a lone UTF-16 surrogate, which GITHUB_ENV cannot carry unaltered`,
        1,
      );
    }
    for (const mask of maskedForms(value)) masks.add(`::add-mask::${escapeCommandData(mask)}\n`);
    const delimiter = delimiterFor(name, value, newDelimiter);
    text += `${name}<<${delimiter}${eol}${value}${eol}${delimiter}${eol}`;
  }
  return { masks: [...masks].join(''), text };
}

/** A delimiter that `name` and `value` do not contain, anywhere (stricter than the runner's line match). */
function delimiterFor(name: string, value: string, newDelimiter: () => string): string {
  for (let draw = 0; draw < DELIMITER_DRAWS; draw++) {
    const delimiter = newDelimiter();
    if (delimiter !== '' && !name.includes(delimiter) && !value.includes(delimiter)) {
      return delimiter;
    }
  }
  // As `@actions/core` refuses: it should never happen, unless the random source can be steered.
  throw new CommandError(
    `the name or the value of ${name} contains every delimiter drawn for it: nothing was written`,
    1,
  );
}

/**
 * What to mask of `value`: each of its lines (the runner masks the log line by line, and reads a
 * `\r` alone as a line break too), and the whole value when it spans lines, as `setSecret` sends
 * it. Blank lines are left out: the runner refuses to mask them, and masking a run of spaces
 * would hide every one in the log.
 */
function maskedForms(value: string): string[] {
  const lines = value.split(/\r\n|\r|\n/).filter((line) => line.trim() !== '');
  if (lines.length === 0) return [];
  return lines.length === 1 && lines[0] === value ? [value] : [value, ...lines];
}

/**
 * `@actions/core`'s `escapeData`: the runner reads a command's data up to the end of its line and
 * decodes `%25`, `%0D` and `%0A`, so `%` is escaped too, lest a value's own `%0A` be decoded.
 */
function escapeCommandData(data: string): string {
  return data.replaceAll('%', '%25').replaceAll('\r', '%0D').replaceAll('\n', '%0A');
}

/** The `$GITHUB_ENV` file, open for appending. */
interface GithubEnvFile {
  /** The path, as `GITHUB_ENV` gives it (the runner's own, never a secret). */
  readonly file: string;
  readonly descriptor: number;
}

/**
 * Opens the `$GITHUB_ENV` file to append to it: never created (the runner makes it for each
 * step, and `@actions/core` refuses a missing one), never truncated, and only a regular file (a
 * FIFO without a reader fails at once instead of waiting).
 * @throws {CommandError} (exit 1) naming the file and the system's error code
 */
function openGithubEnv(file: string): GithubEnvFile {
  let descriptor: number | undefined;
  try {
    // Read too: the file's last byte says whether it ends its last line.
    descriptor = openSync(
      file,
      constants.O_RDWR |
        constants.O_APPEND |
        (constants.O_NONBLOCK ?? 0) |
        (constants.O_NOCTTY ?? 0),
    );
    if (!fstatSync(descriptor).isFile()) {
      throw new CommandError(
        `cannot append to $${GITHUB_ENV_VARIABLE} ${shellWord(file)}: it is not a regular file`,
        1,
      );
    }
    return { file, descriptor };
  } catch (error) {
    if (descriptor !== undefined) closeSync(descriptor);
    if (error instanceof CommandError) throw error;
    throw new CommandError(
      `cannot append to $${GITHUB_ENV_VARIABLE} ${shellWord(file)}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
      1,
    );
  }
}

/**
 * Appends `text` to the `$GITHUB_ENV` file in one write, after a line break when the file's last
 * line has none (else the first name would join that line, and the runner would read the values
 * as `NAME=value` lines). A write that fails midway is cut back off, so the file holds all of
 * the variables or none of them.
 * @throws {CommandError} (exit 1) naming the file and the system's error code
 */
function appendGithubEnv({ file, descriptor }: GithubEnvFile, text: string): void {
  if (text === '') return;
  let size: number | undefined;
  try {
    size = fstatSync(descriptor).size;
    const last = Buffer.alloc(1);
    const endsItsLine =
      size === 0 || (readSync(descriptor, last, 0, 1, size - 1) === 1 && last[0] === 0x0a);
    const data = Buffer.from(endsItsLine ? text : `${EOL}${text}`);
    for (let offset = 0; offset < data.length; ) {
      offset += writeSync(descriptor, data, offset, data.length - offset);
    }
  } catch (error) {
    let outcome = 'nothing was added';
    if (size !== undefined) {
      try {
        ftruncateSync(descriptor, size);
      } catch {
        // An unfinished block has no closing delimiter: the runner fails the step on it.
        outcome = 'it may end with an unfinished variable, which fails the step';
      }
    }
    throw new CommandError(
      `cannot append to $${GITHUB_ENV_VARIABLE} ${shellWord(file)}: ${(error as NodeJS.ErrnoException).code ?? 'error'}; ${outcome}`,
      1,
    );
  }
}

/** Resolves once `text` is written to stdout, so that nothing is appended after a failed print. */
function printed(text: string): Promise<void> {
  if (text === '') return Promise.resolve();
  return new Promise((resolve, reject) => {
    process.stdout.write(text, (error) => (error ? reject(error) : resolve()));
  });
}
