/**
 * The signals a command's parent passes on: which ones, to whom, and how Ctrl-Z stops the
 * command with us. The command runs in a process group and session of its own, so a signal sent
 * to our group or from the terminal reaches only us, and we pass it on once.
 */
import type { ChildProcess } from 'node:child_process';
import { constants } from 'node:os';

/** @internal Signals passed on to the command's whole group as they come. */
export const PASSED_ON = ['SIGTERM', 'SIGINT', 'SIGQUIT', 'SIGHUP', 'SIGWINCH'] as const;

/** @internal Signals that ask the job to end: after one, the command is never started again. */
export const STOPPING_SIGNALS: ReadonlySet<NodeJS.Signals> = new Set([
  'SIGTERM',
  'SIGINT',
  'SIGQUIT',
]);

/**
 * @internal Passes signals on to the command's whole process group (`child()`, which runs in a
 * session of its own), calling `onSignal` for each, until the returned function is called.
 * Listening at all keeps us alive until the command has exited: a hang-up must not orphan a
 * command that holds the secrets in its environment. Listening before the command starts leaves
 * no moment when a signal would end us alone. Should we exit first all the same, the command is
 * told to stop.
 *
 * SIGTSTP (Ctrl-Z) stops the command and then us, and `fg` or `bg` continues both: the
 * command's group has its parent (us) in another session, so the system would ignore SIGTSTP
 * there, and only SIGSTOP stops it.
 */
export function passSignalsOn(
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
 * @internal Sends `signal` to the running `child`'s whole process group (its own children hear
 * it too, as they would from a terminal), to it alone unless `group`; nothing once it has exited.
 */
export function signalChild(
  child: ChildProcess | undefined,
  signal: NodeJS.Signals,
  group: boolean,
): void {
  const pid = child?.pid;
  if (pid === undefined || child?.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(group ? -pid : pid, signal);
  } catch {
    // The command has just exited: its exit event follows.
  }
}

/** Signals no program can catch: as a reload signal, they would only stop or end it. */
const UNCATCHABLE: ReadonlySet<string> = new Set(['SIGKILL', 'SIGSTOP']);

/**
 * @internal The signal `name` names (`SIGHUP`, `HUP` or `hup`, as `kill` reads it), or undefined
 * when this system has none of that name, or it is one a program cannot catch (SIGKILL, SIGSTOP).
 */
export function signalNamed(name: string): NodeJS.Signals | undefined {
  const upper = name.toUpperCase();
  const full = upper.startsWith('SIG') ? upper : `SIG${upper}`;
  if (!Object.hasOwn(constants.signals, full) || UNCATCHABLE.has(full)) return undefined;
  return full as NodeJS.Signals;
}
