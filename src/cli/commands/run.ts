/**
 * `secrets-vault run`: loads a vault once and runs a command with its secrets in the environment,
 * as the command's parent: its exit code is the command's, and signals are passed on to it.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { parseDuration, readEnv } from '../../core/env.js';
import { escapeControlCharacters } from '../../core/redaction.js';
import { toEnv } from '../../startup/to-env.js';
import { ChildEnvError, childEnvironment } from '../child-env.js';
import { newClient } from '../client.js';
import type { Command, CommandContext, Flag } from '../command.js';
import { CommandError, describe, isOutage, stayedUnavailable, usageError } from '../errors.js';
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
} from '../fallback.js';
import { PREFIX, VAULT, WAIT, WAIT_HELP } from '../flags.js';
import { loadForRun } from '../load.js';

const OVERRIDE: Flag = { name: 'override', type: 'boolean' };
const FALLBACK: Flag = { name: 'fallback', type: 'string' };
const FALLBACK_MAX_AGE: Flag = { name: 'fallback-max-age', type: 'string' };
const KEEP_TOKEN: Flag = { name: 'keep-token', type: 'boolean' };
const ALLOW_VAR: Flag = { name: 'allow-var', type: 'string', multiple: true };

/** @internal `secrets-vault run --vault <id> [options] -- <command> [args...]`. */
export const runCommand: Command = {
  name: 'run',
  summary: "run a command with the vault's secrets in its environment",
  synopsis: [
    '--vault <id> [--prefix P] [--override] [--wait D] [--fallback F]',
    '[--fallback-max-age D] [--keep-token] [--allow-var NAME]...',
    '-- <command> [args...]',
  ],
  usage: `Usage: secrets-vault run --vault <id> [--prefix P] [--override] [--wait D]
                           [--fallback <file>] [--fallback-max-age D] [--keep-token]
                           [--allow-var NAME]... -- <command> [args...]
`,
  description: `Loads the vault's secrets once, puts them in the environment of <command> as
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
`,
  flags: [
    { flag: VAULT, help: '  --vault <id>   the vault to load (required)\n' },
    { flag: PREFIX, help: '  --prefix <P>   prepended to every variable name, such as APP_\n' },
    {
      flag: OVERRIDE,
      help: `  --override     let the vault's variables replace ones already set (default: the
                 existing environment wins)
`,
    },
    { flag: WAIT, help: WAIT_HELP },
    {
      flag: FALLBACK,
      help: `  --fallback <file>
                 after each good load, keep the values in <file>, encrypted
                 (AES-256-GCM, key in SECRETS_VAULT_FALLBACK_KEY: 32 bytes as hex or
                 base64), mode 0600; when the service stays unavailable for the whole
                 wait, start from it instead, saying so with its age. Never after a
                 refused token or an unknown vault. The snapshot is bound to the
                 vault and to the service (the origin of SECRETS_VAULT_BASE_URL),
                 and read only when a regular file of at most ${MAX_SNAPSHOT_BYTES / 1024 / 1024} MiB.
`,
    },
    {
      flag: FALLBACK_MAX_AGE,
      help: `  --fallback-max-age <duration>
                 never start from a snapshot saved longer ago than this: 90s, 2m,
                 24h, or milliseconds (default: SECRETS_VAULT_FALLBACK_MAX_AGE,
                 else no limit)
`,
    },
    { flag: KEEP_TOKEN, help: "  --keep-token   give the command the job's SECRETS_VAULT_TOKEN\n" },
    {
      flag: ALLOW_VAR,
      help: `  --allow-var <NAME>
                 let the vault set NAME although it changes how programs start
                 (repeat for each name)
`,
    },
  ],
  async action(context) {
    if (context.operands.length === 0) {
      throw usageError('a command to run is required after --', 'run');
    }
    const file = context.string(FALLBACK);
    if (file === '') throw usageError('--fallback takes a file', 'run');
    const maxAge = context.string(FALLBACK_MAX_AGE);
    if (maxAge !== undefined && file === undefined) {
      throw usageError('--fallback-max-age needs --fallback', 'run');
    }
    const fallback =
      file === undefined
        ? undefined
        : {
            file,
            key: readFallbackKey(process.env[FALLBACK_KEY_VARIABLE]),
            maxAge: fallbackMaxAge(maxAge),
          };
    const allowed = context.strings(ALLOW_VAR);
    const badName = allowed.find((name) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name));
    if (badName !== undefined) {
      throw usageError('--allow-var takes a variable name (letters, digits and _)', 'run');
    }
    return run(context, {
      override: context.boolean(OVERRIDE),
      keepToken: context.boolean(KEEP_TOKEN),
      allowed: new Set(allowed),
      fallback,
    });
  },
};

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
function fallbackMaxAge(flag: string | undefined): Fallback['maxAge'] {
  const text = flag ?? readEnv(FALLBACK_MAX_AGE_VARIABLE);
  if (text === undefined) return undefined;
  const milliseconds = parseDuration(text);
  if (milliseconds === undefined || milliseconds <= 0) {
    throw usageError(
      `${flag === undefined ? FALLBACK_MAX_AGE_VARIABLE : '--fallback-max-age'} takes a duration above 0 such as 90s, 2m, 24h, or milliseconds`,
      'run',
    );
  }
  return { milliseconds, text };
}

/** What `run` was asked to do, beyond the flags every command reads. */
interface RunOptions {
  readonly override: boolean;
  readonly keepToken: boolean;
  readonly allowed: ReadonlySet<string>;
  readonly fallback: Fallback | undefined;
}

// Signals a terminal sends to its whole foreground process group, the command included.
const TERMINAL_SIGNALS = ['SIGINT', 'SIGQUIT', 'SIGHUP'] as const;

async function run(context: CommandContext, options: RunOptions): Promise<number> {
  const { vaultId } = context;
  const { fallback } = options;
  const client = newClient();
  // The client has checked the base URL: a snapshot is bound to the service it names.
  const origin = new URL(readEnv('SECRETS_VAULT_BASE_URL') ?? '').origin;
  const started = performance.now();
  let loaded: Snapshot;
  let fromSnapshot = false;
  try {
    loaded = await loadForRun(client, vaultId, context.startup);
  } catch (error) {
    // Only an outage falls back: a refused token or a deleted vault is a verdict to act on.
    if (fallback === undefined || !isOutage(error)) throw error;
    const outage = `${stayedUnavailable(performance.now() - started)} (${describe(error)})`;
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
      fromVault: toEnv(loaded.secrets, { prefix: context.prefix }),
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
  const [command = '', ...args] = context.operands;
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
