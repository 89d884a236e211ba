/**
 * Rotation under a fleet: what a rotated secret costs a fleet that watches it, and how the
 * background refreshes of caches started together spread over time.
 *
 * - Watching jobs: `secrets-vault run --watch` processes (the built `dist/cli.js`) started at one
 *   instant, each running a shell line that appends its start (time, pid, one secret's value)
 *   to a file of its own and then becomes `sleep`. One secret is rotated through the mock's
 *   API; then the proxy resets every connection for a while; then every job is stopped.
 * - Caches: independent `createSecretCache(client, { ttl })`, each with its own client, loaded
 *   at one instant and then read every 200 ms; the proxy times every background refresh.
 *
 * Every request is timed at the proxy, per job: the command names its job in its base URL
 * (`<proxy>/fleet-job/<id>`), the caches' clients in an `x-fleet-job` header.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createSecretCache, SecretsVault } from '@secrets-vault/sdk';
import { benchFile, markdownTable } from '../lib.ts';
import { cleanEnv, jobIds, type Service } from './processes.ts';
import { epochNow } from './protocol.ts';
import type { Verdict } from './verdict.ts';

/** The sizes and times of both scenarios. */
export interface RotationPlan {
  readonly watchJobs: number;
  readonly intervalMs: number;
  readonly graceMs: number;
  readonly outageSeconds: number;
  readonly cacheJobs: number;
  readonly ttlMs: number;
  readonly cacheSeconds: number;
}

type Named = Verdict & { readonly scenario: string };

/** The secret the watch rotates, and the variable the command reads it from. */
const SECRET = 'stripe';
const VARIABLE = 'STRIPE_API_KEY';
const OLD_VALUE = 'sk_test_fleet_not_real';
const NEW_VALUE = 'sk_test_fleet_rotated';
/** How long a restart may take after the rotation: one interval, the grace, start-up slack. */
const RESTART_LIMIT_MS = 10_000;
const READ_EVERY_MS = 200;

/** One start of a job's command, as its shell line wrote it. */
interface Start {
  readonly at: number;
  readonly pid: number;
  readonly value: string;
}

function startsOf(file: string): Start[] {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [at = '0', pid = '0', value = ''] = line.split(' ');
      return { at: Number(at), pid: Number(pid), value };
    });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The most of `times` (ms) in any window of `width` ms. */
function peakWindow(times: readonly number[], width: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let peak = 0;
  let low = 0;
  for (let high = 0; high < sorted.length; high += 1) {
    while ((sorted[high] ?? 0) - (sorted[low] ?? 0) >= width) low += 1;
    peak = Math.max(peak, high - low + 1);
  }
  return peak;
}

/**
 * Whether some grid of intervals (its origin between `from - interval` and `from`, 2 ms steps)
 * holds at most one of `times` in each interval: what "one poll per interval" means for a job
 * whose own interval grid the proxy cannot see.
 */
function onePerInterval(times: readonly number[], from: number, interval: number): boolean {
  for (let origin = from - interval; origin <= from; origin += 2) {
    const seen = new Set<number>();
    let ok = true;
    for (const time of times) {
      const slot = Math.floor((time - origin) / interval);
      if (seen.has(slot)) {
        ok = false;
        break;
      }
      seen.add(slot);
    }
    if (ok) return true;
  }
  return false;
}

const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** What the watching jobs scenario measured. */
export interface WatchResults {
  readonly jobs: number;
  readonly upMs: number;
  readonly restartedOnce: number;
  readonly newValue: number;
  readonly restartMaxMs: number | null;
  readonly restartP50Ms: number | null;
  readonly jobsOnePerInterval: number;
  readonly pollsPerJobPerInterval: number;
  readonly watchSeconds: number;
  readonly busiestSecond: number;
  readonly meanPerSecond: number;
  readonly outageRestarts: number;
  readonly outageAliveCommands: number;
  readonly outageAliveRuns: number;
  readonly outageRefused: number;
  readonly exitCodes: Readonly<Record<string, number>>;
  readonly leftovers: number;
}

/** Runs the watching jobs scenario. */
export async function measureWatch(
  service: Service,
  plan: RotationPlan,
  log: (line: string) => void,
): Promise<WatchResults> {
  const { proxyUrl, token, vaultId } = service.ready;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fleet-watch-'));
  const ids = jobIds(plan.watchJobs).map((id) => id.replace('job', 'watch'));
  const files = ids.map((id) => path.join(dir, `${id}.log`));
  const script = `printf '%s %s %s\\n' "$(date +%s%3N)" "$$" "$${VARIABLE}" >> "$0"; exec sleep 600`;
  const runs: ChildProcess[] = [];
  const exits = new Map<ChildProcess, Promise<number | null>>();
  try {
    log(`watch: ${ids.length} \`run --watch\` processes at one instant`);
    const startAt = epochNow() + 500;
    await service.configure({ kind: 'none' }, startAt);
    await sleep(Math.max(0, startAt - epochNow()));
    ids.forEach((id, index) => {
      const child = spawn(
        process.execPath,
        [
          benchFile('../dist/cli.js'),
          'run',
          '--vault',
          vaultId,
          '--watch',
          '--watch-interval',
          `${plan.intervalMs / 1000}s`,
          '--grace',
          `${plan.graceMs / 1000}s`,
          '--',
          '/bin/sh',
          '-c',
          script,
          files[index] ?? '',
        ],
        {
          env: cleanEnv({
            SECRETS_VAULT_BASE_URL: `${proxyUrl}/fleet-job/${id}`,
            SECRETS_VAULT_TOKEN: token,
          }),
          stdio: ['ignore', 'ignore', 'ignore'],
        },
      );
      runs.push(child);
      exits.set(
        child,
        new Promise((resolve) => {
          child.once('exit', (code, signal) => resolve(code ?? (signal ? -1 : null)));
        }),
      );
    });
    // Up: every command has written its first start.
    const upBy = epochNow() + 120_000;
    while (files.some((file) => startsOf(file).length === 0)) {
      if (epochNow() > upBy) throw new Error('watch: not every command started within 120 s');
      await sleep(200);
    }
    const upMs = epochNow() - startAt;
    log(`watch: all up after ${s(upMs)}; one interval, then the rotation`);
    await sleep(plan.intervalMs);
    const rotatedAt = epochNow();
    await service.rotate(SECRET, { api_key: NEW_VALUE });
    const settleBy = rotatedAt + RESTART_LIMIT_MS + 5_000;
    while (files.some((file) => startsOf(file).length < 2) && epochNow() < settleBy) {
      await sleep(200);
    }
    // One more interval with the new values, for the poll counts and any second restart.
    await sleep(plan.intervalMs);
    const watched = await service.counts();
    const afterRotation = files.map(startsOf);
    const restarts = afterRotation.map((starts) => starts.slice(1));
    const restartedOnce = restarts.filter((later) => later.length === 1).length;
    const newValue = restarts.filter(
      (later) => later.length === 1 && later[0]?.value === NEW_VALUE,
    ).length;
    const delays = restarts.flatMap((later) => later.map((start) => start.at - rotatedAt));
    const sorted = [...delays].sort((a, b) => a - b);
    // The watch proper: from one interval after the last job was up (200 processes starting on
    // a few CPUs delay every timer, the polls' too) to now, the rotation inside it.
    const watchFrom = upMs + plan.intervalMs;
    const watchTo = epochNow() - startAt;
    const byJob = new Map<string, number[]>();
    for (const [at, job] of watched.timeline) {
      if (at >= watchFrom && at < watchTo) byJob.set(job, [...(byJob.get(job) ?? []), at]);
    }
    let jobsOnePerInterval = 0;
    const inWatch: number[] = [];
    for (const id of ids) {
      const times = byJob.get(id) ?? [];
      inWatch.push(...times);
      if (onePerInterval(times, watchFrom, plan.intervalMs)) jobsOnePerInterval += 1;
    }
    const watchSeconds = (watchTo - watchFrom) / 1000;
    const meanPerSecond = inWatch.length / watchSeconds;
    const busiestSecond = peakWindow(inWatch, 1000);
    const pollsPerJobPerInterval =
      inWatch.length / ids.length / ((watchTo - watchFrom) / plan.intervalMs);

    log(`watch: a ${plan.outageSeconds} s outage while watching`);
    const outageAt = epochNow() + 200;
    await service.configure({ kind: 'outage', seconds: plan.outageSeconds }, outageAt);
    // The outage, then one interval after it so every job has seen the service back.
    await sleep(outageAt - epochNow() + plan.outageSeconds * 1000 + plan.intervalMs + 1000);
    const outage = await service.counts();
    const afterOutage = files.map(startsOf);
    const outageRestarts = afterOutage.reduce(
      (total, starts, index) => total + starts.length - (afterRotation[index]?.length ?? 0),
      0,
    );
    const lastPids = afterOutage.map((starts) => starts.at(-1)?.pid ?? 0);
    const outageAliveCommands = lastPids.filter((pid) => pid > 0 && alive(pid)).length;
    const outageAliveRuns = runs.filter(
      (run) => run.exitCode === null && run.signalCode === null,
    ).length;

    log('watch: SIGTERM to every run');
    for (const run of runs) run.kill('SIGTERM');
    const codes = await Promise.race([
      Promise.all(runs.map((run) => exits.get(run))),
      sleep(30_000).then(() => null),
    ]);
    const exitCodes: Record<string, number> = {};
    for (const code of codes ?? runs.map(() => null)) {
      const key = code === null ? 'still running' : code === -1 ? 'signal' : String(code);
      exitCodes[key] = (exitCodes[key] ?? 0) + 1;
    }
    await sleep(300);
    const everyPid = afterOutage.flatMap((starts) => starts.map((start) => start.pid));
    const leftovers =
      everyPid.filter(alive).length + runs.filter((run) => run.pid && alive(run.pid)).length;
    return {
      jobs: ids.length,
      upMs,
      restartedOnce,
      newValue,
      restartMaxMs: sorted.length === 0 ? null : (sorted.at(-1) ?? null),
      restartP50Ms: sorted.length === 0 ? null : (sorted[Math.floor(sorted.length / 2)] ?? null),
      jobsOnePerInterval,
      pollsPerJobPerInterval,
      watchSeconds,
      busiestSecond,
      meanPerSecond,
      outageRestarts,
      outageAliveCommands,
      outageAliveRuns,
      outageRefused: outage.refused,
      exitCodes,
      leftovers,
    };
  } finally {
    // Nothing outlives the scenario, whatever happened: each run's group, then the run.
    for (const starts of files.map(startsOf)) {
      for (const start of starts) if (alive(start.pid)) process.kill(start.pid, 'SIGKILL');
    }
    for (const run of runs)
      if (run.exitCode === null && run.signalCode === null) run.kill('SIGKILL');
    // The old value back, for whatever runs next against the same service.
    await service.rotate(SECRET, { api_key: OLD_VALUE });
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The watch's targets. */
export function watchVerdicts(watch: WatchResults, plan: RotationPlan): Named[] {
  const scenario = 'watch, rotation';
  const codes = Object.entries(watch.exitCodes)
    .map(([code, count]) => `${count} × ${code}`)
    .join(', ');
  return [
    {
      scenario,
      pass: watch.restartedOnce === watch.jobs && watch.newValue === watch.jobs,
      target: 'every job restarted exactly once, with the new value',
      measured: `${watch.restartedOnce} of ${watch.jobs} restarted once, ${watch.newValue} with the new value`,
    },
    {
      scenario,
      pass: watch.restartMaxMs !== null && watch.restartMaxMs <= RESTART_LIMIT_MS,
      target: `each restart within ${RESTART_LIMIT_MS / 1000} s of the rotation (interval ${plan.intervalMs / 1000} s + grace ${plan.graceMs / 1000} s + start-up)`,
      measured:
        watch.restartMaxMs === null
          ? 'no restart'
          : `p50 ${s(watch.restartP50Ms ?? 0)}, max ${s(watch.restartMaxMs)}`,
    },
    {
      scenario,
      pass: watch.jobsOnePerInterval === watch.jobs,
      target: 'at most one values request per job per interval',
      measured: `${watch.jobsOnePerInterval} of ${watch.jobs} jobs (${watch.pollsPerJobPerInterval.toFixed(2)} polls per job per interval on average)`,
    },
    {
      scenario,
      pass: watch.busiestSecond <= 3 * watch.meanPerSecond,
      target: 'polls spread: busiest second ≤ 3 × the mean per second',
      measured: `busiest ${watch.busiestSecond} vs mean ${watch.meanPerSecond.toFixed(1)} per second over ${watch.watchSeconds.toFixed(1)} s (${(watch.busiestSecond / watch.meanPerSecond).toFixed(2)} ×)`,
    },
    {
      scenario: `watch, ${plan.outageSeconds} s outage`,
      pass:
        watch.outageRestarts === 0 &&
        watch.outageAliveCommands === watch.jobs &&
        watch.outageAliveRuns === watch.jobs,
      target: 'no job restarted or stopped',
      measured: `${watch.outageRestarts} restarts, ${watch.outageAliveCommands} of ${watch.jobs} commands and ${watch.outageAliveRuns} of ${watch.jobs} runs alive (${watch.outageRefused} connections reset)`,
    },
    {
      scenario: 'watch, stop',
      pass: watch.exitCodes['143'] === watch.jobs && watch.leftovers === 0,
      target: 'SIGTERM: every run exits 143 (its command’s code), no process left',
      measured: `exit codes: ${codes}; ${watch.leftovers} processes left`,
    },
  ];
}

/** What the caches scenario measured. */
export interface CacheResults {
  readonly caches: number;
  readonly firstWave: number;
  /** Each first refresh, ms after its cache's first request reached the service. */
  readonly offsets: readonly number[];
  readonly inWindow: number;
  readonly busiest100ms: number;
  readonly busiest500ms: number;
  readonly busiestSecond: number;
  /** The first wave per 100 ms from its first refresh: [ms from, count]. */
  readonly buckets: readonly (readonly [number, number])[];
  readonly requests: number;
}

/** Runs the caches scenario in this process: one client and one cache per job. */
export async function measureCaches(
  service: Service,
  plan: RotationPlan,
  log: (line: string) => void,
): Promise<CacheResults> {
  const { proxyUrl, token, vaultId } = service.ready;
  const ids = jobIds(plan.cacheJobs).map((id) => id.replace('job', 'cache'));
  log(`caches: ${ids.length} caches (ttl ${plan.ttlMs / 1000} s) at one instant`);
  const caches = ids.map((id) =>
    createSecretCache(
      new SecretsVault({ baseUrl: proxyUrl, token, headers: { 'x-fleet-job': id } }),
      { ttl: plan.ttlMs },
    ),
  );
  const startAt = epochNow() + 300;
  await service.configure({ kind: 'none' }, startAt);
  await sleep(Math.max(0, startAt - epochNow()));
  const endAt = startAt + plan.cacheSeconds * 1000;
  // Every cache loads at the instant, then reads every 200 ms on a clock of its own, as
  // separate servers would: reads in lockstep would bunch the refreshes into 200 ms steps.
  await Promise.all(
    caches.map(async (cache) => {
      await cache.load(vaultId);
      await sleep(Math.random() * READ_EVERY_MS);
      while (epochNow() < endAt) {
        const tick = epochNow();
        await cache.load(vaultId);
        await sleep(Math.max(0, READ_EVERY_MS - (epochNow() - tick)));
      }
    }),
  );
  const counts = await service.counts();
  const byJob = new Map<string, number[]>();
  for (const [at, job] of counts.timeline) byJob.set(job, [...(byJob.get(job) ?? []), at]);
  const offsets: number[] = [];
  const wave: number[] = [];
  for (const id of ids) {
    const [first, second] = byJob.get(id) ?? [];
    if (first === undefined || second === undefined) continue;
    offsets.push(second - first);
    wave.push(second);
  }
  // Between ttl and 1.2 ttl after the load, seen at the next read (every 200 ms), with the
  // first request's own round trip on top.
  const low = plan.ttlMs;
  const high = 1.2 * plan.ttlMs + READ_EVERY_MS + 100;
  const inWindow = offsets.filter((offset) => offset >= low && offset <= high).length;
  const from = Math.min(...wave);
  const buckets = new Map<number, number>();
  for (const at of wave) {
    const bucket = Math.floor((at - from) / 100) * 100;
    buckets.set(bucket, (buckets.get(bucket) ?? 0) + 1);
  }
  return {
    caches: ids.length,
    firstWave: wave.length,
    offsets,
    inWindow,
    busiest100ms: peakWindow(wave, 100),
    busiest500ms: peakWindow(wave, 500),
    busiestSecond: peakWindow(wave, 1000),
    buckets: [...buckets.entries()].sort((a, b) => a[0] - b[0]),
    requests: counts.requests,
  };
}

/** The caches' targets. */
export function cacheVerdicts(cache: CacheResults, plan: RotationPlan): Named[] {
  const scenario = 'caches, refresh spread';
  const share = (count: number) => `${((100 * count) / Math.max(1, cache.firstWave)).toFixed(0)}%`;
  return [
    {
      scenario,
      pass: cache.firstWave === cache.caches && cache.inWindow === cache.caches,
      target: `every cache refreshed once between ttl and 1.2 ttl after its load (+ ${READ_EVERY_MS} ms between reads)`,
      measured: `${cache.inWindow} of ${cache.caches} (offsets ${s(Math.min(...cache.offsets))} to ${s(Math.max(...cache.offsets))})`,
    },
    {
      scenario,
      pass: cache.busiest500ms <= 0.6 * cache.firstWave,
      target: `busiest half-second ≤ 60% of the first refresh wave (the window is ${(0.2 * plan.ttlMs) / 1000} s wide)`,
      measured: `${cache.busiest500ms} of ${cache.firstWave} (${share(cache.busiest500ms)}); busiest second ${cache.busiestSecond} (${share(cache.busiestSecond)})`,
    },
    {
      scenario,
      pass: cache.busiest100ms <= 0.25 * cache.firstWave,
      target: 'busiest 100 ms ≤ 25% of the first refresh wave',
      measured: `${cache.busiest100ms} of ${cache.firstWave} (${share(cache.busiest100ms)})`,
    },
  ];
}

/** The settings of both scenarios, as a table. */
export function rotationSettingsLines(plan: RotationPlan): string[] {
  return markdownTable(
    ['Scenario', 'What runs', 'Jobs', 'Times'],
    [
      [
        'watch',
        '`secrets-vault run --vault <id> --watch --watch-interval ' +
          `${plan.intervalMs / 1000}s --grace ${plan.graceMs / 1000}s -- /bin/sh -c '<record the start>; exec sleep 600'\``,
        String(plan.watchJobs),
        `rotation one interval after all are up; a ${plan.outageSeconds} s outage; then SIGTERM`,
      ],
      [
        'caches',
        `\`createSecretCache(client, { ttl: ${plan.ttlMs} })\`, one client each, \`load\` every ${READ_EVERY_MS} ms`,
        String(plan.cacheJobs),
        `${plan.cacheSeconds} s from one instant`,
      ],
    ],
    2,
  );
}

/** The figures of both scenarios, as lines. */
export function rotationFigureLines(watch: WatchResults, cache: CacheResults): string[] {
  const buckets = cache.buckets.map(([from, count]) => `${(from / 1000).toFixed(1)}:${count}`);
  return [
    `- Watch: ${watch.jobs} jobs up (first start written) ${s(watch.upMs)} after the instant; restarts after the rotation p50 ${s(watch.restartP50Ms ?? 0)}, max ${s(watch.restartMaxMs ?? 0)}; polls ${watch.pollsPerJobPerInterval.toFixed(2)} per job per interval, busiest second ${watch.busiestSecond} vs mean ${watch.meanPerSecond.toFixed(1)}/s; outage: ${watch.outageRestarts} restarts, ${watch.outageRefused} connections reset.`,
    `- Caches: ${cache.caches} caches, ${cache.requests} requests in all; first refresh wave ${cache.firstWave} requests, busiest 100 ms ${cache.busiest100ms}, half-second ${cache.busiest500ms}, second ${cache.busiestSecond}. Per 100 ms from the wave's first refresh (s:count): ${buckets.join(' ')}.`,
  ];
}
