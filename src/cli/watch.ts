/**
 * `--watch`, as every command that keeps a job's secrets current shares it (`run --watch`,
 * `inject --watch`): how often it polls, how long a restart waits, and the loop that polls the
 * vault once per interval, at a random point of it, says each trouble once when it starts and
 * once when it ends, and hands each good load to the command, which decides what changed.
 */
import { parseDuration, readEnv } from '../core/env.js';
import { APITimeoutError } from '../core/errors.js';
import { isOutage } from '../core/retry.js';
import { afterMs } from '../core/timer.js';
import { describe, usageError } from './errors.js';
import { DEFAULT_GRACE_MS, describeDuration } from './supervisor.js';

/** @internal The environment variable that stands in for `--watch-interval`. */
export const WATCH_INTERVAL_VARIABLE = 'SECRETS_VAULT_WATCH_INTERVAL';
const DEFAULT_WATCH_INTERVAL_MS = 60_000;
/** Polls closer together than this would load the service for little gain: a fleet polls too. */
const MIN_WATCH_INTERVAL_MS = 5_000;
/** Longer durations would overflow a timer, which then fires at once. */
const MAX_WATCH_DURATION_MS = 24 * 60 * 60 * 1000;

/** @internal How `--watch` polls and restarts. */
export interface WatchOptions {
  /** Milliseconds between polls: each interval has one, at a random point of it. */
  readonly interval: number;
  /** Milliseconds a stopping command has between SIGTERM and SIGKILL. */
  readonly grace: number;
}

/**
 * @internal The interval of `--watch-interval`, else of its variable, else 60 s. A usage error
 * (pointing at the help of `command`) when malformed or below the minimum: a typo must not
 * quietly poll the service every few milliseconds, nor never.
 */
export function watchInterval(flag: string | undefined, command: string): number {
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
      command,
    );
  }
  return milliseconds;
}

/** @internal The grace of `--grace`, else 10 s; a usage error (for `command`) when malformed. */
export function graceOf(flag: string | undefined, command: string): number {
  if (flag === undefined) return DEFAULT_GRACE_MS;
  const milliseconds = parseDuration(flag);
  if (milliseconds === undefined || milliseconds > MAX_WATCH_DURATION_MS) {
    throw usageError('--grace takes a duration up to 24h such as 10s, 500ms, or 0', command);
  }
  return milliseconds;
}

/** What stops a watch: why it is said once, not once per poll. */
type Trouble = 'outage' | 'unreadable' | 'refused';

/** @internal How a command words what a trouble leaves as it is. */
export interface TroubleWords {
  /** What stays as it was, said after each trouble: `the command keeps running with …`. */
  readonly keeps: string;
  /** The start of the line for values loaded but refused: `the vault's new values are refused`. */
  readonly refused: string;
  /**
   * The line that says a refusal has ended, when a good load comes; absent when only the change
   * it brings is said.
   */
  readonly accepted?: string;
}

/** @internal What {@link watchForChanges} polls with, and what it hands each good load to. */
export interface Watch<Loaded> {
  /** Milliseconds between polls. */
  readonly interval: number;
  /** Ends the watch: the poll in flight is cancelled, and no other one starts. */
  readonly signal: AbortSignal;
  /** Whether the job started through an outage (from a snapshot), already said. */
  readonly startedUnavailable?: boolean;
  readonly words: TroubleWords;
  /**
   * Loads the vaults again, by `deadline` (a `performance.now()` instant, one interval after the
   * poll starts) unless `signal` cancels it. Rejects as a load does, or with an error
   * {@link isRefusal} recognises.
   */
  load(deadline: number, signal: AbortSignal): Promise<Loaded>;
  /** Whether `error` refuses values that did load (they break a rule of the job). */
  isRefusal(error: unknown): error is Error;
  /**
   * Acts on a good load (compares it with what the job has, and restarts or rewrites what
   * changed); awaited before the next poll is planned. It reports its own failures: a rejection
   * ends the watch with it.
   */
  apply(loaded: Loaded): Promise<void> | void;
}

/**
 * @internal Polls once per interval, each poll at a random point of its interval (a fleet
 * started together spreads its polls out, and never drifts into step), until `watch.signal` is
 * aborted, and hands each good load to `watch.apply`. An outage, a verdict of the service (a
 * refused token, an unknown vault) or refused values change nothing: each is said in one stderr
 * line when it starts and, but for a refusal without {@link TroubleWords.accepted}, one when it
 * ends. Resolves once aborted; rejects only with what `apply` rejects with.
 */
export async function watchForChanges<Loaded>(watch: Watch<Loaded>): Promise<void> {
  const { interval, signal, words } = watch;
  let trouble: Trouble | undefined = watch.startedUnavailable ? 'outage' : undefined;
  const say = (line: string) => process.stderr.write(`secrets-vault: ${line}\n`);
  /** Says a trouble once, when it starts; and says the end of the one before. */
  const sayTrouble = (next: Trouble | undefined, detail = '') => {
    if (next === trouble) return;
    if (trouble === 'outage') say('the service is back');
    if (trouble === 'unreadable' && next === undefined) say('the vault can be read again');
    if (trouble === 'refused' && next === undefined && words.accepted !== undefined) {
      say(words.accepted);
    }
    trouble = next;
    if (next === 'outage') say(`the service is unavailable (${detail}); ${words.keeps}`);
    if (next === 'unreadable') say(`cannot read the vault (${detail}); ${words.keeps}`);
    if (next === 'refused') say(`${words.refused}: ${detail}; ${words.keeps}`);
  };
  // Interval k (from 1) has its poll at k + a random fraction of an interval after the start.
  const origin = performance.now();
  let index = 1;
  /** Resolves true when the next interval's poll is due, false once the watch is cancelled. */
  const nextPoll = () =>
    new Promise<boolean>((resolve) => {
      if (signal.aborted) {
        resolve(false);
        return;
      }
      const now = performance.now();
      // A poll that ran into the next interval leaves that interval its own poll, at once if due.
      index = Math.max(index, Math.floor((now - origin) / interval));
      const due = origin + (index + Math.random()) * interval;
      index += 1;
      const cancelled = () => {
        cancelTimer();
        resolve(false);
      };
      const cancelTimer = afterMs(due - now, () => {
        signal.removeEventListener('abort', cancelled);
        resolve(true);
      });
      signal.addEventListener('abort', cancelled, { once: true });
    });
  while (await nextPoll()) {
    let loaded: Loaded;
    // A poll ends within one interval, so that polls never pile up behind a hung one.
    const deadline = performance.now() + interval;
    try {
      loaded = await watch.load(deadline, signal);
    } catch (error) {
      if (signal.aborted) return;
      if (watch.isRefusal(error)) sayTrouble('refused', error.message);
      else if (isOutage(error)) sayTrouble('outage', describeOutage(error, deadline, interval));
      else sayTrouble('unreadable', describe(error));
      continue;
    }
    if (signal.aborted) return;
    sayTrouble(undefined);
    await watch.apply(loaded);
  }
}

/** How much earlier than its deadline a timer may end a poll (they run on other clocks). */
const DEADLINE_SLACK_MS = 50;

/**
 * What an outage that failed a poll was, in the user's terms: a poll that timed out at its
 * deadline is said as the watch's own deadline (the user set `--watch-interval`, never the
 * `totalTimeout` the load was given for what was left of it), anything else as the error says.
 */
function describeOutage(error: unknown, deadline: number, interval: number): string {
  if (error instanceof APITimeoutError && performance.now() >= deadline - DEADLINE_SLACK_MS) {
    return `the poll had no answer within its ${describeDuration(interval)} deadline, one --watch-interval`;
  }
  return describe(error);
}
