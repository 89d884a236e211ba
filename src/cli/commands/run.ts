/**
 * `secrets-vault run`: loads a vault once and runs a command with its secrets in the environment,
 * as the command's parent: its exit code is the command's, and signals are passed on to it. With
 * `--watch` it keeps polling the vault and restarts the command when its environment changes.
 * With `--exec` it becomes the command instead (`execve`): same process, no parent left behind.
 */
import { parseEnv } from 'node:util';
import { parseDuration, readEnv, readEnvToken } from '../../core/env.js';
import { SecretReferenceError } from '../../core/errors.js';
import { escapeControlCharacters } from '../../core/redaction.js';
import { isOutage } from '../../core/retry.js';
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
import {
  ALLOW_VAR,
  allowedVariables,
  GRACE,
  isGiven,
  PREFIX,
  VAULT,
  VAULT_VARIABLE,
  WAIT,
  WAIT_HELP,
  WATCH,
  WATCH_INTERVAL,
} from '../flags.js';
import { loadForRun, variablesOf } from '../load.js';
import { become } from '../program.js';
import { type Environment, Supervisor } from '../supervisor.js';
import {
  graceOf,
  WATCH_INTERVAL_VARIABLE,
  type WatchOptions,
  watchForChanges,
  watchInterval,
} from '../watch.js';

const OVERRIDE: Flag = { name: 'override', type: 'boolean' };
const FALLBACK: Flag = { name: 'fallback', type: 'string' };
const FALLBACK_MAX_AGE: Flag = { name: 'fallback-max-age', type: 'string' };
const FALLBACK_ONLY: Flag = { name: 'fallback-only', type: 'boolean' };
const CACHE_TTL: Flag = { name: 'cache-ttl', type: 'string' };
const KEEP_TOKEN: Flag = { name: 'keep-token', type: 'boolean' };
const EXEC: Flag = { name: 'exec', type: 'boolean' };
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
      const needsParent = NEEDS_PARENT.find((flag) => isGiven(context, flag));
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
    const watch = context.boolean(WATCH);
    for (const flag of [WATCH_INTERVAL, GRACE]) {
      if (!watch && isGiven(context, flag)) throw usageError(`--${flag.name} needs --watch`, 'run');
    }
    const envFiles = context.strings(ENV_FILE);
    if (envFiles.includes('')) throw usageError('--env-file takes a file', 'run');
    return run(context, {
      jobEnv: await jobEnvironment(envFiles),
      mask: context.boolean(MASK),
      override: context.boolean(OVERRIDE),
      keepToken: context.boolean(KEEP_TOKEN),
      allowed: allowedVariables(context, 'run'),
      fallback,
      exec,
      watch: watch
        ? {
            interval: watchInterval(context.string(WATCH_INTERVAL), 'run'),
            grace: graceOf(context.string(GRACE), 'run'),
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
  if (watch === undefined) return new Supervisor({ command, args, env, masked }).exitCode;
  let snapshotIsOld = fromSnapshot;
  // Its good answers are debug lines: at SECRETS_VAULT_LOG=info, one a poll would be noise.
  const pollingClient = newClient({ polling: true });
  return runWatching(command, args, env, {
    ...watch,
    masked,
    // A start from the cache is no outage: the watch has no "service is back" to say.
    startedUnavailable: fromSnapshot && cached === undefined,
    async reload(deadline, signal) {
      // The client's ordinary retries, never the startup wait: a poll ends by its deadline.
      const next = await loadForRun(pollingClient, vaultIds, jobEnv, { wait: 0, signal }, deadline);
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

/** What `run --watch` needs beyond its flags: how to load again, and how the run started. */
interface Watching extends WatchOptions {
  /** `--mask`: the values to redact in the command's output, each load's added as it comes. */
  readonly masked: ReadonlySet<string> | undefined;
  /** Whether the command started from the snapshot through an outage, already said. */
  readonly startedUnavailable: boolean;
  /**
   * Loads the vault again, by `deadline` (a `performance.now()` instant) unless `signal` cancels
   * it: the environment the command would get now, and how to keep those values in the
   * `--fallback` snapshot. Rejects as a load does, or with `ChildEnvError`, or with
   * `SecretReferenceError` for a reference of the job that no longer resolves.
   */
  reload(
    deadline: number,
    signal: AbortSignal,
  ): Promise<{ readonly env: Environment; readonly keep: () => void }>;
}

/**
 * The names of the variables that differ between `before` and `after`, sorted, each added or
 * removed one marked so (`APP_NEW (added), APP_OLD (removed), APP_TOKEN`); empty when none does.
 * Names only: a restart line says what changed, never a value.
 */
function changedVariables(before: Environment, after: Environment): string {
  const changed: string[] = [];
  for (const name of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const had = Object.hasOwn(before, name);
    const has = Object.hasOwn(after, name);
    if (had && has && before[name] === after[name]) continue;
    changed.push(had && has ? name : `${name} (${has ? 'added' : 'removed'})`);
  }
  // By character code, whatever the locale: the same order on every host.
  return changed
    .sort()
    .map((name) => escapeControlCharacters(name))
    .join(', ');
}

/**
 * `run --watch`: runs `command` through the supervisor, polls the vault once per interval, and
 * when the environment it would get has changed, restarts it (its whole process group) with the
 * new one. Resolves to the exit code of the command once it has exited by itself, or after a
 * signal asked us to stop.
 */
async function runWatching(
  command: string,
  args: readonly string[],
  initial: Environment,
  watch: Watching,
): Promise<number> {
  const supervisor = new Supervisor({
    command,
    args,
    env: initial,
    grace: watch.grace,
    masked: watch.masked,
  });
  // Cancels the poll in flight and the wait for the next one: nothing keeps us alive after.
  const watching = new AbortController();
  const stop = () => watching.abort();
  supervisor.stopping.addEventListener('abort', stop, { once: true });
  let current = initial;
  const polling = watchForChanges({
    interval: watch.interval,
    signal: watching.signal,
    startedUnavailable: watch.startedUnavailable,
    words: {
      keeps: 'the command keeps running with the values it has',
      refused: "the vault's new values are refused",
      accepted: "the vault's values are accepted again",
    },
    load: (deadline, signal) => watch.reload(deadline, signal),
    isRefusal: (error) => error instanceof ChildEnvError || error instanceof SecretReferenceError,
    async apply(loaded) {
      const changed = changedVariables(current, loaded.env);
      if (changed === '') return;
      loaded.keep();
      // The pid it stops: the line of a kill after the grace names it too.
      const stopping = supervisor.pid === undefined ? '' : ` (pid ${supervisor.pid})`;
      process.stderr.write(
        `secrets-vault: the values changed: ${changed}; restarting the command${stopping}\n`,
      );
      current = loaded.env;
      const pid = await supervisor.restart(loaded.env);
      if (pid !== undefined) {
        process.stderr.write(`secrets-vault: the command started again (pid ${pid})\n`);
      }
    },
  });
  try {
    // The watch ends only once cancelled, and then the command is ending: wait for its code.
    return await Promise.race([supervisor.exitCode, polling.then(() => supervisor.exitCode)]);
  } finally {
    watching.abort();
    supervisor.stopping.removeEventListener('abort', stop);
  }
}
