/**
 * The supervisor every command that runs a child shares (`run`, `inject -- <command>`): it starts
 * the command given after `--` as our child, in a process group and session of its own, passes
 * the signals we get on to it once, restarts it with a new environment (SIGTERM to its whole
 * group, SIGKILL after a grace, then a new start), sends it a reload signal, and ends with its
 * exit code. Commands say what to supervise; this module says how.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { constants } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { afterMs } from '../core/timer.js';
import { createMasker } from './mask.js';
import { cannotRun, cannotRunExitCode, findProgram } from './program.js';
import { passSignalsOn, STOPPING_SIGNALS, signalChild } from './signals.js';

/** @internal The environment a command is started with. */
export type Environment = Record<string, string>;

/** @internal What to supervise, and how to stop it for a restart. */
export interface SupervisedCommand {
  /** The program, found on the job's own PATH (never relative to the current folder). */
  readonly command: string;
  /** Its arguments, passed as given: no shell reads them. */
  readonly args: readonly string[];
  /** The environment of its first start; {@link Supervisor.restart} gives the next ones. */
  readonly env: Environment;
  /**
   * Milliseconds a restart lets the command's group stop after SIGTERM before SIGKILL.
   * @default 10_000
   */
  readonly grace?: number;
  /**
   * `run --mask`: the values redacted in the command's stdout and stderr, which pass through us
   * (pipes then, not a terminal). The set is read as the output comes: values added later are
   * redacted from then on.
   */
  readonly masked?: ReadonlySet<string> | undefined;
}

/** @internal How long a restart waits, by default, between SIGTERM and SIGKILL. */
export const DEFAULT_GRACE_MS = 10_000;

/**
 * @internal A command run as our child from construction on, until it exits by itself or a
 * signal asking the job to end (SIGTERM, SIGINT, SIGQUIT) has ended it: {@link exitCode} then
 * resolves to its exit code, as a shell reports it (128 + the signal number when a signal ended
 * it; 127 when it cannot be found, 126 when it cannot run).
 *
 * SIGTERM, SIGINT, SIGQUIT, SIGHUP and SIGWINCH that we get, whether sent to us alone, to our
 * group or from the terminal, reach its whole group once; Ctrl-Z stops it with us.
 *
 * @example
 * const supervisor = new Supervisor({ command: 'nginx', args: ['-g', 'daemon off;'], env });
 * // on a change: await supervisor.restart(newEnv), or supervisor.signal('SIGHUP')
 * return supervisor.exitCode;
 */
export class Supervisor {
  /** The exit code of the command, once it has ended for good. */
  readonly exitCode: Promise<number>;
  readonly #command: string;
  readonly #args: readonly string[];
  readonly #grace: number;
  readonly #masked: ReadonlySet<string> | undefined;
  readonly #stopping = new AbortController();
  readonly #stopListening: () => void;
  #child: ChildProcess | undefined;
  #exited: Promise<number> = Promise.resolve(0);
  #restarting = false;
  #finished = false;
  #finish: (code: number) => void = () => undefined;

  constructor(options: SupervisedCommand) {
    this.#command = options.command;
    this.#args = options.args;
    this.#grace = options.grace ?? DEFAULT_GRACE_MS;
    this.#masked = options.masked;
    this.exitCode = new Promise<number>((resolve) => {
      this.#finish = (code) => {
        if (this.#finished) return;
        this.#finished = true;
        this.#stopListening();
        resolve(code);
      };
    });
    // Listening before the command starts leaves no moment when a signal would end us alone.
    this.#stopListening = passSignalsOn(
      () => this.#child,
      (signal) => {
        if (STOPPING_SIGNALS.has(signal)) this.#stopping.abort();
      },
    );
    this.#start(options.env);
  }

  /**
   * Aborted once a signal asking the job to end has been passed on to the command: whatever
   * watches for changes stops, and the command is never started again.
   */
  get stopping(): AbortSignal {
    return this.#stopping.signal;
  }

  /**
   * The process id of the command as last started: what a line about it names. Undefined when
   * it could not be started.
   */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /**
   * Stops the command and its whole process group (SIGTERM, and SIGCONT for a stopped one; then
   * SIGKILL once the grace has passed with any of them still running, said in one stderr line),
   * waits for them to be gone, and starts the command again with `env`. Resolves to the new
   * command's pid once it is started again; to undefined when it could not be started, or, when a
   * signal asked the job to end meanwhile, once it has ended ({@link exitCode} then resolves to
   * its code). Nothing happens (undefined) once the command has ended, nor during another restart.
   */
  async restart(env: Environment): Promise<number | undefined> {
    if (this.#finished || this.#restarting) return undefined;
    this.#restarting = true;
    try {
      const code = await stopGroup(this.#child, this.#exited, this.#grace);
      if (this.#stopping.signal.aborted) {
        this.#finish(code);
        return undefined;
      }
      this.#start(env);
      return this.#child?.pid;
    } finally {
      this.#restarting = false;
    }
  }

  /**
   * Sends `signal` to the command itself (a reload: `SIGHUP` makes many servers read their
   * configuration again), not to its group: the command decides what its own children hear,
   * as with `kill -HUP <pid>`. Nothing once it has ended.
   */
  signal(signal: NodeJS.Signals): void {
    if (!this.#finished) signalChild(this.#child, signal, false);
  }

  #start(env: Environment): void {
    const started = startChild(this.#command, this.#args, env, this.#masked);
    this.#child = started.child;
    this.#exited = started.exited;
    void started.exited.then((code) => {
      // An exit a restart asked for is the restart's to wait for.
      if (this.#exited === started.exited && !this.#restarting) this.#finish(code);
    });
  }
}

/** The exit code a command's parent leaves with when it ended with `code` or `signal`. */
function exitCodeFor(code: number | null, signal: NodeJS.Signals | null): number {
  return signal === null ? (code ?? 1) : 128 + (constants.signals[signal] ?? 0);
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
 * and resolves to the exit code its parent leaves with once it has ended, or could not start. With
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
    return { child: undefined, exited: Promise.resolve(cannotRunExitCode(found)) };
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
      resolve(cannotRunExitCode(error.code ?? 'error'));
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

/** How often a stop looks whether the command's group is gone, once its leader has exited. */
const GROUP_CHECK_MS = 50;

/**
 * @internal A duration of `--grace` or `--watch-interval` as a line says it, in the units those
 * flags take: `500ms`, `1.5s`, `10s`, `2m`, `1h`.
 */
export function describeDuration(milliseconds: number): string {
  for (const [unit, size] of [
    ['h', 3_600_000],
    ['m', 60_000],
  ] as const) {
    if (milliseconds >= size && milliseconds % size === 0) return `${milliseconds / size}${unit}`;
  }
  return milliseconds >= 1_000 || milliseconds === 0
    ? `${milliseconds / 1_000}s`
    : `${milliseconds}ms`;
}

/**
 * Stops `child` and its whole process group: SIGTERM, then SIGKILL once `grace` has passed with
 * the leader or any other member still running, said in one stderr line (a kill nobody hears of
 * looks like a crash). Resolves to the leader's exit code once it and the group are gone (or
 * SIGKILL has been sent).
 */
async function stopGroup(
  child: ChildProcess | undefined,
  exited: Promise<number>,
  grace: number,
): Promise<number> {
  const pid = child?.pid;
  if (pid === undefined) return exited;
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
  let leaderExited = false;
  void exited.then(() => {
    leaderExited = true;
  });
  let cancelKill: (() => void) | undefined;
  const killed = new Promise<void>((resolve) => {
    cancelKill = afterMs(grace, () => {
      // False when the last member left meanwhile: then nothing was killed, and nothing is said.
      if (signalGroup('SIGKILL')) {
        const what = leaderExited
          ? `processes the command (pid ${pid}) started did not stop`
          : `the command (pid ${pid}) did not stop`;
        process.stderr.write(
          `secrets-vault: ${what} within the ${describeDuration(grace)} grace (--grace) after SIGTERM: sent SIGKILL to its process group\n`,
        );
      }
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
    return code;
  } finally {
    cancelKill?.();
  }
}
