/**
 * `secrets-vault run`: loads a vault once and runs a command with its secrets in the environment,
 * as the command's parent: its exit code is the command's, and signals are passed on to it. With
 * `--watch` it keeps polling the vault and restarts the command when its environment changes.
 * With `--exec` it becomes the command instead (`execve`): same process, no parent left behind.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import {
  accessSync,
  closeSync,
  constants as fileConstants,
  openSync,
  readFileSync,
  readSync,
  statSync,
} from 'node:fs';
import { constants } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { parseEnv } from 'node:util';
import { parseDuration, readEnv, readEnvToken } from '../../core/env.js';
import { escapeControlCharacters } from '../../core/redaction.js';
import { isOutage } from '../../core/retry.js';
import { afterMs } from '../../core/timer.js';
import { ChildEnvError, childEnvironment } from '../child-env.js';
import { newClient } from '../client.js';
import type { Command, CommandContext, Flag } from '../command.js';
import { CommandError, describe, stayedUnavailable, usageError } from '../errors.js';
import {
  describeAge,
  FALLBACK_KEY_VARIABLE,
  FallbackError,
  MAX_SNAPSHOT_BYTES,
  readFallbackKey,
  readFreshSnapshot,
  readSnapshot,
  type Snapshot,
  type SnapshotExpectation,
  writeSnapshot,
} from '../fallback.js';
import { readTextFile } from '../files.js';
import { PREFIX, VAULT, VAULT_VARIABLE, WAIT, WAIT_HELP } from '../flags.js';
import { loadForRun, variablesOf } from '../load.js';
import { createMasker } from '../mask.js';

const OVERRIDE: Flag = { name: 'override', type: 'boolean' };
const FALLBACK: Flag = { name: 'fallback', type: 'string' };
const FALLBACK_MAX_AGE: Flag = { name: 'fallback-max-age', type: 'string' };
const FALLBACK_ONLY: Flag = { name: 'fallback-only', type: 'boolean' };
const CACHE_TTL: Flag = { name: 'cache-ttl', type: 'string' };
const KEEP_TOKEN: Flag = { name: 'keep-token', type: 'boolean' };
const ALLOW_VAR: Flag = { name: 'allow-var', type: 'string', multiple: true };
const EXEC: Flag = { name: 'exec', type: 'boolean' };
const WATCH: Flag = { name: 'watch', type: 'boolean' };
const WATCH_INTERVAL: Flag = { name: 'watch-interval', type: 'string' };
const GRACE: Flag = { name: 'grace', type: 'string' };
const ENV_FILE: Flag = { name: 'env-file', type: 'string', multiple: true };
const MASK: Flag = { name: 'mask', type: 'boolean' };

/**
 * Flags that need `run` to stay the command's parent, so `--exec` refuses them: a flag that
 * watches or filters the command (a restart on change, masked output) is listed here.
 */
const NEEDS_PARENT: readonly Flag[] = [WATCH, MASK];

const CACHE_TTL_VARIABLE = 'SECRETS_VAULT_CACHE_TTL';
/** Below a second a crash loop still reads the service at every start. */
const MIN_CACHE_TTL_MS = 1_000;
/** Values a week old are a deploy's, not a cache's: --fallback-only is for those. */
const MAX_CACHE_TTL_MS = 7 * 24 * 60 * 60 * 1000;

const WATCH_INTERVAL_VARIABLE = 'SECRETS_VAULT_WATCH_INTERVAL';
const DEFAULT_WATCH_INTERVAL_MS = 60_000;
/** Polls closer together than this would load the service for little gain: a fleet polls too. */
const MIN_WATCH_INTERVAL_MS = 5_000;
const DEFAULT_GRACE_MS = 10_000;
/** Longer durations would overflow a timer, which then fires at once. */
const MAX_WATCH_DURATION_MS = 24 * 60 * 60 * 1000;

/** @internal `secrets-vault run --vault <id> [options] -- <command> [args...]`. */
export const runCommand: Command = {
  name: 'run',
  summary: "run a command with the vaults' secrets in its environment",
  synopsis: [
    '--vault <id>... [--env-file F]... [--prefix P] [--override] [--wait D]',
    '[--fallback F [--fallback-only | --cache-ttl D]] [--fallback-max-age D]',
    '[--keep-token] [--allow-var NAME]... [--mask | --exec]',
    '[--watch [--watch-interval D] [--grace D]] -- <command> [args...]',
  ],
  usage: `Usage: secrets-vault run --vault <id>... [--env-file <file>]... [--prefix P]
                           [--override] [--wait D]
                           [--fallback <file> [--fallback-only | --cache-ttl D]]
                           [--fallback-max-age D]
                           [--keep-token] [--allow-var NAME]... [--mask | --exec]
                           [--watch [--watch-interval D] [--grace D]]
                           -- <command> [args...]
`,
  description: `Loads the vaults' secrets once (with --watch, again each interval), puts them
in the environment of <command> as SECRET_KEY variables (database.password ->
DATABASE_PASSWORD), resolves vault://<vaultId>/<secret>/<key> references already in
the environment or in an --env-file, and runs <command> without a shell. Exits with
its exit code (128 + the signal number when a signal ended it).

Signals: <command> runs in a process group and session of its own, and SIGINT,
SIGTERM, SIGQUIT, SIGHUP and SIGWINCH, whether sent to secrets-vault alone, to its
whole process group (a CI runner cancelling a step) or from the terminal (Ctrl-C,
Ctrl-\\, a hang-up, a resize), reach <command> and its own children once.
Ctrl-Z stops <command> with secrets-vault, and fg or bg continues both. SIGKILL is
never passed on. <command> reads and writes the terminal, but it is not its
controlling terminal: a program that opens /dev/tty (a password prompt of ssh or
sudo) or a shell that needs job control is better run with --exec.

The command does not get SECRETS_VAULT_TOKEN (unless --keep-token) nor
SECRETS_VAULT_FALLBACK_KEY. The vault may never set a SECRETS_VAULT_* variable,
nor, in any case, a variable a program or tool reads as its configuration
(NODE_*, NPM_CONFIG_*, YARN_*, GIT_*, PIP_*, CARGO_*, DOCKER_*, LD_*, PATH,
*_OPTS, *_OPTIONS, *_PROXY, *_CONFIG_FILE, ...) unless that exact name is given
with --allow-var; vault values are never resolved as references.
`,
  flags: [
    {
      flag: VAULT,
      help: `  --vault <id>   a vault to load (required, unless ${VAULT_VARIABLE} holds
                 comma-separated ids); repeat to load several, in order: a later
                 vault's variable replaces an earlier one's
`,
    },
    {
      flag: ENV_FILE,
      help: `  --env-file <file>
                 add the variables of a dotenv file (read as Node.js reads
                 --env-file; repeat for several, a later file's variable replacing
                 an earlier one's); the job's own environment wins over them, and
                 their vault:// references are resolved
`,
    },
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
    {
      flag: FALLBACK_ONLY,
      help: `  --fallback-only
                 start from the --fallback snapshot without contacting the service
                 at all (one written by a good run, or by export --format
                 snapshot), saying so with its age; never rewrites it. Not with
                 --watch, which needs the service.
`,
    },
    {
      flag: CACHE_TTL,
      help: `  --cache-ttl <duration>
                 start from the --fallback snapshot without a request to the
                 service when a good load wrote it less than this ago (and it
                 matches the vaults, service, key and vault:// references), saying
                 so with its age; else load as usual. A job restarted in a loop
                 then reads the service once per TTL. A rotation reaches a
                 restarted job only after the TTL: use --watch, or a shorter TTL,
                 where that matters. 1s to 168h (7 days), 0 for none (default:
                 ${CACHE_TTL_VARIABLE}, else none); --watch still polls as usual.
                 Not with --fallback-only, which never reads the service.
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
    {
      flag: MASK,
      help: `  --mask         pass <command>'s stdout and stderr through secrets-vault with
                 every secret value of 4 characters or more replaced by
                 <redacted>, line by line (they are pipes then, not a terminal)
`,
    },
    {
      flag: EXEC,
      help: `  --exec         become <command> (execve: same process id, no secrets-vault left
                 running as its parent) once the vault is loaded and the --fallback
                 snapshot written; found on the job's PATH. Signals then reach it
                 directly. Needs Node.js 22.15 or later, not on Windows.
`,
    },
    {
      flag: WATCH,
      help: `  --watch        keep reading the vault while <command> runs, once per interval
                 at a random point of it; when the environment <command> would get
                 changes, stop it and its process group (SIGTERM, then SIGKILL
                 after the grace), wait for it to exit, and start it again with
                 the new values (after rewriting the --fallback snapshot). An
                 outage, a refused token or values the job refuses never restart
                 it: it keeps running with the values it has, said in one line
                 when that starts and one when it ends. When <command> exits by
                 itself, run exits with its code.
`,
    },
    {
      flag: WATCH_INTERVAL,
      help: `  --watch-interval <duration>
                 how often --watch reads the vault: 5s at least, 24h at most
                 (default: ${WATCH_INTERVAL_VARIABLE}, else 60s)
`,
    },
    {
      flag: GRACE,
      help: `  --grace <duration>
                 how long a --watch restart lets <command> stop after SIGTERM
                 before SIGKILL: 0 to 24h (default 10s)
`,
    },
  ],
  async action(context) {
    if (context.operands.length === 0) {
      throw usageError('a command to run is required after --', 'run');
    }
    const exec = context.boolean(EXEC);
    if (exec) {
      const needsParent = NEEDS_PARENT.find((flag) => given(context, flag));
      if (needsParent !== undefined) {
        throw usageError(`--exec cannot be used with --${needsParent.name}`, 'run');
      }
      // Checked before anything is loaded: without it there is nothing --exec can do.
      if (typeof process.execve !== 'function') {
        throw new CommandError(
          `--exec needs process.execve, which Node.js ${process.version} on ${process.platform} does not have: upgrade to Node.js 22.15 or later (not on Windows), or run without --exec`,
          2,
        );
      }
    }
    const file = context.string(FALLBACK);
    if (file === '') throw usageError('--fallback takes a file', 'run');
    const maxAge = context.string(FALLBACK_MAX_AGE);
    if (maxAge !== undefined && file === undefined) {
      throw usageError('--fallback-max-age needs --fallback', 'run');
    }
    const only = context.boolean(FALLBACK_ONLY);
    if (only && file === undefined) {
      throw usageError('--fallback-only needs --fallback <file>', 'run');
    }
    const ttl = context.string(CACHE_TTL);
    if (ttl !== undefined && file === undefined) {
      throw usageError('--cache-ttl needs --fallback <file>', 'run');
    }
    if (ttl !== undefined && only) {
      throw usageError(
        '--cache-ttl cannot be used with --fallback-only, which never reads the service',
        'run',
      );
    }
    if (only && context.boolean(WATCH)) {
      throw usageError(
        '--fallback-only cannot be used with --watch: a watch needs the service',
        'run',
      );
    }
    const fallback =
      file === undefined
        ? undefined
        : {
            file,
            key: readFallbackKey(process.env[FALLBACK_KEY_VARIABLE]),
            maxAge: fallbackMaxAge(maxAge),
            only,
            // Without a request at all, --fallback-only has nothing a cache could save.
            cacheTtl: only ? undefined : cacheTtl(ttl),
          };
    const allowed = context.strings(ALLOW_VAR);
    const badName = allowed.find((name) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name));
    if (badName !== undefined) {
      throw usageError('--allow-var takes a variable name (letters, digits and _)', 'run');
    }
    const watch = context.boolean(WATCH);
    for (const flag of [WATCH_INTERVAL, GRACE]) {
      if (!watch && given(context, flag)) throw usageError(`--${flag.name} needs --watch`, 'run');
    }
    const envFiles = context.strings(ENV_FILE);
    if (envFiles.includes('')) throw usageError('--env-file takes a file', 'run');
    return run(context, {
      jobEnv: await jobEnvironment(envFiles),
      mask: context.boolean(MASK),
      override: context.boolean(OVERRIDE),
      keepToken: context.boolean(KEEP_TOKEN),
      allowed: new Set(allowed),
      fallback,
      exec,
      watch: watch
        ? {
            interval: watchInterval(context.string(WATCH_INTERVAL)),
            grace: graceOf(context.string(GRACE)),
          }
        : undefined,
    });
  },
};

/**
 * The job's environment as the command sees it before the vaults: the variables of the
 * `--env-file`s (a later file's replacing an earlier one's), under the job's own, which win.
 *
 * @throws {CommandError} (exit 1) when a file cannot be read, is over 1 MiB or is not UTF-8
 */
async function jobEnvironment(files: readonly string[]): Promise<Environment> {
  // Entries, then `fromEntries`: a later one replaces an earlier one, and a name such as
  // `__proto__` stays a variable of its own.
  const entries: [string, string][] = [];
  for (const file of files) {
    // Node.js's own reading of --env-file: quotes, `export`, comments and multi-line values.
    const parsed = parseEnv(await readTextFile(file, 'the env file'));
    for (const [name, value] of Object.entries(parsed)) {
      if (value !== undefined) entries.push([name, value]);
    }
  }
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined) entries.push([name, value]);
  }
  return Object.fromEntries(entries);
}

/** Whether `flag` was given on the command line. */
function given(values: CommandContext, flag: Flag): boolean {
  if (flag.type === 'boolean') return values.boolean(flag);
  return flag.multiple ? values.strings(flag).length > 0 : values.string(flag) !== undefined;
}

/** Where `run --fallback` keeps its snapshot, the key that opens it, and how old it may be. */
interface Fallback {
  readonly file: string;
  readonly key: Buffer;
  readonly maxAge: SnapshotExpectation['maxAge'];
  /** `--fallback-only`: start from the snapshot without a request to the service. */
  readonly only: boolean;
  /** `--cache-ttl`: how young a snapshot is used instead of a load; undefined for never. */
  readonly cacheTtl: CacheTtl | undefined;
}

/** `--cache-ttl` once checked: milliseconds, and the duration as given (`1h`), to say it back. */
interface CacheTtl {
  readonly milliseconds: number;
  readonly text: string;
}

/**
 * The TTL of `--cache-ttl`, else of its variable; undefined (no cache) when neither is set or it
 * is 0, so `--cache-ttl 0` turns off a TTL the variable sets for a whole fleet. A usage error when
 * malformed or out of bounds: a typo must not quietly start jobs on values a month old.
 */
function cacheTtl(flag: string | undefined): CacheTtl | undefined {
  const text = flag ?? readEnv(CACHE_TTL_VARIABLE);
  if (text === undefined) return undefined;
  const milliseconds = parseDuration(text);
  if (milliseconds === 0) return undefined;
  if (
    milliseconds === undefined ||
    milliseconds < MIN_CACHE_TTL_MS ||
    milliseconds > MAX_CACHE_TTL_MS
  ) {
    throw usageError(
      `${flag === undefined ? CACHE_TTL_VARIABLE : '--cache-ttl'} takes a duration from 1s to 168h (7 days) such as 30s, 5m or 1h, or 0 for none`,
      'run',
    );
  }
  return { milliseconds, text };
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

/**
 * The interval of `--watch-interval`, else of its variable, else 60 s. A usage error when
 * malformed or below the minimum: a typo must not quietly poll the service every few
 * milliseconds, nor never.
 */
function watchInterval(flag: string | undefined): number {
  const text = flag ?? readEnv(WATCH_INTERVAL_VARIABLE);
  if (text === undefined) return DEFAULT_WATCH_INTERVAL_MS;
  const milliseconds = parseDuration(text);
  if (
    milliseconds === undefined ||
    milliseconds < MIN_WATCH_INTERVAL_MS ||
    milliseconds > MAX_WATCH_DURATION_MS
  ) {
    throw usageError(
      `${flag === undefined ? WATCH_INTERVAL_VARIABLE : '--watch-interval'} takes a duration from 5s to 24h such as 30s or 5m`,
      'run',
    );
  }
  return milliseconds;
}

/** The grace of `--grace`, else 10 s; a usage error when malformed. */
function graceOf(flag: string | undefined): number {
  if (flag === undefined) return DEFAULT_GRACE_MS;
  const milliseconds = parseDuration(flag);
  if (milliseconds === undefined || milliseconds > MAX_WATCH_DURATION_MS) {
    throw usageError('--grace takes a duration up to 24h such as 10s, 500ms, or 0', 'run');
  }
  return milliseconds;
}

/** How `--watch` polls and restarts. */
interface WatchOptions {
  /** Milliseconds between polls: each interval has one, at a random point of it. */
  readonly interval: number;
  /** Milliseconds a stopping command has between SIGTERM and SIGKILL. */
  readonly grace: number;
}

/** What `run` was asked to do, beyond the flags every command reads. */
interface RunOptions {
  /** The job's environment with its `--env-file` variables: what the vaults' variables join. */
  readonly jobEnv: Readonly<Environment>;
  /** `--mask`: the command's output passes through us, its secret values redacted. */
  readonly mask: boolean;
  readonly override: boolean;
  readonly keepToken: boolean;
  readonly allowed: ReadonlySet<string>;
  readonly fallback: Fallback | undefined;
  /** `--exec`: become the command rather than stay its parent. */
  readonly exec: boolean;
  /** `--watch`: poll the vault and restart the command when its environment changes. */
  readonly watch: WatchOptions | undefined;
}

async function run(context: CommandContext, options: RunOptions): Promise<number> {
  const { vaultIds } = context;
  const { fallback, jobEnv } = options;
  const client = newClient();
  // The client has checked the base URL: a snapshot is bound to the service it names.
  const origin = new URL(readEnv('SECRETS_VAULT_BASE_URL') ?? '').origin;
  const started = performance.now();
  // --cache-ttl: a snapshot young enough stands in for the load, and the service hears nothing.
  const cached =
    fallback?.cacheTtl === undefined
      ? undefined
      : cachedSnapshot(fallback, fallback.cacheTtl, { vaultIds, origin }, jobEnv);
  let loaded: Snapshot;
  let fromSnapshot = fallback?.only === true || cached !== undefined;
  try {
    loaded =
      cached ??
      (fallback?.only
        ? snapshotOnly(fallback, { vaultIds, origin, maxAge: fallback.maxAge })
        : await loadForRun(client, vaultIds, jobEnv, context.startup));
  } catch (error) {
    // Only an outage falls back: a refused token or a deleted vault is a verdict to act on.
    if (fallback === undefined || !isOutage(error)) throw error;
    const outage = `${stayedUnavailable(performance.now() - started)} (${describe(error)})`;
    try {
      loaded = readSnapshot(fallback.file, fallback.key, {
        vaultIds,
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
  /** The environment the command gets from `from`; a refusal is a `ChildEnvError`. */
  const environmentOf = (from: Snapshot): Environment => {
    const { references } = from;
    return childEnvironment({
      fromVault: variablesOf(from, context.prefix),
      fromJob: Object.fromEntries(
        Object.entries(jobEnv).map(([name, value]) => [
          name,
          value !== undefined && Object.hasOwn(references, value) ? references[value] : value,
        ]),
      ),
      override: options.override,
      keepToken: options.keepToken,
      allowed: options.allowed,
    });
  };
  const keepSnapshot = (from: Snapshot) => {
    if (fallback === undefined) return;
    try {
      writeSnapshot(fallback.file, fallback.key, origin, from);
    } catch (error) {
      // The job can start without it; the next good load tries again.
      process.stderr.write(`secrets-vault: warning: ${describe(error)}\n`);
    }
  };
  let env: Environment;
  try {
    env = environmentOf(loaded);
  } catch (error) {
    if (error instanceof ChildEnvError) throw new CommandError(error.message, 1);
    throw error;
  }
  if (!fromSnapshot) keepSnapshot(loaded);
  const [command = '', ...args] = context.operands;
  if (options.exec) return become(command, args, env);
  const { watch } = options;
  // Every value the command may print, from the vaults or through a reference; never the job's
  // own variables. Values of earlier loads stay: a restarted command may still print them.
  const masked = options.mask ? new Set<string>() : undefined;
  if (masked !== undefined && options.keepToken) {
    // With --keep-token the command holds the job's token, which it may print as it may a value:
    // the one the client read (from the variable or the file), and the one the command was given.
    for (const token of [readEnvToken()?.token, env.SECRETS_VAULT_TOKEN]) {
      if (token !== undefined) masked.add(token);
    }
  }
  const addMasked = (from: Snapshot) => {
    for (const value of Object.values(variablesOf(from, ''))) masked?.add(value);
    for (const value of Object.values(from.references)) masked?.add(value);
  };
  addMasked(loaded);
  if (watch === undefined) return runAsParent(command, args, env, masked);
  let snapshotIsOld = fromSnapshot;
  return runWatching(command, args, env, {
    ...watch,
    masked,
    // A start from the cache is no outage: the watch has no "service is back" to say.
    startedUnavailable: fromSnapshot && cached === undefined,
    async reload(deadline, signal) {
      // The client's ordinary retries, never the startup wait: a poll ends by its deadline.
      const next = await loadForRun(client, vaultIds, jobEnv, { wait: 0, signal }, deadline);
      const nextEnv = environmentOf(next);
      addMasked(next);
      if (snapshotIsOld) {
        // Started from the snapshot: the first good load replaces it, changed or not.
        snapshotIsOld = false;
        keepSnapshot(next);
        return { env: nextEnv, keep: () => undefined };
      }
      return { env: nextEnv, keep: () => keepSnapshot(next) };
    },
  });
}

/**
 * `--fallback-only`: the snapshot, read without a single request to the service, and the line
 * that says so. A snapshot that cannot be used exits as it does through an outage (75 when none
 * was written yet or it is too old, 1 when it is damaged, from another key, service or vault).
 */
function snapshotOnly(fallback: Fallback, expected: SnapshotExpectation): Snapshot {
  const snapshot = readSnapshot(fallback.file, fallback.key, expected);
  process.stderr.write(
    `secrets-vault: starting from the snapshot ${fallback.file} (--fallback-only), saved ${describeAge(snapshot.savedAt)} ago\n`,
  );
  return snapshot;
}

/**
 * `--cache-ttl`: the snapshot, if a good load wrote it less than `ttl` ago and it holds what a
 * load would give this job (the vaults, the service, a value for each `vault://` reference of
 * `jobEnv`), and the line that says so. Undefined otherwise, said by nothing: the job then loads
 * as without `--cache-ttl` (falling back on an outage as ever), and that load rewrites the file.
 * A start from it never rewrites the snapshot, so its age stays the age of its values.
 */
function cachedSnapshot(
  fallback: Fallback,
  ttl: CacheTtl,
  expected: SnapshotExpectation,
  jobEnv: Readonly<Environment>,
): Snapshot | undefined {
  // The references a load resolves: every job variable that holds one.
  const references = Object.values(jobEnv).filter((value) => value.startsWith('vault://'));
  const snapshot = readFreshSnapshot(
    fallback.file,
    fallback.key,
    expected,
    ttl.milliseconds,
    references,
  );
  if (snapshot !== undefined) {
    process.stderr.write(
      `secrets-vault: starting from the snapshot ${fallback.file} (--cache-ttl ${ttl.text}), saved ${describeAge(snapshot.savedAt)} ago\n`,
    );
  }
  return snapshot;
}

/** The environment a command is started with. */
type Environment = Record<string, string>;

/** The line a command that cannot be started gets: its name and the code, never the environment. */
function cannotRun(command: string, code: string): void {
  process.stderr.write(`secrets-vault: cannot run ${escapeControlCharacters(command)}: ${code}\n`);
}

/** The exit code `run` leaves with when its command ended with `code` or `signal`. */
function exitCodeFor(code: number | null, signal: NodeJS.Signals | null): number {
  return signal === null ? (code ?? 1) : 128 + (constants.signals[signal] ?? 0);
}

/** Signals passed on to the command's whole group as they come. */
const PASSED_ON = ['SIGTERM', 'SIGINT', 'SIGQUIT', 'SIGHUP', 'SIGWINCH'] as const;

/**
 * Passes signals on to the command's whole process group (`child()`, which runs in a session of
 * its own), calling `onSignal` for each, until the returned function is called. Listening at all
 * keeps us alive until the command has exited: a hang-up must not orphan a command that holds
 * the secrets in its environment. Listening before the command starts leaves no moment when a
 * signal would end us alone. Should we exit first all the same, the command is told to stop.
 *
 * SIGTSTP (Ctrl-Z) stops the command and then us, and `fg` or `bg` continues both: the
 * command's group has its parent (us) in another session, so the system would ignore SIGTSTP
 * there, and only SIGSTOP stops it.
 */
function passSignalsOn(
  child: () => ChildProcess | undefined,
  onSignal: (signal: NodeJS.Signals) => void = () => undefined,
): () => void {
  const handlers = new Map<NodeJS.Signals, () => void>();
  for (const signal of PASSED_ON) {
    handlers.set(signal, () => {
      signalChild(child(), signal, true);
      onSignal(signal);
    });
  }
  const suspend = () => {
    // Without a listener, SIGTSTP sent to ourselves takes its default action before `kill`
    // returns: we stop, unless our own group is orphaned (no shell could continue us), where the
    // system ignores it, as it would for the command were it in our group. Either way, once we
    // run again, so does the command.
    process.off('SIGTSTP', suspend);
    signalChild(child(), 'SIGSTOP', true);
    try {
      process.kill(process.pid, 'SIGTSTP');
    } finally {
      signalChild(child(), 'SIGCONT', true);
      process.on('SIGTSTP', suspend);
    }
  };
  handlers.set('SIGTSTP', suspend);
  const onExit = () => signalChild(child(), 'SIGTERM', true);
  for (const [signal, handler] of handlers) process.on(signal, handler);
  process.on('exit', onExit);
  return () => {
    for (const [signal, handler] of handlers) process.off(signal, handler);
    process.off('exit', onExit);
  };
}

/**
 * Sends `signal` to the running `child`'s whole process group (its own children hear it too, as
 * they would from a terminal), to it alone unless `group`; nothing once it has exited.
 */
function signalChild(child: ChildProcess | undefined, signal: NodeJS.Signals, group: boolean) {
  const pid = child?.pid;
  if (pid === undefined || child?.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(group ? -pid : pid, signal);
  } catch {
    // The command has just exited: its exit event follows.
  }
}

/**
 * How long the command's output may go on after it has exited, through `--mask`, from a process
 * it left running: then what has come is written out, and the rest is not waited for.
 */
const OUTPUT_AFTER_EXIT_MS = 1_000;

/**
 * Passes `output` (the command's stdout or stderr) to `to` with every value of `masked`
 * redacted, and resolves once it has all been written out: at its end, or a while after
 * `exited` when a process the command left behind keeps it open.
 *
 * When `to` fails or closes (`run --mask … | head -1`: the reader has gone), we stop as a writer
 * in a pipeline stops: we stop reading `output` and close our end of it, so the command's next
 * write fails as it would writing to the reader itself (SIGPIPE; or, for a command that handles
 * it, EPIPE, or ECONNRESET when our end still held unread output: its output is a socket), and
 * `run` exits with the code the command then exits with (141 for SIGPIPE, as a shell reports it).
 * Reading on for nobody would keep a command that never ends (`yes`) running forever.
 */
function passMasked(
  output: Readable,
  to: Writable,
  masked: ReadonlySet<string>,
  exited: Promise<unknown>,
): Promise<void> {
  // An error nobody hears ends the process with a stack trace, and a write's EPIPE can come after
  // we are done here: one listener per stream, for good, whatever the restarts.
  if (!to.listeners('error').includes(ignoreWriteError)) to.on('error', ignoreWriteError);
  const masker = createMasker(masked);
  return new Promise<void>((resolve) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const settle = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      to.off('error', readerGone).off('close', readerGone);
      resolve();
    };
    const readerGone = () => {
      output.unpipe(masker);
      output.destroy();
      masker.destroy();
      settle();
    };
    masker.once('end', settle);
    to.once('error', readerGone).once('close', readerGone);
    output.pipe(masker).pipe(to, { end: false });
    exited.then(() => {
      if (settled) return;
      timer = setTimeout(() => {
        output.unpipe(masker);
        output.destroy();
        masker.end();
      }, OUTPUT_AFTER_EXIT_MS);
    });
  });
}

/** What a write error on our stdout or stderr gets: {@link passMasked} stops on it. */
function ignoreWriteError(): void {}

/**
 * Starts `command` (no shell: arguments reach it as given, and nothing is expanded or injected)
 * and resolves to the exit code `run` leaves with once it has ended, or could not start. With
 * `masked`, its stdout and stderr pass through us with those values redacted, and it resolves
 * once they have been written out.
 */
function startChild(
  command: string,
  args: readonly string[],
  env: Environment,
  masked: ReadonlySet<string> | undefined,
): { child: ChildProcess | undefined; exited: Promise<number> } {
  // Found as --exec finds it: on the job's own PATH (the search `spawn` makes would use the
  // command's, which --allow-var PATH lets a vault set), never relative to the current folder.
  const found = findProgram(command, process.env.PATH);
  if (typeof found === 'string') {
    cannotRun(command, found);
    return { child: undefined, exited: Promise.resolve(found === 'ENOENT' ? 127 : 126) };
  }
  let child: ChildProcess;
  try {
    // A session of its own, terminal or not: a signal sent to our group or from the terminal's
    // keys reaches only us, and we pass it on once, as we do one sent to us alone. In a group we
    // shared, a signal to the group would reach it from the sender and from us (twice), and one
    // to us alone only if we passed it on, which we cannot tell apart.
    const [file, argv] = found.direct ? [found.file, args] : ['/bin/sh', [found.file, ...args]];
    child = spawn(file, argv, {
      argv0: found.direct ? command : '/bin/sh',
      stdio: masked === undefined ? 'inherit' : ['inherit', 'pipe', 'pipe'],
      env,
      detached: true,
    });
  } catch (error) {
    // Node's own message can quote the environment: say only its code.
    cannotRun(command, (error as NodeJS.ErrnoException).code ?? 'error');
    return { child: undefined, exited: Promise.resolve(126) };
  }
  const exited = new Promise<number>((resolve) => {
    child.once('error', (error: NodeJS.ErrnoException) => {
      cannotRun(command, error.code ?? 'error');
      resolve(error.code === 'ENOENT' ? 127 : 126);
    });
    child.once('exit', (code, signal) => resolve(exitCodeFor(code, signal)));
  });
  const { stdout, stderr } = child;
  if (masked === undefined || stdout === null || stderr === null) return { child, exited };
  const written = Promise.all([
    passMasked(stdout, process.stdout, masked, exited),
    passMasked(stderr, process.stderr, masked, exited),
  ]);
  return {
    child,
    exited: exited.then(async (code) => {
      await written;
      return code;
    }),
  };
}

/**
 * Runs `command` as our child and resolves to its exit code, passing signals on so that each
 * reaches it once.
 */
async function runAsParent(
  command: string,
  args: readonly string[],
  env: Environment,
  masked: ReadonlySet<string> | undefined,
): Promise<number> {
  let child: ChildProcess | undefined;
  const stopListening = passSignalsOn(() => child);
  try {
    const started = startChild(command, args, env, masked);
    child = started.child;
    return await started.exited;
  } finally {
    stopListening();
  }
}

/** What `--watch` needs beyond its flags: how to load again, and how the run started. */
interface Watching extends WatchOptions {
  /** `--mask`: the values to redact in the command's output, each load's added as it comes. */
  readonly masked: ReadonlySet<string> | undefined;
  /** Whether the command started from the snapshot through an outage, already said. */
  readonly startedUnavailable: boolean;
  /**
   * Loads the vault again, by `deadline` (a `performance.now()` instant) unless `signal` cancels
   * it: the environment the command would get now, and how to keep those values in the
   * `--fallback` snapshot. Rejects as a load does, or with `ChildEnvError`.
   */
  reload(
    deadline: number,
    signal: AbortSignal,
  ): Promise<{ readonly env: Environment; readonly keep: () => void }>;
}

/** Whether two environments hold the same names with the same values, in whatever order. */
function sameEnvironment(a: Environment, b: Environment): boolean {
  const names = Object.keys(a);
  return (
    names.length === Object.keys(b).length &&
    names.every((name) => Object.hasOwn(b, name) && a[name] === b[name])
  );
}

/** Signals that ask the job to end: after one, the command is never started again. */
const STOPPING_SIGNALS: ReadonlySet<NodeJS.Signals> = new Set(['SIGTERM', 'SIGINT', 'SIGQUIT']);

/** What stops a watch: why it is said once, not once per poll. */
type Trouble = 'outage' | 'unreadable' | 'refused';

const KEEPS_RUNNING = 'the command keeps running with the values it has';

/**
 * `run --watch`: runs `command` as our child like {@link runAsParent}, polls the vault once per
 * interval, and when the environment it would get has changed, stops the command's whole process
 * group and starts it again with the new one. Resolves to the exit code of the command once it
 * has exited by itself, or after a signal asked us to stop.
 */
async function runWatching(
  command: string,
  args: readonly string[],
  initial: Environment,
  watch: Watching,
): Promise<number> {
  const { interval, grace } = watch;
  let child: ChildProcess | undefined;
  let stopping = false;
  // Cancels the poll in flight and the wait for the next one: nothing keeps us alive after.
  const watching = new AbortController();
  const stopListening = passSignalsOn(
    () => child,
    (signal) => {
      if (STOPPING_SIGNALS.has(signal)) {
        stopping = true;
        watching.abort();
      }
    },
  );
  let trouble: Trouble | undefined = watch.startedUnavailable ? 'outage' : undefined;
  const say = (line: string) => process.stderr.write(`secrets-vault: ${line}\n`);
  /** Says a trouble once, when it starts; and says the end of the one before. */
  const sayTrouble = (next: Trouble | undefined, detail = '') => {
    if (next === trouble) return;
    if (trouble === 'outage') say('the service is back');
    if (trouble === 'unreadable' && next === undefined) say('the vault can be read again');
    trouble = next;
    if (next === 'outage') say(`the service is unavailable (${detail}); ${KEEPS_RUNNING}`);
    if (next === 'unreadable') say(`cannot read the vault (${detail}); ${KEEPS_RUNNING}`);
    if (next === 'refused') say(`the vault's new values are refused: ${detail}; ${KEEPS_RUNNING}`);
  };
  // Interval k (from 1) has its poll at k + a random fraction of an interval after the start:
  // a fleet started together spreads its polls out, and never drifts into step.
  const origin = performance.now();
  let index = 1;
  /** Resolves when the next interval's poll is due; never once the watch is cancelled. */
  const nextPoll = () =>
    new Promise<void>((resolve) => {
      const now = performance.now();
      // A poll that ran into the next interval leaves that interval its own poll, at once if due.
      index = Math.max(index, Math.floor((now - origin) / interval));
      const due = origin + (index + Math.random()) * interval;
      index += 1;
      const cancel = afterMs(due - now, () => {
        watching.signal.removeEventListener('abort', cancel);
        resolve();
      });
      watching.signal.addEventListener('abort', cancel, { once: true });
    });
  /** Resolves to the next changed environment the job accepts; never once cancelled. */
  const nextChange = async (current: Environment): Promise<Environment> => {
    for (;;) {
      await nextPoll();
      let loaded: Awaited<ReturnType<Watching['reload']>>;
      try {
        loaded = await watch.reload(performance.now() + interval, watching.signal);
      } catch (error) {
        if (watching.signal.aborted) return new Promise<never>(() => undefined);
        if (error instanceof ChildEnvError) sayTrouble('refused', error.message);
        else sayTrouble(isOutage(error) ? 'outage' : 'unreadable', describe(error));
        continue;
      }
      if (watching.signal.aborted) return new Promise<never>(() => undefined);
      sayTrouble(undefined);
      if (sameEnvironment(loaded.env, current)) continue;
      loaded.keep();
      return loaded.env;
    }
  };
  try {
    let env = initial;
    for (;;) {
      const started = startChild(command, args, env, watch.masked);
      child = started.child;
      const ended = started.exited.then((code) => ({ code }));
      const outcome = await Promise.race([ended, nextChange(env).then((changed) => ({ changed }))]);
      if ('code' in outcome) return outcome.code;
      say('the values changed: restarting the command');
      const { code } = await stopGroup(child, started.exited, grace);
      if (stopping) return code;
      env = outcome.changed;
    }
  } finally {
    watching.abort();
    stopListening();
  }
}

/** How often a stop looks whether the command's group is gone, once its leader has exited. */
const GROUP_CHECK_MS = 50;

/**
 * Stops `child` and its whole process group: SIGTERM, then SIGKILL once `grace` has passed with
 * the leader or any other member still running. Resolves to the leader's exit code once it and
 * the group are gone (or SIGKILL has been sent).
 */
async function stopGroup(
  child: ChildProcess | undefined,
  exited: Promise<number>,
  grace: number,
): Promise<{ code: number }> {
  const pid = child?.pid;
  if (pid === undefined) return { code: await exited };
  const signalGroup = (signal: NodeJS.Signals | 0) => {
    try {
      process.kill(-pid, signal);
      return true;
    } catch {
      // No member left: the group is gone.
      return false;
    }
  };
  signalGroup('SIGTERM');
  // A command stopped by Ctrl-Z would only act on SIGTERM once continued.
  signalGroup('SIGCONT');
  let cancelKill: (() => void) | undefined;
  const killed = new Promise<void>((resolve) => {
    cancelKill = afterMs(grace, () => {
      signalGroup('SIGKILL');
      resolve();
    });
  });
  try {
    const code = await exited;
    // The leader is gone; its children may still hold the old values.
    while (signalGroup(0)) {
      const settled = await Promise.race([
        killed.then(() => true),
        new Promise<false>((resolve) => setTimeout(() => resolve(false), GROUP_CHECK_MS)),
      ]);
      if (settled) break;
    }
    return { code };
  } finally {
    cancelKill?.();
  }
}

/** How programs start: ELF (Linux, the BSDs), then Mach-O and universal binaries (macOS). */
const BINARY_MAGIC = ['7f454c46', 'feedface', 'feedfacf', 'cefaedfe', 'cffaedfe', 'cafebabe'].map(
  (hex) => Buffer.from(hex, 'hex'),
);
/** How many scripts may start one another through `#!` lines, as Linux allows. */
const MAX_INTERPRETER_DEPTH = 4;
/** The longest single argument or `NAME=value` Linux passes to a program, its NUL included. */
const MAX_ARGUMENT_BYTES = 32 * 4096;

/**
 * `--exec`: replaces this process with `command` (`execve`), found as `spawn` finds it, with the
 * environment `run` would give it. Returns only when it cannot, with the exit code to leave with.
 *
 * Node aborts the process when `execve` fails (it has already run its exit handlers), so every
 * failure the system would report is looked for first and reported as `run` reports it.
 */
function become(command: string, args: readonly string[], env: Record<string, string>): number {
  // The job's own PATH chooses the program, never one the vault set with --allow-var PATH.
  const found = findProgram(command, process.env.PATH);
  if (typeof found === 'string') {
    cannotRun(command, found);
    return found === 'ENOENT' ? 127 : 126;
  }
  // A file that is neither a binary nor a `#!` script runs in /bin/sh, as `spawn` runs it.
  const [file, argv] = found.direct
    ? [found.file, [command, ...args]]
    : ['/bin/sh', ['/bin/sh', found.file, ...args]];
  const strings = [...argv, ...Object.entries(env).map(([name, value]) => `${name}=${value}`)];
  const sizes = strings.map((text) => Buffer.byteLength(text) + 1);
  const pointers = (strings.length + 1) * 8;
  if (
    sizes.some((size) => size > MAX_ARGUMENT_BYTES) ||
    sizes.reduce((total, size) => total + size, pointers) > argumentSpace()
  ) {
    cannotRun(command, 'E2BIG');
    return 126;
  }
  // Node ignores SIGPIPE and SIGXFSZ, and a program inherits what is ignored: listening makes
  // them caught instead, which execve resets to their default, as a spawned command has them.
  for (const signal of ['SIGPIPE', 'SIGXFSZ'] as const) process.on(signal, () => undefined);
  process.execve?.(file, argv, env);
  return 126;
}

/**
 * Where `command` is, as `execvp` looks (a name with a `/` as it is, else the first executable
 * regular file of a PATH entry), or why it cannot run: the error code the system would give
 * (ENOENT when there is none, EACCES when the only ones are not executable), or a refusal when
 * the first one is in an entry relative to the current folder (an empty entry, `.`, `bin`).
 * `execvp` would run `./ls` from wherever the job happens to start, a file anyone who can write
 * there planted; like Go's `exec.LookPath` (what `doppler run` and `op run` use), we refuse it,
 * and a user who means it can say `./ls`.
 */
function findProgram(
  command: string,
  path: string | undefined,
): { file: string; direct: boolean } | string {
  if (command.includes('/')) return checkProgram(command, 0);
  if (command === '') return 'ENOENT';
  let failure = 'ENOENT';
  for (const folder of (path ?? '/usr/bin:/bin').split(':')) {
    const found = checkProgram(`${folder === '' ? '.' : folder}/${command}`, 0);
    if (typeof found !== 'string') {
      if (folder.startsWith('/')) return found;
      const entry = folder === '' ? 'an empty PATH entry' : `the PATH entry ${folder}`;
      return `found through ${escapeControlCharacters(entry)}, relative to the current folder, which is refused (give its path, such as ./${escapeControlCharacters(command)}, to run it from there)`;
    }
    if (found !== 'ENOENT') failure = found;
  }
  return failure;
}

/**
 * Whether `file` can be executed: a regular file we may execute, a binary, or a script whose
 * `#!` interpreter can be executed in turn; `direct` is false for a file execve would refuse to
 * run (`ENOEXEC`), which `execvp` hands to /bin/sh.
 */
function checkProgram(file: string, depth: number): { file: string; direct: boolean } | string {
  try {
    if (!statSync(file).isFile()) return 'EACCES';
    accessSync(file, fileConstants.X_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? 'ENOENT' : 'EACCES';
  }
  const head = Buffer.alloc(256);
  let length: number;
  try {
    const descriptor = openSync(file, 'r');
    try {
      length = readSync(descriptor, head, 0, head.length, 0);
    } finally {
      closeSync(descriptor);
    }
  } catch {
    // Executable but not readable: only the system can tell, and for binaries it can.
    return { file, direct: true };
  }
  const start = head.subarray(0, length);
  if (start.subarray(0, 2).toString('latin1') !== '#!') {
    return { file, direct: BINARY_MAGIC.some((magic) => magic.equals(start.subarray(0, 4))) };
  }
  if (depth >= MAX_INTERPRETER_DEPTH) return 'ELOOP';
  const interpreter = /^#![ \t]*([^ \t\n]+)/.exec(start.toString('latin1'))?.[1];
  if (interpreter === undefined) return 'ENOEXEC';
  const found = checkProgram(interpreter, depth + 1);
  if (typeof found === 'string') return found;
  return found.direct ? { file, direct: true } : 'ENOEXEC';
}

/**
 * How many bytes of arguments and environment a program may be given, pointers included: a
 * quarter of the stack limit, at most 6 MiB, at least 128 KiB, as Linux counts. Where the limit
 * cannot be read (no `/proc`: macOS, the BSDs), 256 KiB, which they all allow.
 */
function argumentSpace(): number {
  let limits: string;
  try {
    limits = readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return 256 * 1024;
  }
  const stack = /^Max stack size\s+(\S+)/m.exec(limits)?.[1];
  const quarter = Number(stack) / 4;
  // `unlimited` (or a line Linux may word differently one day) leaves the 6 MiB cap.
  const cap = 6 * 1024 * 1024;
  return Math.max(Number.isFinite(quarter) ? Math.min(cap, quarter) : cap, 128 * 1024);
}
