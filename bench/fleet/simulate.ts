/**
 * The fleet simulation: fleets of 10 000 and 100 000 startup jobs, each one `secrets.load`
 * with the SDK's own retry policy (src/core/retry.ts, unchanged) on a virtual clock, released
 * at one instant into a capacity-limited service model and its faults (sim-scenarios.ts), next
 * to the ideal client model of ideal.ts in the same run. No network and no CPU are simulated:
 * only the policy's decisions and the service's capacity. Started by `npm run bench:simulate`;
 * `--short` runs small fleets to prove the harness works, `--seed <n>` changes the jitter.
 *
 * It prints each scenario's settings, a table of figures per fleet size and the targets with
 * PASS or FAIL, and writes bench/fleet-simulation.json (bench/fleet-simulation-short.json in
 * short mode). A missed target never fails the run: only a broken harness does.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { benchFile, formatNumber, markdownTable } from '../lib.ts';
import {
  ATTEMPTS_LIMIT,
  figuresOf,
  jobsThatDiffered,
  type SimFigures,
  type SimVerdict,
  SPREAD_LIMIT,
  verdictsOf,
  verdictText,
} from './sim-figures.ts';
import { type ClientKind, type FleetRun, simulateFleet } from './sim-fleet.ts';
import {
  describeService,
  IDEAL_CAP_MS,
  SCENARIOS,
  type SimScenario,
  SPREAD_WINDOW_MS,
} from './sim-scenarios.ts';
import { BUCKET_MS } from './spread.ts';

const SHORT = process.argv.includes('--short');
const MODE = SHORT ? 'short' : 'full';
const SIZES = SHORT ? [1_000, 5_000] : [10_000, 100_000];
const seedArgument = process.argv.indexOf('--seed');
const SEED = seedArgument === -1 ? 1 : Number(process.argv[seedArgument + 1]);
if (!Number.isSafeInteger(SEED)) throw new Error('--seed takes a whole number');

const started = performance.now();
const log = (message: string) => console.error(`[simulate ${MODE}] ${message}`);
const round = (value: number | null, decimals = 2) =>
  value === null ? null : Math.round(value * 10 ** decimals) / 10 ** decimals;
const jobsText = (jobs: number) => jobs.toLocaleString('en-US').replace(/,/g, ' ');
const secondsCell = (ms: number | null) => formatNumber(ms === null ? null : ms / 1000, 2);

/** One scenario at one fleet size: both clients' figures and the SDK's targets. */
interface ScenarioResult {
  readonly jobs: number;
  readonly scenario: SimScenario;
  readonly sdk: SimFigures;
  readonly ideal: SimFigures;
  /** Jobs whose attempts or time to ready differed between the SDK and the ideal client. */
  readonly differed: number;
  readonly verdicts: readonly SimVerdict[];
}

function measure(scenario: SimScenario, jobs: number, kind: ClientKind) {
  const begun = performance.now();
  // Both clients draw the same random sequence: where their figures differ, the policy does.
  const run: FleetRun = simulateFleet(scenario, jobs, kind, SEED);
  return { run, figures: figuresOf(scenario, run, performance.now() - begun) };
}

const results: ScenarioResult[] = [];
for (const jobs of SIZES) {
  for (const scenario of SCENARIOS) {
    const sdk = measure(scenario, jobs, 'sdk');
    const ideal = measure(scenario, jobs, 'ideal');
    const verdicts = verdictsOf(scenario, sdk.figures, ideal.figures);
    results.push({
      jobs,
      scenario,
      sdk: sdk.figures,
      ideal: ideal.figures,
      differed: jobsThatDiffered(sdk.run, ideal.run),
      verdicts,
    });
    log(
      `${jobsText(jobs)} jobs, ${scenario.id}: ${sdk.figures.events + ideal.figures.events} events in ${((sdk.figures.computeMs + ideal.figures.computeMs) / 1000).toFixed(1)} s; ` +
        `${verdicts.filter((verdict) => verdict.judged && verdict.pass).length} of ${verdicts.filter((verdict) => verdict.judged).length} targets met`,
    );
  }
}

// ---------------------------------------------------------------------------------------------

function settingsLines(): string[] {
  const rows = SCENARIOS.map((scenario) => [
    scenario.id,
    scenario.label,
    describeService(scenario.service),
    scenario.spreadChecks.length === 0
      ? '—'
      : scenario.spreadChecks
          .map((check) => `${check.atMs / 1000} s (${check.windowMs / 1000} s)`)
          .join(', '),
    String(scenario.waitMs / 1000),
  ]);
  return markdownTable(
    ['Scenario', 'Faults (from the release)', 'Service', 'Spread checked after (window)', 'Wait s'],
    rows,
    4,
  );
}

function figuresLines(jobs: number): string[] {
  const rows = results
    .filter((result) => result.jobs === jobs)
    .flatMap((result) =>
      [result.sdk, result.ideal].map((figures) => [
        figures.scenario,
        figures.client,
        formatNumber(figures.upPercent, 1),
        secondsCell(figures.readyP50),
        secondsCell(figures.readyP95),
        secondsCell(figures.readyMax),
        secondsCell(figures.lastUpAfterRecovery),
        formatNumber(figures.attemptsPerJob, 2),
        formatNumber(figures.requestsPerJob, 2),
        `${figures.peakPer100Ms} at ${(figures.peakAtMs / 1000).toFixed(1)}`,
        figures.worstSpread === null
          ? '—'
          : `${figures.worstSpread.ratio.toFixed(2)} (${figures.worstSpread.atMs / 1000} s)`,
        Object.entries(figures.errors)
          .map(([name, count]) => `${count} ${name}`)
          .join(', ') || '—',
      ]),
    );
  return markdownTable(
    [
      'Scenario',
      'Client',
      'Up %',
      'Ready p50 s',
      'Ready p95 s',
      'Ready max s',
      'Last up after recovery s',
      'Attempts/job',
      'Requests/job',
      'Peak per 100 ms (at s)',
      'Worst spread × (after s)',
      'Failed',
    ],
    rows,
    2,
  );
}

function targetLines(): string[] {
  const targets = results
    .filter((result) => result.jobs === SIZES[0])
    .flatMap((result) => result.verdicts.map((verdict) => [verdict.scenario, verdict.target]));
  const rows = targets.map(([scenario, target]) => [
    scenario ?? '',
    target ?? '',
    ...SIZES.map((jobs) => {
      const verdict = results
        .find((result) => result.jobs === jobs && result.scenario.id === scenario)
        ?.verdicts.find((candidate) => candidate.target === target);
      return verdict === undefined ? '—' : verdictText(verdict);
    }),
  ]);
  return markdownTable(
    ['Scenario', 'Target', ...SIZES.map((jobs) => `${jobsText(jobs)} jobs`)],
    rows,
    2,
  );
}

const allVerdicts = results.flatMap((result) =>
  result.verdicts.map((verdict) => ({ ...verdict, jobs: result.jobs })),
);
const judged = allVerdicts.filter((verdict) => verdict.judged);
const passed = judged.filter((verdict) => verdict.pass).length;
const notJudged = allVerdicts.length - judged.length;
const date = new Date().toISOString();
const seconds = (performance.now() - started) / 1000;
const cpuModel = os.cpus()[0]?.model.trim() ?? 'unknown';
const machine = `Node ${process.version}, ${os.availableParallelism()} CPUs (${cpuModel}), ${process.platform} ${process.arch}`;

const report = [
  ...settingsLines(),
  '',
  ...SIZES.flatMap((jobs) => {
    const differed = results
      .filter((result) => result.jobs === jobs)
      .map((result) => `${result.scenario.id} ${jobsText(result.differed)}`)
      .join(', ');
    return [
      `Fleet of ${jobsText(jobs)} jobs:`,
      '',
      ...figuresLines(jobs),
      '',
      `Jobs whose course (attempts, time to ready) differed between the SDK and the ideal client, drawing the same jitter: ${differed}.`,
      '',
    ];
  }),
  `Targets (the SDK's): ${passed} of ${judged.length} met` +
    (notJudged > 0 ? `; ${notJudged} not judged (no client could meet them).` : '.'),
  '',
  ...targetLines(),
  '',
  ...allVerdicts.map(
    (verdict) =>
      `- ${verdictText(verdict)} · ${jobsText(verdict.jobs)} jobs · ${verdict.scenario}: ${verdict.target} — ${verdict.measured}`,
  ),
  '',
  `${MODE} mode, seed ${SEED}, ${date.slice(0, 10)}, ${machine}, ${seconds.toFixed(1)} s in all.`,
];
console.log('');
for (const line of report) console.log(line);
if (SHORT) {
  console.log('');
  console.log('Short mode: small fleets only prove the harness runs; read the full run.');
}

const roundFigures = (figures: SimFigures) => ({
  ...figures,
  upPercent: round(figures.upPercent),
  readyP50: round(figures.readyP50),
  readyP95: round(figures.readyP95),
  readyMax: round(figures.readyMax),
  lastUpAfterRecovery: round(figures.lastUpAfterRecovery),
  failureMax: round(figures.failureMax),
  attemptsPerJob: round(figures.attemptsPerJob, 3),
  requestsPerJob: round(figures.requestsPerJob, 3),
  spreads: figures.spreads.map((spread) => ({
    ...spread,
    mean: round(spread.mean),
    ratio: round(spread.ratio, 3),
  })),
  worstSpread:
    figures.worstSpread === null
      ? null
      : {
          ...figures.worstSpread,
          mean: round(figures.worstSpread.mean),
          ratio: round(figures.worstSpread.ratio, 3),
        },
  computeMs: round(figures.computeMs, 0),
});

const output = {
  mode: MODE,
  seed: SEED,
  date,
  durationSeconds: round(seconds, 1),
  node: process.version,
  platform: `${process.platform} ${process.arch}`,
  cpus: os.availableParallelism(),
  cpuModel,
  settings: {
    fleetSizes: SIZES,
    sdkPolicy: { maxRetries: 2, wait: 'per scenario (waitMs)', attemptTimeoutMs: 30_000 },
    bucketMs: BUCKET_MS,
    spreadWindowMs: SPREAD_WINDOW_MS,
    spreadLimit: SPREAD_LIMIT,
    attemptsLimit: ATTEMPTS_LIMIT,
    idealCapMs: IDEAL_CAP_MS,
    scenarios: SCENARIOS.map((scenario) => ({
      ...scenario,
      faults: scenario.faults.map((fault) => ({
        ...fault,
        toMs: Number.isFinite(fault.toMs) ? fault.toMs : null,
      })),
    })),
  },
  results: results.map((result) => ({
    jobs: result.jobs,
    scenario: result.scenario.id,
    sdk: roundFigures(result.sdk),
    ideal: roundFigures(result.ideal),
    jobsThatDiffered: result.differed,
    verdicts: result.verdicts,
  })),
  passed,
  targets: allVerdicts.length,
};
const out = benchFile(SHORT ? './fleet-simulation-short.json' : './fleet-simulation.json');
writeFileSync(out, `${JSON.stringify(output, null, 2)}\n`);
// Formatted as the repo's formatter wants it, so `npm run lint` stays clean after a run.
spawnSync(benchFile('../node_modules/.bin/biome'), ['format', '--write', out], { stdio: 'ignore' });
console.log(`Results written to ${out}`);
