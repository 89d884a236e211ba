/**
 * `secrets-vault`: the package's command, for jobs that want their secrets in the environment
 * without writing code. Node only, and an entry of its own, so the client stays free of `node:`
 * imports. It reads `SECRETS_VAULT_BASE_URL` and `SECRETS_VAULT_TOKEN` like the client does.
 *
 * @packageDocumentation
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { parseArgs } from 'node:util';
import packageJson from '../../package.json' with { type: 'json' };
import { SecretsVault } from '../client.js';
import { parseDuration, readEnv } from '../core/env.js';
import {
  APIConnectionError,
  APIError,
  AuthenticationError,
  PermissionDeniedError,
  SecretsVaultError,
} from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { escapeControlCharacters } from '../core/redaction.js';
import { isUnavailableStatus } from '../core/retry.js';
import type { StartupOptions } from '../resources/secrets.js';
import type { LoadedSecrets } from '../startup/load.js';
import { plainCopy } from '../startup/redacted.js';
import { referencedVault, resolveReferences } from '../startup/references.js';
import { toEnv } from '../startup/to-env.js';
import { ChildEnvError, childEnvironment } from './child-env.js';
import { EnvFormatError, formatDotenv, formatShell } from './dotenv.js';
import {
  describeAge,
  FALLBACK_KEY_VARIABLE,
  FallbackError,
  MAX_SNAPSHOT_BYTES,
  readFallbackKey,
  readSnapshot,
  type Snapshot,
  type SnapshotExpectation,
  writeSnapshot,
} from './fallback.js';
import { writeFileAtomically } from './files.js';

const USAGE = `Usage: secrets-vault <command> [options]

Commands:
  run --vault <id> [--prefix P] [--override] [--wait D] [--fallback F]
      [--fallback-max-age D] [--keep-token] [--allow-var NAME]...
      -- <command> [args...]
                     run a command with the vault's secrets in its environment
  export --vault <id> --format dotenv|shell|json [--output F] [--wait D]
                     print (or write) the vault's secrets as environment variables
  ls --vault <id> [--wait D]
                     list the vault's secret names and their keys (never values)

Options:
  --wait <duration>  how long to wait out an unavailable service: 500ms, 90s, 2m,
                     or milliseconds (default: SECRETS_VAULT_WAIT, else 60s)
  -h, --help         show help (also after a command)
  -v, --version      show the version

Environment: SECRETS_VAULT_BASE_URL, SECRETS_VAULT_TOKEN; SECRETS_VAULT_WAIT,
SECRETS_VAULT_MAX_RETRIES, SECRETS_VAULT_TIMEOUT; SECRETS_VAULT_FALLBACK_KEY,
SECRETS_VAULT_FALLBACK_MAX_AGE.

Exit codes: 0 done (run: the command's own); 75 the service stayed unavailable for
the whole wait; 77 the token was refused; 2 usage error; 1 anything else.
`;

const WAIT_HELP = `  --wait <duration>  how long to wait out an unavailable service (connection
                     failures, timeouts, 408, 429, 5xx), retrying with jittered
                     backoff: 500ms, 90s, 2m, or milliseconds; 0 for three attempts
                     (default: SECRETS_VAULT_WAIT, else 60s). A refused token or an
                     unknown vault fails at once.
`;

const EXIT_HELP = `Exit codes: 75 when the service stayed unavailable for the whole wait, 77 when
the token was refused (401, 403), 2 for a usage error, 1 for anything else.
`;

const COMMAND_HELP: Readonly<Record<string, string>> = {
  run: `Usage: secrets-vault run --vault <id> [--prefix P] [--override] [--wait D]
                           [--fallback <file>] [--fallback-max-age D] [--keep-token]
                           [--allow-var NAME]... -- <command> [args...]

Loads the vault's secrets once, puts them in the environment of <command> as
SECRET_KEY variables (database.password -> DATABASE_PASSWORD), resolves
vault://<vaultId>/<secret>/<key> references already in the environment, and runs
<command> without a shell. Exits with its exit code (128 + the signal number when a
signal ended it); SIGTERM is passed on to it, and SIGINT, SIGQUIT and SIGHUP too
unless a terminal already sent them to it.

The command does not get SECRETS_VAULT_TOKEN (unless --keep-token) nor
SECRETS_VAULT_FALLBACK_KEY. The vault may never set a SECRETS_VAULT_* variable,
nor, in any case, a variable a program or tool reads as its configuration
(NODE_*, NPM_CONFIG_*, YARN_*, GIT_*, PIP_*, CARGO_*, DOCKER_*, LD_*, PATH,
*_OPTS, *_OPTIONS, *_PROXY, *_CONFIG_FILE, ...) unless that exact name is given
with --allow-var; vault values are never resolved as references.

Options:
  --vault <id>   the vault to load (required)
  --prefix <P>   prepended to every variable name, such as APP_
  --override     let the vault's variables replace ones already set (default: the
                 existing environment wins)
${WAIT_HELP}  --fallback <file>
                 after each good load, keep the values in <file>, encrypted
                 (AES-256-GCM, key in SECRETS_VAULT_FALLBACK_KEY: 32 bytes as hex or
                 base64), mode 0600; when the service stays unavailable for the whole
                 wait, start from it instead, saying so with its age. Never after a
                 refused token or an unknown vault. The snapshot is bound to the
                 vault and to the service (the origin of SECRETS_VAULT_BASE_URL),
                 and read only when a regular file of at most ${MAX_SNAPSHOT_BYTES / 1024 / 1024} MiB.
  --fallback-max-age <duration>
                 never start from a snapshot saved longer ago than this: 90s, 2m,
                 24h, or milliseconds (default: SECRETS_VAULT_FALLBACK_MAX_AGE,
                 else no limit)
  --keep-token   give the command the job's SECRETS_VAULT_TOKEN
  --allow-var <NAME>
                 let the vault set NAME although it changes how programs start
                 (repeat for each name)

${EXIT_HELP}`,
  export: `Usage: secrets-vault export --vault <id> --format dotenv|shell|json
                              [--output <file>] [--wait D]

Prints the vault's secrets as environment variables on stdout, or writes them to a
file: dotenv lines that node --env-file, the dotenv package and a shell sourcing
the file (set -a; . ./.env) all read back exactly, with no value able to make a
shell run anything (a value no quoting can carry for all three is refused, naming
its variable); export lines for eval "$(secrets-vault export --format shell ...)";
or one JSON object.

Options:
  --vault <id>       the vault to load (required)
  --format <format>  dotenv, shell or json (required)
  --output <file>    write to <file> instead of stdout: created with mode 0600 (never
                     wider than the file it replaces), replaced atomically
  --prefix <P>       prepended to every variable name
${WAIT_HELP}
${EXIT_HELP}`,
  ls: `Usage: secrets-vault ls --vault <id> [--wait D]

Lists the live secrets of a vault, one per line: the name, then its keys. Never values.

Options:
  --vault <id>   the vault to list (required)
${WAIT_HELP}
${EXIT_HELP}`,
};

/** A failure to report in one line, with the exit code to leave with. */
class CommandError extends Error {
  override name = 'CommandError';
  readonly exitCode: number;

  constructor(message: string, exitCode: number) {
    super(message);
    this.exitCode = exitCode;
  }
}

const usageError = (message: string, command?: string) =>
  new CommandError(`${message} (see secrets-vault ${command ? `${command} ` : ''}--help)`, 2);

/** Runs the command line `argv` (without node and the script) and resolves to the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  const started = performance.now();
  try {
    return await dispatch(argv);
  } catch (error) {
    const exitCode = exitCodeOf(error);
    const cause =
      exitCode === 75 && !(error instanceof FallbackError)
        ? `the service stayed unavailable for ${seconds(performance.now() - started)}: `
        : exitCode === 77
          ? 'the token was refused: '
          : '';
    process.stderr.write(`secrets-vault: ${cause}${describe(error)}\n`);
    return exitCode;
  }
}

/**
 * The exit code a failure leaves with, so a supervisor can tell "retry later" (75, EX_TEMPFAIL)
 * from "fix the configuration" (77, EX_NOPERM; 2, usage; 1, anything else).
 */
function exitCodeOf(error: unknown): number {
  if (error instanceof CommandError || error instanceof FallbackError) return error.exitCode;
  if (error instanceof AuthenticationError || error instanceof PermissionDeniedError) return 77;
  return isOutage(error) ? 75 : 1;
}

/** Whether `error` says the service was unavailable, as opposed to a verdict on the request. */
function isOutage(error: unknown): boolean {
  return (
    error instanceof APIConnectionError ||
    (error instanceof APIError && isUnavailableStatus(error.status))
  );
}

function seconds(milliseconds: number): string {
  return `${(milliseconds / 1000).toFixed(1)}s`;
}

async function dispatch(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '-h' || command === '--help' || command === 'help') {
    process.stdout.write(USAGE);
    return command === undefined ? 2 : 0;
  }
  if (command === '-v' || command === '--version') {
    process.stdout.write(`${packageJson.version}\n`);
    return 0;
  }
  if (!Object.hasOwn(COMMAND_HELP, command)) throw usageError(`unknown command '${command}'`);
  // Everything after `--` belongs to the child command, flags included.
  const separator = rest.indexOf('--');
  const own = separator === -1 ? rest : rest.slice(0, separator);
  const child = separator === -1 ? [] : rest.slice(separator + 1);
  let parsed: ReturnType<typeof parseOptions>;
  try {
    parsed = parseOptions(own);
  } catch (error) {
    // Node explains some parse errors over several lines; the first says what is wrong.
    const message = error instanceof Error ? error.message : String(error);
    throw usageError(message.split('\n')[0] ?? message, command);
  }
  const { values } = parsed;
  if (values.help) {
    process.stdout.write(COMMAND_HELP[command] ?? USAGE);
    return 0;
  }
  if (parsed.positionals.length > 0) {
    throw usageError(`unexpected argument '${parsed.positionals[0]}'`, command);
  }
  const vaultId = values.vault;
  if (vaultId === undefined || vaultId === '')
    throw usageError('--vault <id> is required', command);
  const prefix = values.prefix ?? '';
  if (!/^[A-Za-z0-9_]*$/.test(prefix)) {
    throw usageError('--prefix may hold only letters, digits and _', command);
  }
  const startup: StartupOptions = {};
  if (values.wait !== undefined) {
    const wait = parseDuration(values.wait);
    if (wait === undefined) {
      throw usageError('--wait takes a duration such as 500ms, 90s, 2m, or milliseconds', command);
    }
    Object.assign(startup, { wait });
  }
  for (const [flag, given, owner] of [
    ['--fallback', values.fallback !== undefined, 'run'],
    ['--fallback-max-age', values['fallback-max-age'] !== undefined, 'run'],
    ['--keep-token', values['keep-token'] !== undefined, 'run'],
    ['--allow-var', values['allow-var'] !== undefined, 'run'],
    ['--override', values.override !== undefined, 'run'],
    ['--output', values.output !== undefined, 'export'],
    ['--format', values.format !== undefined, 'export'],
  ] as const) {
    if (given && command !== owner) throw usageError(`${flag} belongs to ${owner}`, command);
  }
  switch (command) {
    case 'run': {
      if (child.length === 0) throw usageError('a command to run is required after --', command);
      if (values.fallback === '') throw usageError('--fallback takes a file', command);
      if (values['fallback-max-age'] !== undefined && values.fallback === undefined) {
        throw usageError('--fallback-max-age needs --fallback', command);
      }
      const fallback =
        values.fallback === undefined
          ? undefined
          : {
              file: values.fallback,
              key: readFallbackKey(process.env[FALLBACK_KEY_VARIABLE]),
              maxAge: fallbackMaxAge(values['fallback-max-age'], command),
            };
      const allowed = values['allow-var'] ?? [];
      const badName = allowed.find((name) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name));
      if (badName !== undefined) {
        throw usageError('--allow-var takes a variable name (letters, digits and _)', command);
      }
      return run({
        vaultId,
        prefix,
        override: values.override === true,
        keepToken: values['keep-token'] === true,
        allowed: new Set(allowed),
        startup,
        fallback,
        command: child,
      });
    }
    case 'export': {
      const format = values.format;
      if (format !== 'dotenv' && format !== 'shell' && format !== 'json') {
        throw usageError('--format must be dotenv, shell or json', command);
      }
      if (values.output === '') throw usageError('--output takes a file', command);
      return exportVariables(vaultId, prefix, format, values.output, startup);
    }
    default:
      return list(vaultId, startup);
  }
}

function parseOptions(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: {
      vault: { type: 'string' },
      prefix: { type: 'string' },
      format: { type: 'string' },
      override: { type: 'boolean' },
      wait: { type: 'string' },
      fallback: { type: 'string' },
      'fallback-max-age': { type: 'string' },
      output: { type: 'string' },
      'keep-token': { type: 'boolean' },
      'allow-var': { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

/** Where `run --fallback` keeps its snapshot, the key that opens it, and how old it may be. */
interface Fallback {
  readonly file: string;
  readonly key: Buffer;
  readonly maxAge: SnapshotExpectation['maxAge'];
}

const FALLBACK_MAX_AGE_VARIABLE = 'SECRETS_VAULT_FALLBACK_MAX_AGE';

/**
 * The maximum age of `--fallback-max-age`, else of its variable; undefined (no limit) when
 * neither is set. A usage error when malformed: a typo must not quietly lift the limit.
 */
function fallbackMaxAge(flag: string | undefined, command: string): Fallback['maxAge'] {
  const text = flag ?? readEnv(FALLBACK_MAX_AGE_VARIABLE);
  if (text === undefined) return undefined;
  const milliseconds = parseDuration(text);
  if (milliseconds === undefined || milliseconds <= 0) {
    throw usageError(
      `${flag === undefined ? FALLBACK_MAX_AGE_VARIABLE : '--fallback-max-age'} takes a duration above 0 such as 90s, 2m, 24h, or milliseconds`,
      command,
    );
  }
  return { milliseconds, text };
}

/** What `run` was asked to do. */
interface RunOptions {
  readonly vaultId: string;
  readonly prefix: string;
  readonly override: boolean;
  readonly keepToken: boolean;
  readonly allowed: ReadonlySet<string>;
  readonly startup: StartupOptions;
  readonly fallback: Fallback | undefined;
  readonly command: readonly string[];
}

// Signals a terminal sends to its whole foreground process group, the command included.
const TERMINAL_SIGNALS = ['SIGINT', 'SIGQUIT', 'SIGHUP'] as const;

async function run(options: RunOptions): Promise<number> {
  const { vaultId, fallback } = options;
  const client = newClient();
  // The client has checked the base URL: a snapshot is bound to the service it names.
  const origin = new URL(readEnv('SECRETS_VAULT_BASE_URL') ?? '').origin;
  const started = performance.now();
  let loaded: Snapshot;
  let fromSnapshot = false;
  try {
    loaded = await loadForRun(client, vaultId, options.startup);
  } catch (error) {
    // Only an outage falls back: a refused token or a deleted vault is a verdict to act on.
    if (fallback === undefined || !isOutage(error)) throw error;
    const outage = `the service stayed unavailable for ${seconds(performance.now() - started)} (${describe(error)})`;
    try {
      loaded = readSnapshot(fallback.file, fallback.key, {
        vaultId,
        origin,
        maxAge: fallback.maxAge,
      });
    } catch (refused) {
      // One line: the outage, then why the snapshot cannot stand in for the service.
      if (refused instanceof FallbackError) {
        throw new FallbackError(`${outage}; ${refused.message}`, refused.exitCode);
      }
      throw refused;
    }
    fromSnapshot = true;
    process.stderr.write(
      `secrets-vault: ${outage}; starting from the snapshot ${fallback.file}, saved ${describeAge(loaded.savedAt)} ago\n`,
    );
  }
  const { references } = loaded;
  let env: Record<string, string>;
  try {
    env = childEnvironment({
      fromVault: toEnv(loaded.secrets, { prefix: options.prefix }),
      fromJob: Object.fromEntries(
        Object.entries(process.env).map(([name, value]) => [
          name,
          value !== undefined && Object.hasOwn(references, value) ? references[value] : value,
        ]),
      ),
      override: options.override,
      keepToken: options.keepToken,
      allowed: options.allowed,
    });
  } catch (error) {
    if (error instanceof ChildEnvError) throw new CommandError(error.message, 1);
    throw error;
  }
  if (fallback !== undefined && !fromSnapshot) {
    try {
      writeSnapshot(fallback.file, fallback.key, origin, loaded);
    } catch (error) {
      // The job can start without it; the next good load tries again.
      process.stderr.write(`secrets-vault: warning: ${describe(error)}\n`);
    }
  }
  const [command = '', ...args] = options.command;
  // With a terminal, Ctrl-C (and a hang-up) reach the command straight from it: passing them on
  // as well would deliver them twice. Without one, the command hears them only through us.
  const fromTerminal = [process.stdin, process.stdout, process.stderr].some(
    (stream) => stream.isTTY,
  );
  return new Promise<number>((resolve) => {
    let child: ReturnType<typeof spawn>;
    try {
      // No shell: arguments reach the command as given, and nothing is expanded or injected.
      child = spawn(command, args, { stdio: 'inherit', env });
    } catch (error) {
      // Node's own message can quote the environment: say only its code.
      process.stderr.write(
        `secrets-vault: cannot run ${escapeControlCharacters(command)}: ${(error as NodeJS.ErrnoException).code ?? 'error'}\n`,
      );
      resolve(126);
      return;
    }
    const handlers = new Map<NodeJS.Signals, () => void>();
    for (const signal of ['SIGTERM', ...TERMINAL_SIGNALS] as const) {
      const passOn = signal === 'SIGTERM' || !fromTerminal;
      // Listening at all keeps the wrapper alive until the command has exited: a hang-up must not
      // orphan a command that holds the secrets in its environment.
      handlers.set(signal, passOn ? () => child.kill(signal) : () => undefined);
    }
    for (const [signal, handler] of handlers) process.on(signal, handler);
    const done = (code: number) => {
      for (const [signal, handler] of handlers) process.off(signal, handler);
      resolve(code);
    };
    child.once('error', (error: NodeJS.ErrnoException) => {
      process.stderr.write(
        `secrets-vault: cannot run ${escapeControlCharacters(command)}: ${error.code ?? 'error'}\n`,
      );
      done(error.code === 'ENOENT' ? 127 : 126);
    });
    child.once('exit', (code, signal) => {
      done(signal === null ? (code ?? 1) : 128 + (constants.signals[signal] ?? 0));
    });
  });
}

/**
 * What `run` starts from: the vault's secrets and the values of the `vault://` references in the
 * job's own environment (never in the vault's values), as plain data a snapshot can hold.
 */
/** stdout is the command's output (`export` writes values there): every log line goes to stderr. */
const STDERR_LOGGER: Logger = {
  debug: (message, fields) => console.error(message, fields),
  info: (message, fields) => console.error(message, fields),
  warn: (message, fields) => console.error(message, fields),
  error: (message, fields) => console.error(message, fields),
};

/** The command's client: the environment's settings, logging (off unless SECRETS_VAULT_LOG) to stderr. */
function newClient(): SecretsVault {
  return new SecretsVault({
    logger: STDERR_LOGGER,
    // Given a logger, the client logs `info` by default; the command stays quiet unless asked.
    ...(process.env.SECRETS_VAULT_LOG ? {} : { logLevel: 'off' }),
  });
}

async function loadForRun(
  client: SecretsVault,
  vaultId: string,
  startup: StartupOptions,
): Promise<Snapshot> {
  const loaded: LoadedSecrets = await client.secrets.load(vaultId, startup);
  // `load`'s record prints as [REDACTED], which a snapshot must not hold: a plain copy of the
  // data does not (a secret or key named `toJSON` included).
  const secrets = plainCopy(loaded);
  const references: Record<string, string> = {};
  const referencing = Object.fromEntries(
    Object.entries(process.env).filter(([, value]) => value?.startsWith('vault://')),
  );
  // References into the vault just loaded are resolved from what it holds: one read per vault.
  const intoLoaded: Record<string, string | undefined> = {};
  const intoOthers: Record<string, string | undefined> = {};
  for (const [name, reference] of Object.entries(referencing)) {
    (referencedVault(reference ?? '') === vaultId ? intoLoaded : intoOthers)[name] = reference;
  }
  const held = Object.entries(secrets).map(([name, value]) => ({ name, value }));
  const resolved = {
    ...(await resolveReferences(intoLoaded, async () => held)),
    ...(await client.secrets.resolveReferences(intoOthers, startup)),
  };
  for (const [name, reference] of Object.entries(referencing)) {
    const value = resolved[name];
    if (reference !== undefined && value !== undefined) references[reference] = value;
  }
  return { vaultId, savedAt: Date.now(), secrets, references };
}

async function exportVariables(
  vaultId: string,
  prefix: string,
  format: 'dotenv' | 'shell' | 'json',
  output: string | undefined,
  startup: StartupOptions,
): Promise<number> {
  const client = newClient();
  // A plain copy: `toEnv` keeps the printing safe, and this is the one place meant to print.
  const variables = { ...toEnv(await client.secrets.load(vaultId, startup), { prefix }) };
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
  if (output === undefined) {
    process.stdout.write(text);
    return 0;
  }
  try {
    writeFileAtomically(output, text);
  } catch (error) {
    throw new CommandError(
      `cannot write ${output}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
      1,
    );
  }
  return 0;
}

async function list(vaultId: string, startup: StartupOptions): Promise<number> {
  const client = newClient();
  const secrets = await client.secrets.load(vaultId, startup);
  // Names and keys are the vault editor's: a terminal escape in one must print as text.
  const lines = Object.entries(secrets)
    .map(
      ([name, value]) =>
        `${escapeControlCharacters(name)}: ${Object.keys(value).sort().map(escapeControlCharacters).join(', ')}`,
    )
    .sort();
  process.stdout.write(lines.length === 0 ? '' : `${lines.join('\n')}\n`);
  return 0;
}

/** One line saying what went wrong: the SDK's messages never hold a token or a value. */
function describe(error: unknown): string {
  if (error instanceof CommandError || error instanceof FallbackError) return error.message;
  if (error instanceof SecretsVaultError) {
    const where = error.method && error.path ? ` (${error.method} ${error.path})` : '';
    return `${error.name}: ${error.message.split('\n')[0]}${where}`;
  }
  return error instanceof Error ? `${error.name}: ${error.message.split('\n')[0]}` : String(error);
}

process.exitCode = await main(process.argv.slice(2));
