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
import { SecretsVaultError } from '../core/errors.js';
import { toEnv } from '../startup/to-env.js';
import { DotenvError, formatDotenv } from './dotenv.js';

const USAGE = `Usage: secrets-vault <command> [options]

Commands:
  run --vault <id> [--prefix P] [--override] -- <command> [args...]
                     run a command with the vault's secrets in its environment
  export --vault <id> --format dotenv|json
                     print the vault's secrets as environment variables
  ls --vault <id>    list the vault's secret names and their keys (never values)

Options:
  -h, --help         show help (also after a command)
  -v, --version      show the version

Environment: SECRETS_VAULT_BASE_URL and SECRETS_VAULT_TOKEN.
`;

const COMMAND_HELP: Readonly<Record<string, string>> = {
  run: `Usage: secrets-vault run --vault <id> [--prefix P] [--override] -- <command> [args...]

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
`,
  export: `Usage: secrets-vault export --vault <id> --format dotenv|json

Prints the vault's secrets as environment variables on stdout: dotenv lines that
node --env-file reads back exactly, or one JSON object.

Options:
  --vault <id>       the vault to load (required)
  --format <format>  dotenv or json (required)
  --prefix <P>       prepended to every variable name
`,
  ls: `Usage: secrets-vault ls --vault <id>

Lists the live secrets of a vault, one per line: the name, then its keys. Never values.

Options:
  --vault <id>   the vault to list (required)
`,
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
  try {
    return await dispatch(argv);
  } catch (error) {
    process.stderr.write(`secrets-vault: ${describe(error)}\n`);
    return error instanceof CommandError ? error.exitCode : 1;
  }
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
    throw usageError(error instanceof Error ? error.message : String(error), command);
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
  switch (command) {
    case 'run': {
      if (child.length === 0) throw usageError('a command to run is required after --', command);
      return run(vaultId, prefix, values.override === true, child);
    }
    case 'export': {
      const format = values.format;
      if (format !== 'dotenv' && format !== 'json') {
        throw usageError('--format must be dotenv or json', command);
      }
      return exportVariables(vaultId, prefix, format);
    }
    default:
      return list(vaultId);
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
      help: { type: 'boolean', short: 'h' },
    },
  });
}

async function run(
  vaultId: string,
  prefix: string,
  override: boolean,
  [command, ...args]: string[],
): Promise<number> {
  const client = new SecretsVault();
  const variables = toEnv(await client.secrets.load(vaultId), { prefix });
  const merged = override ? { ...process.env, ...variables } : { ...variables, ...process.env };
  const env = await client.secrets.resolveReferences(merged);
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

async function exportVariables(
  vaultId: string,
  prefix: string,
  format: 'dotenv' | 'json',
): Promise<number> {
  const client = new SecretsVault();
  const variables = toEnv(await client.secrets.load(vaultId), { prefix });
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

async function list(vaultId: string): Promise<number> {
  const client = new SecretsVault();
  const secrets = await client.secrets.listValues(vaultId);
  const lines = secrets
    .map((secret) => `${secret.name}: ${Object.keys(secret.value).sort().join(', ')}`)
    .sort();
  process.stdout.write(lines.length === 0 ? '' : `${lines.join('\n')}\n`);
  return 0;
}

/** One line saying what went wrong: the SDK's messages never hold a token or a value. */
function describe(error: unknown): string {
  if (error instanceof CommandError) return error.message;
  if (error instanceof SecretsVaultError) {
    const where = error.method && error.path ? ` (${error.method} ${error.path})` : '';
    return `${error.name}: ${error.message.split('\n')[0]}${where}`;
  }
  return error instanceof Error ? `${error.name}: ${error.message.split('\n')[0]}` : String(error);
}

process.exitCode = await main(process.argv.slice(2));
