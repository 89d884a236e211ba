/**
 * The benchmark harness: what the SDK (the built package, dist/) costs over raw `fetch` +
 * `JSON.parse`, with ky alone as a second reference. Started by `npm run bench`, which builds
 * first and runs `node --expose-gc bench/run.ts`; `npm run bench -- --short` is the quick mode
 * CI runs to prove the harness still works (its timings are too rough to compare).
 *
 * It starts the loopback server (bench/server.ts) in a child process, measures per-request
 * cost, throughput, memory (bench/memory-job.ts children), cold start (bench/cold/ children)
 * and bundle size (bench/bundle.ts), prints a table, and writes bench/results.json
 * (bench/results-short.json in short mode). docs/performance.md explains every figure.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { SecretsVault } from '@secrets-vault/sdk';
import ky from 'ky';
import { BUDGETS, type BundleResult, measureBundles } from './bundle.ts';
import {
  CREATE_PARAMS,
  ONE_PAGE_VAULT_ID,
  PAGE_SIZE,
  TOKEN,
  VALUES_COUNT,
  VALUES_VAULT_ID,
  VAULT_ID,
} from './fixtures.ts';
import { benchFile, formatNumber, median, now, quantile, runNode, startServer } from './lib.ts';

const SHORT = process.argv.includes('--short');
const MODE = SHORT ? 'short' : 'full';

/** How much of everything to do: the full run, or the short one that only proves it works. */
const PLAN = SHORT
  ? {
      rounds: 5,
      requestsPerRound: { get: 100, list: 40, values: 10, create: 100 },
      warmupRounds: 2,
      throughputRounds: 3,
      throughputRequests: 500,
      memoryCheckpoints: [100, 1_000],
      coldRuns: 2,
    }
  : {
      rounds: 40,
      requestsPerRound: { get: 200, list: 100, values: 20, create: 150 },
      warmupRounds: 4,
      throughputRounds: 10,
      throughputRequests: 4_000,
      memoryCheckpoints: [10_000, 100_000],
      coldRuns: 20,
    };
const CONCURRENCY = [16, 64] as const;

type Name = 'sdk' | 'raw' | 'ky';
const NAMES: readonly Name[] = ['raw', 'sdk', 'ky'];
type Contenders = Record<Name, () => Promise<unknown>>;

interface Figure {
  readonly id: string;
  readonly label: string;
  readonly unit: string;
  readonly decimals: number;
  readonly sdk: number | null;
  readonly raw: number | null;
  readonly ky: number | null;
  /**
   * SDK/raw and ky/raw: the median over rounds of each round's ratio (a round's SDK block runs
   * right beside its raw block, so load that comes and goes between rounds cancels); null where
   * a ratio means nothing (sizes, heap growth near zero).
   */
  readonly sdkOverRaw: number | null;
  readonly kyOverRaw: number | null;
  /** Per-round values and their spread, for timings. */
  readonly detail?: Partial<Record<Name, { p25: number; p75: number; rounds: number[] }>>;
}

const gc = globalThis.gc;
const started = now();
const log = (message: string) => console.error(`[bench ${MODE}] ${message}`);
const cpus = os.cpus().length;
const loadAtStart = os.loadavg()[0] ?? 0;
if (gc === undefined)
  log('no global.gc (run with node --expose-gc): rounds start without a collection');
if (loadAtStart > cpus / 2) {
  log(`the machine is busy (load average ${loadAtStart.toFixed(2)} on ${cpus} CPUs): expect noise`);
}

// ---------------------------------------------------------------------------------------------

const server = await startServer();
const base = server.url;
const headers = { Accept: 'application/json', Authorization: `Bearer ${TOKEN}` };
const client = new SecretsVault({ baseUrl: base, token: TOKEN });
const api = ky.create({});

const rawJson = async (url: string, init?: RequestInit): Promise<unknown> =>
  JSON.parse(await (await fetch(url, { headers, ...init })).text());

const urls = {
  vault: `${base}/v1/vaults/${VAULT_ID}`,
  page: `${base}/v1/vaults/${ONE_PAGE_VAULT_ID}/secrets?limit=${PAGE_SIZE}`,
  values: `${base}/v1/vaults/${VALUES_VAULT_ID}/secrets/values`,
  create: `${base}/v1/vaults/${VAULT_ID}/secrets`,
};
const createHeaders = () => ({
  ...headers,
  'Content-Type': 'application/json',
  'Idempotency-Key': randomUUID(),
});

const calls = {
  get: {
    sdk: () => client.vaults.get(VAULT_ID),
    raw: () => rawJson(urls.vault),
    ky: () => api.get(urls.vault, { headers }).json(),
  },
  list: {
    sdk: () => client.secrets.list(ONE_PAGE_VAULT_ID, { limit: PAGE_SIZE }),
    raw: () => rawJson(urls.page),
    ky: () => api.get(urls.page, { headers }).json(),
  },
  values: {
    sdk: () => client.secrets.listValues(VALUES_VAULT_ID),
    raw: () => rawJson(urls.values),
    ky: () => api.get(urls.values, { headers }).json(),
  },
  create: {
    sdk: () => client.secrets.create(VAULT_ID, CREATE_PARAMS),
    raw: () =>
      rawJson(urls.create, {
        method: 'POST',
        headers: createHeaders(),
        body: JSON.stringify(CREATE_PARAMS),
      }),
    ky: () => api.post(urls.create, { headers: createHeaders(), json: CREATE_PARAMS }).json(),
  },
} satisfies Record<string, Contenders>;

// ---------------------------------------------------------------------------------------------

/** Checks once that every contender gets the answer it should, so no figure times a failure. */
async function verify(): Promise<void> {
  const expect = (ok: boolean, what: string) => {
    if (!ok) throw new Error(`bench self-check failed: ${what}`);
  };
  const vault = await calls.get.sdk();
  expect(vault.id === VAULT_ID, 'vaults.get');
  const page = await calls.list.sdk();
  expect(page.data.length === PAGE_SIZE && page.nextCursor === null, 'secrets.list one page');
  const values = await calls.values.sdk();
  expect(values.length === VALUES_COUNT, 'secrets.listValues');
  const created = await calls.create.sdk();
  expect(created.name === CREATE_PARAMS.name, 'secrets.create');
  for (const [figure, contenders] of Object.entries(calls)) {
    for (const name of ['raw', 'ky'] as const) {
      const body = (await contenders[name]()) as { statusCode?: unknown; data?: unknown };
      expect(body.statusCode === (figure === 'create' ? 201 : 200), `${name} ${figure}`);
    }
  }
}

/** The order of the contenders in round `round`: A B C, then C B A, so drift cancels. */
function order(round: number): readonly Name[] {
  return round % 2 === 0 ? NAMES : [...NAMES].reverse();
}

/** Microseconds per request of `count` sequential requests. */
async function sequential(run: () => Promise<unknown>, count: number): Promise<number> {
  gc?.();
  const start = now();
  for (let index = 0; index < count; index += 1) await run();
  return ((now() - start) * 1000) / count;
}

/** Requests per second of `total` requests made by `concurrency` workers at once. */
async function concurrent(
  run: () => Promise<unknown>,
  concurrency: number,
  total: number,
): Promise<number> {
  gc?.();
  let issued = 0;
  const worker = async () => {
    while (issued < total) {
      issued += 1;
      await run();
    }
  };
  const start = now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  return total / ((now() - start) / 1000);
}

/** Runs `measure` for each contender, interleaved over rounds after warm-up rounds. */
async function interleaved(
  contenders: Contenders,
  rounds: number,
  measure: (run: () => Promise<unknown>) => Promise<number>,
): Promise<Record<Name, number[]>> {
  for (let round = 0; round < PLAN.warmupRounds; round += 1) {
    for (const name of order(round)) await measure(contenders[name]);
  }
  const samples: Record<Name, number[]> = { sdk: [], raw: [], ky: [] };
  for (let round = 0; round < rounds; round += 1) {
    for (const name of order(round)) samples[name].push(await measure(contenders[name]));
  }
  return samples;
}

function timingFigure(
  id: string,
  label: string,
  unit: string,
  decimals: number,
  samples: Record<Name, number[]>,
): Figure {
  const detail: Figure['detail'] = {};
  for (const name of NAMES) {
    const values = samples[name];
    detail[name] = {
      p25: round(quantile(values, 0.25)),
      p75: round(quantile(values, 0.75)),
      rounds: values.map(round),
    };
  }
  return {
    id,
    label,
    unit,
    decimals,
    sdk: median(samples.sdk),
    raw: median(samples.raw),
    ky: median(samples.ky),
    sdkOverRaw: pairedRatio(samples.sdk, samples.raw),
    kyOverRaw: pairedRatio(samples.ky, samples.raw),
    detail,
  };
}

/** The median of the ratios of paired samples (round by round). */
function pairedRatio(values: readonly number[], references: readonly number[]): number {
  return median(values.map((value, index) => value / (references[index] ?? Number.NaN)));
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

// ---------------------------------------------------------------------------------------------

const figures: Figure[] = [];
let bundles: BundleResult[] = [];
let importOnly: Record<Name, number> | undefined;

try {
  log(`server at ${base}; checking the answers`);
  await verify();

  const perRequest = [
    ['get', 'vaults.get', 'vaults.get'],
    ['list', 'secrets.list', `secrets.list, one page of ${PAGE_SIZE}`],
    ['values', 'secrets.listValues', `secrets.listValues, ${VALUES_COUNT} values`],
    ['create', 'secrets.create', 'secrets.create'],
  ] as const;
  for (const [key, id, label] of perRequest) {
    const count = PLAN.requestsPerRound[key];
    log(`${label}: ${PLAN.rounds} rounds of ${count} sequential requests each`);
    const samples = await interleaved(calls[key], PLAN.rounds, (run) => sequential(run, count));
    figures.push(timingFigure(id, label, 'µs/request', 1, samples));
  }

  for (const concurrency of CONCURRENCY) {
    log(`vaults.get throughput at concurrency ${concurrency}`);
    const samples = await interleaved(calls.get, PLAN.throughputRounds, (run) =>
      concurrent(run, concurrency, PLAN.throughputRequests),
    );
    figures.push(
      timingFigure(
        `throughput-${concurrency}`,
        `vaults.get throughput, ${concurrency} concurrent`,
        'requests/s',
        0,
        samples,
      ),
    );
  }

  const checkpoints = PLAN.memoryCheckpoints;
  log(`memory: listing ${checkpoints.join(' and ')} items, in fresh --expose-gc processes`);
  const growth = {} as Record<Name, Record<string, number>>;
  for (const name of NAMES) {
    const { stdout } = await runNode(
      ['--expose-gc', benchFile('./memory-job.ts'), name, checkpoints.join(',')],
      { BENCH_BASE_URL: base },
    );
    growth[name] = JSON.parse(stdout) as Record<string, number>;
  }
  for (const count of checkpoints) {
    const kb = (name: Name) => (growth[name][count] ?? Number.NaN) / 1024;
    figures.push({
      id: `heap-${count}`,
      label: `Heap growth, ${count.toLocaleString('en-US')} items listed`,
      unit: 'KB',
      decimals: 0,
      sdk: kb('sdk'),
      raw: kb('raw'),
      ky: kb('ky'),
      sdkOverRaw: null,
      kyOverRaw: null,
    });
  }

  log(`cold start: ${PLAN.coldRuns} fresh processes of each job`);
  const jobs = {
    sdk: 'cold/sdk-job.js',
    raw: 'cold/raw-job.js',
    ky: 'cold/ky-job.js',
    'import-sdk': 'cold/import-sdk.js',
    'import-ky': 'cold/import-ky.js',
    empty: 'cold/empty.js',
  };
  const jobEnv = { BENCH_BASE_URL: base, BENCH_TOKEN: TOKEN, BENCH_VAULT_ID: VALUES_VAULT_ID };
  const jobNames = Object.keys(jobs) as Array<keyof typeof jobs>;
  const wall = Object.fromEntries(jobNames.map((job) => [job, [] as number[]])) as Record<
    keyof typeof jobs,
    number[]
  >;
  // One unmeasured run of each first: the files are then in the OS cache for every job alike.
  for (let run = SHORT ? 0 : -1; run < PLAN.coldRuns; run += 1) {
    const turn = run < 0 ? 0 : run % jobNames.length;
    const rotated = [...jobNames.slice(turn), ...jobNames.slice(0, turn)];
    for (const job of rotated) {
      const { ms } = await runNode([benchFile(`./${jobs[job]}`)], jobEnv);
      if (run >= 0) wall[job].push(ms);
    }
  }
  const cold = (job: keyof typeof jobs) => median(wall[job]);
  const coldRatio = (job: keyof typeof jobs, reference: keyof typeof jobs) =>
    pairedRatio(wall[job], wall[reference]);
  figures.push({
    id: 'cold-start',
    label: `Cold start: import, client, load ${VALUES_COUNT} values`,
    unit: 'ms',
    decimals: 1,
    sdk: cold('sdk'),
    raw: cold('raw'),
    ky: cold('ky'),
    sdkOverRaw: coldRatio('sdk', 'raw'),
    kyOverRaw: coldRatio('ky', 'raw'),
  });
  figures.push({
    id: 'import-only',
    label: 'Process that only imports (raw: imports nothing)',
    unit: 'ms',
    decimals: 1,
    sdk: cold('import-sdk'),
    raw: cold('empty'),
    ky: cold('import-ky'),
    sdkOverRaw: coldRatio('import-sdk', 'empty'),
    kyOverRaw: coldRatio('import-ky', 'empty'),
  });
  importOnly = {
    sdk: cold('import-sdk') - cold('empty'),
    raw: 0,
    ky: cold('import-ky') - cold('empty'),
  };

  log('bundle size');
  bundles = await measureBundles();
  // The floor app (ky and zod/mini alone) goes in the ky column of the one-call row.
  const floor = bundles.find((bundle) => bundle.app === 'floor');
  for (const bundle of bundles) {
    if (bundle === floor) continue;
    figures.push({
      id: `bundle-${bundle.app}`,
      label: `Browser bundle, ${bundle.app} app (gzip -9)`,
      unit: 'KB',
      decimals: 2,
      sdk: bundle.gzipBytes / 1024,
      raw: null,
      ky: bundle.app === 'one-call' && floor ? floor.gzipBytes / 1024 : null,
      sdkOverRaw: null,
      kyOverRaw: null,
    });
  }
} finally {
  await server.stop();
}

// ---------------------------------------------------------------------------------------------

const ratio = (figure: Figure, name: 'sdk' | 'ky'): string => {
  const value = name === 'sdk' ? figure.sdkOverRaw : figure.kyOverRaw;
  return value === null || !Number.isFinite(value) ? '—' : `${value.toFixed(2)}×`;
};

const header = ['Figure', 'Unit', 'SDK', 'raw fetch', 'ky', 'SDK/raw', 'ky/raw'];
const rows = figures.map((figure) => [
  figure.label,
  figure.unit,
  formatNumber(figure.sdk, figure.decimals),
  formatNumber(figure.raw, figure.decimals),
  formatNumber(figure.ky, figure.decimals),
  ratio(figure, 'sdk'),
  ratio(figure, 'ky'),
]);
const widths = header.map((title, column) =>
  Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
);
const line = (cells: readonly string[]) =>
  `| ${cells
    .map((cell, column) =>
      column < 2 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0),
    )
    .join(' | ')} |`;
// Markdown alignment: the two text columns to the left, the numbers to the right.
const separator = line(
  widths.map((width, column) => (column < 2 ? '-'.repeat(width) : `${'-'.repeat(width - 1)}:`)),
);

const seconds = (now() - started) / 1000;
console.log('');
console.log(line(header));
console.log(separator);
for (const row of rows) console.log(line(row));
console.log('');
if (importOnly) {
  console.log(
    `Import alone, over an empty process: SDK +${importOnly.sdk.toFixed(1)} ms, ky +${importOnly.ky.toFixed(1)} ms.`,
  );
}
console.log(
  `Throughput rows are requests per second: a ratio below 1 there means fewer requests per second.`,
);
console.log(
  `Node ${process.version}, ${cpus} CPUs (load ${loadAtStart.toFixed(2)} at start), ${MODE} mode, ${seconds.toFixed(0)} s.` +
    (SHORT ? ' Short-mode timings are rough: they prove the harness runs, nothing more.' : ''),
);

const problems = bundles.flatMap((bundle) => bundle.problems.map((p) => `${bundle.app}: ${p}`));
for (const problem of problems) console.log(`FORBIDDEN in a bundle: ${problem}`);

const results = {
  mode: MODE,
  date: new Date().toISOString(),
  durationSeconds: Math.round(seconds),
  node: process.version,
  v8: process.versions.v8,
  platform: `${process.platform} ${process.arch}`,
  cpus,
  cpuModel: os.cpus()[0]?.model ?? 'unknown',
  loadAverage: { atStart: round(loadAtStart), atEnd: round(os.loadavg()[0] ?? 0) },
  plan: PLAN,
  figures: figures.map((figure) => ({
    id: figure.id,
    label: figure.label,
    unit: figure.unit,
    sdk: figure.sdk === null ? null : round(figure.sdk),
    raw: figure.raw === null ? null : round(figure.raw),
    ky: figure.ky === null ? null : round(figure.ky),
    sdkOverRaw: figure.sdkOverRaw === null ? null : round(figure.sdkOverRaw),
    kyOverRaw: figure.kyOverRaw === null ? null : round(figure.kyOverRaw),
    ...(figure.detail ? { detail: figure.detail } : {}),
  })),
  importOnlyMs: importOnly ? { sdk: round(importOnly.sdk), ky: round(importOnly.ky) } : null,
  bundles: bundles.map(({ app, minifiedBytes, gzipBytes, inputs, problems }) => ({
    app,
    minifiedBytes,
    gzipBytes,
    budgetBytes: BUDGETS[app] ?? null,
    inputs,
    problems,
  })),
};
const out = benchFile(SHORT ? './results-short.json' : './results.json');
writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
// Formatted as the repo's formatter wants it, so `npm run lint` stays clean after a run.
spawnSync(benchFile('../node_modules/.bin/biome'), ['format', '--write', out], { stdio: 'ignore' });
console.log(`Results written to ${out}`);
if (problems.length > 0) process.exitCode = 1;
