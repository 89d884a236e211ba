/**
 * The fleet benchmark: how a fleet of startup jobs, each with its own SDK client, all started
 * at one instant, comes up through service faults, next to an ideal client model that follows
 * the SDK's documented retry policy to the letter. Started by `npm run bench:fleet`, which
 * builds first and runs `node bench/fleet/run.ts`; `--short` is the quick mode CI runs to prove
 * the harness works (its figures mean nothing).
 *
 * It forks the service with its fault proxy (service.ts), then for each scenario forks the job
 * workers (worker.ts) twice, once for the SDK and once for the ideal model (ideal.ts), and
 * reads the proxy's counts; then it runs the package's command as real processes (command.ts),
 * then caching across process starts (caching.ts): a crash loop with and without `--cache-ttl`,
 * and `run` jobs behind one `secrets-vault agent`; last the rotation scenarios (rotation.ts):
 * `run --watch` jobs through a rotation and an outage, and caches started together.
 * The SDK's jobs use the client as a job would, default sender included. It prints each
 * scenario's settings, the table of figures and the targets with PASS or FAIL, writes
 * bench/fleet-results.json (bench/fleet-results-short.json in short mode) and, in full mode,
 * the generated section of docs/fleet.md (short mode only checks that the page still has its
 * markers). A missed target never fails the run: only a broken harness does.
 *
 * `--only <part>[,<part>…]` runs some parts only: an in-process scenario by its id
 * (`outage-5s`, …), `command`, `caching` or `rotation`. `--jobs <n>` gives every in-process
 * scenario that runs a fleet of n jobs. Either makes a partial run: it prints its report and
 * writes no results file and no page, so the recorded figures stay those of a whole run.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { benchFile, formatNumber } from '../lib.ts';
import {
  type AgentResults,
  type CrashLoopPair,
  cachingFigureLines,
  cachingSettingsLines,
  cachingVerdicts,
  measureAgent,
  measureCrashLoop,
} from './caching.ts';
import { type CommandRun, type CommandTarget, deadPort, runCommand } from './command.ts';
import { type FleetFigures, figuresOf } from './figures.ts';
import { cleanEnv, runFleet, type Service, startService, WORKERS } from './processes.ts';
import { epochNow, type JobKind } from './protocol.ts';
import { errorLines, figuresTable, settingsLines, spreadLines, verdictLines } from './report.ts';
import {
  type CacheResults,
  cacheVerdicts,
  measureCaches,
  measureWatch,
  rotationFigureLines,
  rotationSettingsLines,
  type WatchResults,
  watchVerdicts,
} from './rotation.ts';
import { FULL_PLAN, type Plan, SHORT_PLAN, sdkSettings } from './scenarios.ts';
import { SPREAD_MIN_MEAN, type Spread } from './spread.ts';
import type { Verdict } from './verdict.ts';

const SHORT = process.argv.includes('--short');
const MODE = SHORT ? 'short' : 'full';
const PARTS = ['command', 'caching', 'rotation'] as const;
type Part = (typeof PARTS)[number];

/** The value after `--<name>` on the command line, if given. */
function option(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  if (index === -1) return undefined;
  const value = process.argv[index + 1];
  if (value === undefined || value.startsWith('--')) throw new Error(`--${name} needs a value`);
  return value;
}

/**
 * The plan of this run: the mode's, with `--jobs` and `--only` applied, and which of the parts
 * after the in-process scenarios run.
 * @throws on an unknown part or a fleet size that is not a positive whole number
 */
function planOf(base: Plan): { plan: Plan; parts: ReadonlySet<Part>; partial: boolean } {
  const jobsText = option('jobs');
  const onlyText = option('only');
  let jobs: number | undefined;
  if (jobsText !== undefined) {
    if (!/^[1-9]\d*$/.test(jobsText)) throw new Error(`--jobs ${jobsText}: not a positive number`);
    jobs = Number(jobsText);
  }
  const ids = base.scenarios.map((scenario) => scenario.id);
  const only = onlyText?.split(',').map((name) => name.trim());
  for (const name of only ?? []) {
    if (!ids.includes(name) && !(PARTS as readonly string[]).includes(name)) {
      throw new Error(`--only ${name}: not one of ${[...ids, ...PARTS].join(', ')}`);
    }
  }
  const scenarios = base.scenarios
    .filter((scenario) => only === undefined || only.includes(scenario.id))
    .map((scenario) => (jobs === undefined ? scenario : { ...scenario, jobs }));
  const parts = new Set(PARTS.filter((part) => only === undefined || only.includes(part)));
  return { plan: { ...base, scenarios }, parts, partial: only !== undefined || jobs !== undefined };
}

const { plan: PLAN, parts: PARTS_RUN, partial: PARTIAL } = planOf(SHORT ? SHORT_PLAN : FULL_PLAN);
const KINDS: readonly JobKind[] = ['sdk', 'ideal'];
const DOC = benchFile('../docs/fleet.md');
const MARKERS = ['<!-- fleet-table:start -->', '<!-- fleet-table:end -->'] as const;

const started = epochNow();
const cpus = os.availableParallelism();
const loadAtStart = os.loadavg()[0] ?? 0;
const log = (message: string) => console.error(`[fleet ${MODE}] ${message}`);
const round = (value: number | null) => (value === null ? null : Math.round(value * 100) / 100);
const roundSpread = (spread: Spread) => ({
  ...spread,
  mean: round(spread.mean),
  ratio: round(spread.ratio),
  wholeWindowRatio: round(spread.wholeWindowRatio),
});

type ScenarioVerdict = Verdict & { readonly scenario: string };

/** The command's part of the results: its runs and its targets. */
interface CommandResults {
  readonly outage: { readonly seconds: number; readonly runs: readonly CommandRun[] };
  readonly deadService: CommandRun;
  readonly refusedToken: CommandRun;
  readonly peakRequestsPerSecond: number;
  readonly peakAttemptsPerSecond: number;
}

async function measureScenarios(service: Service): Promise<FleetFigures[]> {
  const { proxyUrl, token, vaultId } = service.ready;
  const figures: FleetFigures[] = [];
  for (const scenario of PLAN.scenarios) {
    for (const kind of KINDS) {
      log(`${scenario.id} (${scenario.label}), ${scenario.jobs} jobs, ${kind}`);
      const outcome = await runFleet({
        kind,
        jobs: scenario.jobs,
        baseUrl: proxyUrl,
        token,
        vaultId,
        env: kind === 'sdk' ? scenario.env : {},
        capMs: scenario.capMs,
        beforeStart: (startAt) => service.configure(scenario.fault, startAt),
      });
      const counts = await service.counts();
      const figure = figuresOf(scenario.id, kind, outcome, counts, scenario.spreadChecks);
      if (scenario.spreadChecks.length > 0) {
        // The arrivals per 100 ms up to the end of the last window, on stderr only: what the
        // herd figure was computed from, for a reader who wants to see the wave.
        const end = Math.max(...scenario.spreadChecks.map(({ atMs, windowMs }) => atMs + windowMs));
        log(
          `  attempts per 100 ms from the start instant: ${counts.attemptsPer100Ms.slice(0, end / 100).join(' ')}`,
        );
      }
      if (kind === 'sdk' && figure.transport !== 'node:http') {
        log(`  warning: the SDK's requests were sent by ${figure.transport}, not node:http`);
      }
      // Every attempt is one HTTP request or one reset connection at the proxy; a difference
      // means the clients' count (their log) and the proxy disagree about what was sent.
      const attempts = Math.round(figure.attemptsPerJob * figure.jobs);
      const seen = figure.proxy.requests + figure.proxy.refused;
      if (attempts !== seen) {
        log(`  note: the clients counted ${attempts} attempts, the proxy saw ${seen}`);
      }
      if (figure.lateMs > 0) {
        log(`  warning: clients were built ${figure.lateMs.toFixed(0)} ms after the start instant`);
      }
      log(
        `  ${formatNumber(figure.upPercent, 1)}% up, ${formatNumber(figure.attemptsPerJob, 2)} attempts per job, ${(figure.wallMs / 1000).toFixed(1)} s; peak memory ${figure.workerMaxRssMb} MB per worker, ${figure.proxy.maxRssMb} MB service`,
      );
      figure.spreads.forEach((spread, index) => {
        const sent = figure.sentSpreads[index];
        const stalls = figure.windowStalls[index];
        const retries = figure.retrySpreads[index];
        const sentRetries = figure.sentRetrySpreads[index];
        log(
          `  herd after ${spread.what}: busiest ${spread.busiest} vs mean ${spread.mean.toFixed(1)} per 100 ms (${spread.ratio.toFixed(2)} ×${spread.judged ? '' : ', not judged'}); as the clients sent them ${sent?.ratio.toFixed(2)} ×; retries only ${retries?.ratio.toFixed(2)} × (busiest ${retries?.busiest} vs mean ${retries?.mean.toFixed(1)}), as sent ${sentRetries?.ratio.toFixed(2)} ×; longest stall in the window ${stalls?.serviceMs} ms in the service, ${stalls?.workerMs} ms in a worker`,
        );
      });
      if (figure.firstRequests !== null) {
        const { first, p50, last } = figure.firstRequests;
        log(
          `  first requests reached the proxy from ${(first / 1000).toFixed(2)} s to ${(last / 1000).toFixed(2)} s after the start instant (median ${(p50 / 1000).toFixed(2)} s)`,
        );
      }
      if (figure.spreads.length > 0) {
        const long = (stalls: readonly (readonly [number, number])[]) =>
          stalls
            .filter(([, ms]) => ms >= 200)
            .map(([end, ms]) => `${((end - ms - outcome.startAt) / 1000).toFixed(1)} s +${ms} ms`)
            .join(', ') || 'none';
        log(
          `  stalls of 200 ms or more (start after the instant, length): service ${long(counts.stalls)}; workers ${long(outcome.workerStalls)}`,
        );
        log(
          `  event loop held up at most ${figure.proxy.maxLoopDelayMs} ms in the service, ${figure.workerMaxLoopDelayMs} ms in a worker`,
        );
      }
      figures.push(figure);
    }
  }
  return figures;
}

function scenarioVerdicts(figures: readonly FleetFigures[]): ScenarioVerdict[] {
  return PLAN.scenarios.flatMap((scenario) => {
    const sdk = figures.find((figure) => figure.scenario === scenario.id && figure.kind === 'sdk');
    const ideal = figures.find(
      (figure) => figure.scenario === scenario.id && figure.kind === 'ideal',
    );
    if (!sdk || !ideal) throw new Error(`no figures for ${scenario.id}`);
    return scenario.targets(sdk, ideal).map((verdict) => ({ ...verdict, scenario: scenario.id }));
  });
}

/** The built command, pointed at the proxy with the service's token. */
function commandTarget(service: Service): CommandTarget {
  const { proxyUrl, token, vaultId } = service.ready;
  return { cli: benchFile('../dist/cli.js'), baseUrl: proxyUrl, token, vaultId, env: cleanEnv() };
}

async function measureCommand(service: Service): Promise<CommandResults> {
  const target = commandTarget(service);
  const { runs, outageSeconds, capMs } = PLAN.command;
  log(`command: ${runs} runs at once through a ${outageSeconds} s outage`);
  const startAt = epochNow() + 500;
  await service.configure({ kind: 'outage', seconds: outageSeconds }, startAt);
  const outageRuns = await Promise.all(
    Array.from({ length: runs }, () => runCommand(target, { capMs, startAt })),
  );
  const counts = await service.counts();

  log('command: run --wait 2s against a dead service, and with a refused token');
  await service.configure({ kind: 'unauthorized' }, epochNow());
  const dead = { ...target, baseUrl: `http://127.0.0.1:${await deadPort()}` };
  const [deadService, refusedToken] = await Promise.all([
    runCommand(dead, { flags: ['--wait', '2s'], capMs: 30_000 }),
    runCommand(target, { capMs: 30_000 }),
  ]);
  return {
    outage: { seconds: outageSeconds, runs: outageRuns },
    deadService,
    refusedToken,
    peakRequestsPerSecond: counts.peakRequestsPerSecond,
    peakAttemptsPerSecond: counts.peakAttemptsPerSecond,
  };
}

function describeRun(run: CommandRun): string {
  const code = run.code === null ? 'killed at the cap' : `exit ${run.code}`;
  const said = run.stderr.length > 240 ? `${run.stderr.slice(0, 239)}…` : run.stderr;
  return `${code} after ${(run.ms / 1000).toFixed(2)} s${said ? ` (“${said}”)` : ''}`;
}

function commandVerdicts(command: CommandResults): ScenarioVerdict[] {
  const { runs } = command.outage;
  const startedChild = runs.filter((run) => run.code === 0).length;
  const codes: Record<string, number> = {};
  for (const run of runs) {
    const key = run.code === null ? 'killed' : String(run.code);
    codes[key] = (codes[key] ?? 0) + 1;
  }
  const maxMs = Math.max(...runs.map((run) => run.ms));
  return [
    {
      scenario: `command, ${command.outage.seconds} s outage`,
      pass: startedChild === runs.length,
      target: `all ${runs.length} runs start their child`,
      measured: `${startedChild} of ${runs.length} did (exit codes: ${Object.entries(codes)
        .map(([code, count]) => `${count} × ${code}`)
        .join(', ')}), the last run ended after ${(maxMs / 1000).toFixed(2)} s`,
    },
    {
      scenario: 'command, dead service',
      pass: command.deadService.code === 75 && command.deadService.ms <= 6_000,
      target: '`run --wait 2s` exits 75 within 6 s',
      measured: describeRun(command.deadService),
    },
    {
      scenario: 'command, refused token',
      pass: command.refusedToken.code === 77,
      target: 'exits 77',
      measured: describeRun(command.refusedToken),
    },
  ];
}

// ---------------------------------------------------------------------------------------------

log(`${WORKERS} worker processes; starting the service and its fault proxy`);
if (PARTIAL)
  log(`partial run: ${[...PLAN.scenarios.map(({ id }) => id), ...PARTS_RUN].join(', ')}`);
const service = await startService();
let figures: FleetFigures[];
let command: CommandResults | undefined;
let caching: { crash: CrashLoopPair; agent: AgentResults } | undefined;
let rotation: { watch: WatchResults; caches: CacheResults } | undefined;
try {
  log(
    `proxy at ${service.ready.proxyUrl}, vault ${service.ready.vaultId} with ${service.ready.secrets} secrets`,
  );
  figures = await measureScenarios(service);
  if (PARTS_RUN.has('command')) command = await measureCommand(service);
  if (PARTS_RUN.has('caching')) {
    const target = commandTarget(service);
    caching = {
      crash: await measureCrashLoop(service, target, PLAN.caching, log),
      agent: await measureAgent(service, target, PLAN.caching, log),
    };
  }
  if (PARTS_RUN.has('rotation')) {
    rotation = {
      watch: await measureWatch(service, PLAN.rotation, log),
      caches: await measureCaches(service, PLAN.rotation, log),
    };
  }
} finally {
  await service.stop();
}

const verdicts = [
  ...scenarioVerdicts(figures),
  ...(command ? commandVerdicts(command) : []),
  ...(caching ? cachingVerdicts(caching.crash, caching.agent, PLAN.caching) : []),
  ...(rotation ? watchVerdicts(rotation.watch, PLAN.rotation) : []),
  ...(rotation ? cacheVerdicts(rotation.caches, PLAN.rotation) : []),
];
const seconds = (epochNow() - started) / 1000;
const date = new Date().toISOString();
const machine = `Node ${process.version}, ${cpus} CPUs (${os.cpus()[0]?.model.trim() ?? 'unknown'}), ${process.platform} ${process.arch}, load ${loadAtStart.toFixed(2)} at start`;
const judgedVerdicts = verdicts.filter((verdict) => verdict.judged !== false);
const passed = judgedVerdicts.filter((verdict) => verdict.pass).length;
const notJudged = verdicts.length - judgedVerdicts.length;

const report = [
  ...(figures.length > 0
    ? [
        ...settingsLines(PLAN.scenarios),
        '',
        ...figuresTable(figures),
        '',
        'Jobs that did not come up, by error:',
        '',
        ...(errorLines(figures).length > 0 ? errorLines(figures) : ['- none']),
        '',
        ...spreadLines(figures),
        '',
      ]
    : []),
  ...(caching
    ? [
        'Caching across process starts:',
        '',
        ...cachingSettingsLines(PLAN.caching),
        '',
        ...cachingFigureLines(caching.crash, caching.agent),
        '',
      ]
    : []),
  ...(rotation
    ? [
        'Rotation under a fleet:',
        '',
        ...rotationSettingsLines(PLAN.rotation),
        '',
        ...rotationFigureLines(rotation.watch, rotation.caches),
        '',
      ]
    : []),
  `Targets (the SDK, with the settings above): ${passed} of ${judgedVerdicts.length} met${notJudged > 0 ? `; ${notJudged} not judged (n/a: no window after a recovery or Retry-After carried a mean of ${SPREAD_MIN_MEAN} attempts per 100 ms)` : ''}.`,
  '',
  ...verdictLines(verdicts),
  '',
  `${MODE} mode${PARTIAL ? ' (partial)' : ''}, ${date.slice(0, 10)}, ${machine}, ${WORKERS} worker processes, ${seconds.toFixed(0)} s in all.`,
];
console.log('');
for (const line of report) console.log(line);
if (SHORT) {
  console.log('');
  console.log(
    'Short mode: 20 jobs and 2 s outages only prove the harness runs; the targets are printed, not enforced.',
  );
}
if (PARTIAL) {
  console.log('');
  console.log('Partial run (--only or --jobs): no results file or page written.');
  process.exit(0);
}
if (!command || !caching || !rotation) throw new Error('a whole run left a part out');

const results = {
  mode: MODE,
  date,
  durationSeconds: Math.round(seconds),
  node: process.version,
  platform: `${process.platform} ${process.arch}`,
  cpus,
  cpuModel: os.cpus()[0]?.model.trim() ?? 'unknown',
  workers: WORKERS,
  loadAverage: { atStart: round(loadAtStart), atEnd: round(os.loadavg()[0] ?? 0) },
  scenarios: PLAN.scenarios.map(({ id, label, jobs, fault, env, capMs, spreadChecks }) => ({
    id,
    label,
    jobs,
    fault,
    env,
    sdkSettings: sdkSettings(env),
    capMs,
    spreadChecks,
    figures: figures
      .filter((figure) => figure.scenario === id)
      .map((figure) => ({
        ...figure,
        upPercent: round(figure.upPercent),
        readyP50: round(figure.readyP50),
        readyP95: round(figure.readyP95),
        readyMax: round(figure.readyMax),
        failureMax: round(figure.failureMax),
        attemptsPerJob: round(figure.attemptsPerJob),
        requestsPerJob: round(figure.requestsPerJob),
        wallMs: round(figure.wallMs),
        lateMs: round(figure.lateMs),
        spreads: figure.spreads.map(roundSpread),
        sentSpreads: figure.sentSpreads.map(roundSpread),
        retrySpreads: figure.retrySpreads.map(roundSpread),
        sentRetrySpreads: figure.sentRetrySpreads.map(roundSpread),
        worstSpread: figure.worstSpread === null ? null : roundSpread(figure.worstSpread),
      })),
  })),
  command: {
    ...command,
    outage: {
      seconds: command.outage.seconds,
      runs: command.outage.runs.map((run) => ({ ...run, ms: round(run.ms) })),
    },
    deadService: { ...command.deadService, ms: round(command.deadService.ms) },
    refusedToken: { ...command.refusedToken, ms: round(command.refusedToken.ms) },
  },
  caching: {
    plan: PLAN.caching,
    crashLoop: {
      uncached: { ...caching.crash.uncached, loopMs: round(caching.crash.uncached.loopMs) },
      cached: { ...caching.crash.cached, loopMs: round(caching.crash.cached.loopMs) },
    },
    agent: {
      ...caching.agent,
      allDoneMs: round(caching.agent.allDoneMs),
      agentStopMs: round(caching.agent.agentStopMs),
    },
  },
  rotation: {
    plan: PLAN.rotation,
    watch: {
      ...rotation.watch,
      upMs: round(rotation.watch.upMs),
      restartMaxMs: round(rotation.watch.restartMaxMs),
      restartP50Ms: round(rotation.watch.restartP50Ms),
      pollsPerJobPerInterval: round(rotation.watch.pollsPerJobPerInterval),
      watchSeconds: round(rotation.watch.watchSeconds),
      meanPerSecond: round(rotation.watch.meanPerSecond),
    },
    caches: { ...rotation.caches, offsets: rotation.caches.offsets.map(round) },
  },
  verdicts,
};
const out = benchFile(SHORT ? './fleet-results-short.json' : './fleet-results.json');
writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
// Formatted as the repo's formatter wants it, so `npm run lint` stays clean after a run.
spawnSync(benchFile('../node_modules/.bin/biome'), ['format', '--write', out], { stdio: 'ignore' });
console.log(`Results written to ${out}`);

// Built in both modes: the short run, the one CI makes, then proves the page can still take it.
const doc = readFileSync(DOC, 'utf8');
const start = doc.indexOf(MARKERS[0]);
const end = doc.indexOf(MARKERS[1]);
if (start === -1 || end < start) throw new Error(`${DOC} has lost its table markers`);
const generated = [
  MARKERS[0],
  '',
  `Measured on ${date.slice(0, 10)}: ${machine}; the fleet spread over ${WORKERS} worker processes.`,
  '',
  ...report.slice(0, -1),
  '',
  MARKERS[1],
].join('\n');
if (!SHORT) {
  writeFileSync(DOC, `${doc.slice(0, start)}${generated}${doc.slice(end + MARKERS[1].length)}`);
  console.log(`Table written to ${DOC}`);
}
