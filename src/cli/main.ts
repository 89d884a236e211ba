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
import {
  APIConnectionError,
  APIError,
  AuthenticationError,
  PermissionDeniedError,
  SecretsVaultError,
} from '../core/errors.js';
import { parseDuration } from '../core/options.js';
import { isUnavailableStatus } from '../core/retry.js';
import type { StartupOptions } from '../resources/secrets.js';
import type { LoadedSecrets } from '../startup/load.js';
import { toEnv } from '../startup/to-env.js';
import { DotenvError, formatDotenv } from './dotenv.js';
import {
  describeAge,
  FALLBACK_KEY_VARIABLE,
  FallbackError,
  readFallbackKey,
  readSnapshot,
  type Snapshot,
  writeSnapshot,
} from './fallback.js';

const USAGE = `Usage: secrets-vault <command> [options]

Commands:
  run --vault <id> [--prefix P] [--override] [--wait D] [--fallback F] -- <command> [args...]
                     run a command with the vault's secrets in its environment
  export --vault <id> --format dotenv|json [--wait D]
                     print the vault's secrets as environment variables
  ls --vault <id> [--wait D]
                     list the vault's secret names and their keys (never values)

Options:
  --wait <duration>  how long to wait out an unavailable service: 500ms, 90s, 2m,
                     or milliseconds (default: SECRETS_VAULT_WAIT, else 60s)
  -h, --help         show help (also after a command)
  -v, --version      show the version

Environment: SECRETS_VAULT_BASE_URL, SECRETS_VAULT_TOKEN; SECRETS_VAULT_WAIT,
SECRETS_VAULT_MAX_RETRIES, SECRETS_VAULT_TIMEOUT; SECRETS_VAULT_FALLBACK_KEY.

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
                           [--fallback <file>] -- <command> [args...]

Loads the vault's secrets once, puts them in the environment of <command> as
SECRET_KEY variables (database.password -> DATABASE_PASSWORD), resolves
vault://<vaultId>/<secret>/<key> references already in the environment, and runs
<command> without a shell. Exits with its exit code (128 + the signal number when a
signal ended it); SIGINT and SIGTERM are passed on to it.

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
                 refused token or an unknown vault.

${EXIT_HELP}`,
  export: `Usage: secrets-vault export --vault <id> --format dotenv|json [--wait D]

Prints the vault's secrets as environment variables on stdout: dotenv lines that
node --env-file reads back exactly, or one JSON object.

Options:
  --vault <id>       the vault to load (required)
  --format <format>  dotenv or json (required)
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
  if (values.fallback !== undefined && command !== 'run') {
    throw usageError('--fallback belongs to run', command);
  }
  switch (command) {
    case 'run': {
      if (child.length === 0) throw usageError('a command to run is required after --', command);
      if (values.fallback === '') throw usageError('--fallback takes a file', command);
      const fallback =
        values.fallback === undefined
          ? undefined
          : { file: values.fallback, key: readFallbackKey(process.env[FALLBACK_KEY_VARIABLE]) };
      return run(vaultId, prefix, values.override === true, startup, fallback, child);
    }
    case 'export': {
      const format = values.format;
      if (format !== 'dotenv' && format !== 'json') {
        throw usageError('--format must be dotenv or json', command);
      }
      return exportVariables(vaultId, prefix, format, startup);
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
      help: { type: 'boolean', short: 'h' },
    },
  });
}

/** Where `run --fallback` keeps its snapshot, and the key that opens it. */
interface Fallback {
  readonly file: string;
  readonly key: Buffer;
}

async function run(
  vaultId: string,
  prefix: string,
  override: boolean,
  startup: StartupOptions,
  fallback: Fallback | undefined,
  [command, ...args]: string[],
): Promise<number> {
  const client = new SecretsVault();
  const started = performance.now();
  let loaded: Snapshot;
  try {
    loaded = await loadForRun(client, vaultId, startup);
  } catch (error) {
    // Only an outage falls back: a refused token or a deleted vault is a verdict to act on.
    if (fallback === undefined || !isOutage(error)) throw error;
    loaded = readSnapshot(fallback.file, fallback.key, vaultId);
    process.stderr.write(
      `secrets-vault: the service stayed unavailable for ${seconds(performance.now() - started)} (${describe(error)}); starting from the snapshot ${fallback.file}, saved ${describeAge(loaded.savedAt)} ago\n`,
    );
    fallback = undefined;
  }
  if (fallback !== undefined) {
    try {
      writeSnapshot(fallback.file, fallback.key, loaded);
    } catch (error) {
      // The job can start without it; the next good load tries again.
      process.stderr.write(`secrets-vault: warning: ${describe(error)}\n`);
    }
  }
  const variables = toEnv(loaded.secrets, { prefix });
  const resolved = Object.fromEntries(
    Object.entries(process.env).map(([name, value]) => [
      name,
      value !== undefined && Object.hasOwn(loaded.references, value)
        ? loaded.references[value]
        : value,
    ]),
  );
  const env = override ? { ...resolved, ...variables } : { ...variables, ...resolved };
  return new Promise<number>((resolve) => {
    // No shell: arguments reach the command as given, and nothing is expanded or injected.
    const child = spawn(command ?? '', args, { stdio: 'inherit', env });
    const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
    const onInterrupt = forward('SIGINT');
    const onTerminate = forward('SIGTERM');
    process.on('SIGINT', onInterrupt);
    process.on('SIGTERM', onTerminate);
    const done = (code: number) => {
      process.off('SIGINT', onInterrupt);
      process.off('SIGTERM', onTerminate);
      resolve(code);
    };
    child.once('error', (error: NodeJS.ErrnoException) => {
      process.stderr.write(
        `secrets-vault: cannot run ${command}: ${error.code ?? error.message}\n`,
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
async function loadForRun(
  client: SecretsVault,
  vaultId: string,
  startup: StartupOptions,
): Promise<Snapshot> {
  const loaded: LoadedSecrets = await client.secrets.load(vaultId, startup);
  // Copies are plain objects: `load`'s own print as [REDACTED], which a snapshot must not hold.
  const secrets = Object.fromEntries(
    Object.entries(loaded).map(([name, value]) => [name, { ...value }]),
  );
  const references: Record<string, string> = {};
  const referencing = Object.fromEntries(
    Object.entries(process.env).filter(([, value]) => value?.startsWith('vault://')),
  );
  const resolved = await client.secrets.resolveReferences(referencing, startup);
  for (const [name, reference] of Object.entries(referencing)) {
    const value = resolved[name];
    if (reference !== undefined && value !== undefined) references[reference] = value;
  }
  return { vaultId, savedAt: Date.now(), secrets, references };
}

async function exportVariables(
  vaultId: string,
  prefix: string,
  format: 'dotenv' | 'json',
  startup: StartupOptions,
): Promise<number> {
  const client = new SecretsVault();
  const variables = toEnv(await client.secrets.load(vaultId, startup), { prefix });
  let text: string;
  try {
    text = format === 'json' ? `${JSON.stringify(variables, null, 2)}\n` : formatDotenv(variables);
  } catch (error) {
    if (error instanceof DotenvError) throw new CommandError(error.message, 1);
    throw error;
  }
  process.stdout.write(text);
  return 0;
}

async function list(vaultId: string, startup: StartupOptions): Promise<number> {
  const client = new SecretsVault();
  const secrets = await client.secrets.load(vaultId, startup);
  const lines = Object.entries(secrets)
    .map(([name, value]) => `${name}: ${Object.keys(value).sort().join(', ')}`)
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
