/**
 * The benchmark harness: what the SDK (the built package, dist/) costs over raw `fetch` +
 * `JSON.parse`, with ky alone as a second reference, node:http by hand as the floor of Node, ky
 * on node:http as the floor of any client built on ky, the SDK's browser build, and three other
 * vendors' clients (stripe-node, openai, @octokit/core, in bench/peers/) making the same four
 * requests. Started by `npm run bench`, which builds first and runs `node --expose-gc
 * bench/run.ts`; `npm run bench -- --short` is the quick mode CI runs to prove the harness still
 * works (its timings are too rough to compare); `--only job` runs the job figures alone.
 *
 * It starts the loopback server (bench/server.ts) in a child process, measures per-request
 * cost, throughput, memory (bench/memory-job.ts children), cold start (bench/cold/ children),
 * bundle size (bench/bundle.ts) and what a `secrets-vault run` job costs (bench/job.ts), prints
 * tables, and writes bench/results.json (bench/results-short.json in short mode; with `--only
 * job`, only the file's `job` entry is replaced). docs/performance.md explains every figure.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { SecretsVault } from '@secrets-vault/sdk';
import ky from 'ky';
import { BUDGETS, type BundleResult, measureBundles } from './bundle.ts';
import {
  CREATE_PARAMS,
  ONE_PAGE_VAULT_ID,
  PAGE_SIZE,
  PATHS,
  TOKEN,
  VALUES_COUNT,
  VALUES_VAULT_ID,
  VAULT_ID,
} from './fixtures.ts';
import { JOB_NAMES, JOB_TITLES, type JobResult, jobsSupported, measureJobs } from './job.ts';
import {
  benchFile,
  formatNumber,
  markdownTable,
  median,
  now,
  quantile,
  runNode,
  startServer,
} from './lib.ts';
import { httpCalls } from './peers/http.ts';
import { kyHttpCalls } from './peers/ky-http.ts';
import { octokitCalls } from './peers/octokit.ts';
import { openaiCalls } from './peers/openai.ts';
import { sdkBrowserCalls } from './peers/sdk-browser.ts';
import { stripeCalls } from './peers/stripe.ts';

const SHORT = process.argv.includes('--short');
const MODE = SHORT ? 'short' : 'full';
/** `--only job`: the job figures alone (the other parts take minutes, this one under one). */
const ONLY = onlyPart(process.argv);

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
      job: { rounds: 3, warmupRounds: 1, settleMs: 50 },
    }
  : {
      rounds: 40,
      requestsPerRound: { get: 200, list: 100, values: 20, create: 150 },
      warmupRounds: 4,
      throughputRounds: 10,
      throughputRequests: 4_000,
      memoryCheckpoints: [10_000, 100_000],
      coldRuns: 20,
      job: { rounds: 20, warmupRounds: 2, settleMs: 250 },
    };
const CONCURRENCY = [16, 64] as const;

/** Every contender, in the order of the tables' columns. */
const NAMES = [
  'raw',
  'http',
  'sdk',
  'sdk-browser',
  'ky',
  'ky-http',
  'stripe',
  'openai',
  'octokit',
] as const;
type Name = (typeof NAMES)[number];
type Contenders = Record<Name, () => Promise<unknown>>;
const TITLES: Record<Name, string> = {
  raw: 'raw fetch',
  http: 'node:http',
  sdk: 'SDK',
  'sdk-browser': 'SDK browser',
  ky: 'ky',
  'ky-http': 'ky on node:http',
  stripe: 'stripe',
  openai: 'openai',
  octokit: 'octokit',
};
/** The ratio table's column of each contender (over raw fetch). */
const RATIO_TITLES: Record<Exclude<Name, 'raw'>, string> = {
  http: 'http/raw',
  sdk: 'SDK/raw',
  'sdk-browser': 'browser/raw',
  ky: 'ky/raw',
  'ky-http': 'ky-http/raw',
  stripe: 'stripe/raw',
  openai: 'openai/raw',
  octokit: 'octokit/raw',
};

interface Figure {
  readonly id: string;
  readonly label: string;
  readonly unit: string;
  readonly decimals: number;
  /** Each contender's figure (for timings, the median of its rounds); absent: not measured. */
  readonly values: Partial<Record<Name, number>>;
  /**
   * Each contender over raw fetch: the median over rounds of each round's ratio (every
   * contender's block runs in the same round as raw's, so load that comes and goes between
   * rounds cancels); absent where a ratio means nothing (sizes, heap growth near zero).
   */
  readonly overRaw: Partial<Record<Name, number>>;
  /** The SDK's browser build over ky alone, the same way. */
  readonly browserOverKy?: number;
  /**
   * The SDK over ky on node:http, the same way: the floor of a client whose every attempt goes
   * through ky (for throughput, below 1 means fewer requests per second than the floor).
   */
  readonly sdkOverFloor?: number;
  /** Per-round values and their spread, for timings. */
  readonly detail?: Partial<Record<Name, { p25: number; p75: number; rounds: number[] }>>;
}

/** The part named by `--only <part>`, if any; only `job` can run alone. */
function onlyPart(argv: readonly string[]): 'job' | undefined {
  const index = argv.indexOf('--only');
  if (index === -1) return undefined;
  const part = argv[index + 1];
  if (part !== 'job') {
    console.error(`bench: --only takes a part that can run alone: job (got ${part ?? 'nothing'})`);
    process.exit(2);
  }
  return part;
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
const browser = await sdkBrowserCalls(base);
const peers = {
  http: httpCalls(base),
  'ky-http': kyHttpCalls(base),
  stripe: stripeCalls(base),
  openai: openaiCalls(base),
  octokit: octokitCalls(base),
};

const rawJson = async (url: string, init?: RequestInit): Promise<unknown> =>
  JSON.parse(await (await fetch(url, { headers, ...init })).text());

const urls = {
  vault: `${base}${PATHS.vault}`,
  page: `${base}${PATHS.page}`,
  values: `${base}${PATHS.values}`,
  create: `${base}${PATHS.create}`,
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
    'sdk-browser': browser.get,
    http: peers.http.get,
    'ky-http': peers['ky-http'].get,
    stripe: peers.stripe.get,
    openai: peers.openai.get,
    octokit: peers.octokit.get,
  },
  list: {
    sdk: () => client.secrets.list(ONE_PAGE_VAULT_ID, { limit: PAGE_SIZE }),
    raw: () => rawJson(urls.page),
    ky: () => api.get(urls.page, { headers }).json(),
    'sdk-browser': browser.list,
    http: peers.http.list,
    'ky-http': peers['ky-http'].list,
    stripe: peers.stripe.list,
    openai: peers.openai.list,
    octokit: peers.octokit.list,
  },
  values: {
    sdk: () => client.secrets.listValues(VALUES_VAULT_ID),
    raw: () => rawJson(urls.values),
    ky: () => api.get(urls.values, { headers }).json(),
    'sdk-browser': browser.values,
    http: peers.http.values,
    'ky-http': peers['ky-http'].values,
    stripe: peers.stripe.values,
    openai: peers.openai.values,
    octokit: peers.octokit.values,
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
    'sdk-browser': browser.create,
    http: peers.http.create,
    'ky-http': peers['ky-http'].create,
    stripe: peers.stripe.create,
    openai: peers.openai.create,
    octokit: peers.octokit.create,
  },
} satisfies Record<string, Contenders>;

// ---------------------------------------------------------------------------------------------

/** Checks once that every contender gets the answer it should, so no figure times a failure. */
async function verify(): Promise<void> {
  const expect = (ok: boolean, what: string) => {
    if (!ok) throw new Error(`bench self-check failed: ${what}`);
  };
  const sdks = {
    sdk: {
      get: calls.get.sdk,
      list: calls.list.sdk,
      values: calls.values.sdk,
      create: calls.create.sdk,
    },
    'sdk-browser': browser,
  };
  for (const [name, sdk] of Object.entries(sdks)) {
    const vault = await sdk.get();
    expect(vault.id === VAULT_ID, `${name} vaults.get`);
    const page = await sdk.list();
    expect(page.data.length === PAGE_SIZE && page.nextCursor === null, `${name} secrets.list`);
    const values = await sdk.values();
    expect(values.length === VALUES_COUNT, `${name} secrets.listValues`);
    const created = await sdk.create();
    expect(created.name === CREATE_PARAMS.name, `${name} secrets.create`);
  }
  // The others give the envelope as the server sent it.
  const items = { get: null, list: PAGE_SIZE, values: VALUES_COUNT, create: null };
  for (const [figure, contenders] of Object.entries(calls)) {
    for (const name of ['raw', 'http', 'ky', 'ky-http', 'stripe', 'openai', 'octokit'] as const) {
      const body = (await contenders[name]()) as { statusCode?: unknown; data?: unknown };
      const count = items[figure as keyof typeof items];
      expect(
        body.statusCode === (figure === 'create' ? 201 : 200) &&
          (count === null || (Array.isArray(body.data) && body.data.length === count)),
        `${name} ${figure}`,
      );
    }
  }
}

/**
 * The order of the contenders in round `round`: rotated by one every other round, and
 * reversed in every odd round (A B C D, D C B A, B C D A, A D C B, …). Each pair of rounds
 * puts every contender at the same mean position, so drift within a round favours none, and
 * the rotation changes who runs next to whom.
 */
function order(round: number): readonly Name[] {
  const turn = Math.floor(round / 2) % NAMES.length;
  const rotated = [...NAMES.slice(turn), ...NAMES.slice(0, turn)];
  return round % 2 === 0 ? rotated : rotated.reverse();
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
  const samples = Object.fromEntries(NAMES.map((name) => [name, [] as number[]])) as Record<
    Name,
    number[]
  >;
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
  const values: Figure['values'] = {};
  const overRaw: Figure['overRaw'] = {};
  for (const name of NAMES) {
    values[name] = median(samples[name]);
    if (name !== 'raw') overRaw[name] = pairedRatio(samples[name], samples.raw);
  }
  return {
    id,
    label,
    unit,
    decimals,
    values,
    overRaw,
    browserOverKy: pairedRatio(samples['sdk-browser'], samples.ky),
    sdkOverFloor: pairedRatio(samples.sdk, samples['ky-http']),
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
let importOnly: { sdk: number; ky: number } | undefined;
let jobResult: JobResult | undefined;

try {
  log(`server at ${base}`);
  if (ONLY === undefined) await measureCalls();
  if (jobsSupported()) {
    log(
      `job: ${PLAN.job.rounds} rounds of a raw script, secrets-vault run and run --exec, each starting a command`,
    );
    jobResult = await measureJobs({
      baseUrl: base,
      token: TOKEN,
      vaultId: VALUES_VAULT_ID,
      probe: { variable: 'SERVICE_0500_HOST', value: 'db-0500.internal.example.com' },
      ...PLAN.job,
    });
  } else {
    log(`job: skipped (it needs Linux, for /bin/sh and /proc; this is ${process.platform})`);
  }
} finally {
  await server.stop();
}

/** The figures of single calls, throughput, memory, cold start and bundles. */
async function measureCalls(): Promise<void> {
  log('checking the answers');
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
        `Throughput, ${concurrency} concurrent`,
        'requests/s',
        0,
        samples,
      ),
    );
  }

  const checkpoints = PLAN.memoryCheckpoints;
  log(`memory: listing ${checkpoints.join(' and ')} items, in fresh --expose-gc processes`);
  const memoryNames = ['raw', 'sdk', 'ky'] as const;
  const growth = {} as Record<(typeof memoryNames)[number], Record<string, number>>;
  for (const name of memoryNames) {
    const { stdout } = await runNode(
      ['--expose-gc', benchFile('./memory-job.ts'), name, checkpoints.join(',')],
      { BENCH_BASE_URL: base },
    );
    growth[name] = JSON.parse(stdout) as Record<string, number>;
  }
  for (const count of checkpoints) {
    const kb = (name: (typeof memoryNames)[number]) => (growth[name][count] ?? Number.NaN) / 1024;
    figures.push({
      id: `heap-${count}`,
      label: `Heap growth, ${count.toLocaleString('en-US')} items listed`,
      unit: 'KB',
      decimals: 0,
      values: { sdk: kb('sdk'), raw: kb('raw'), ky: kb('ky') },
      overRaw: {},
    });
  }

  log(`cold start: ${PLAN.coldRuns} fresh processes of each job`);
  const jobs = {
    sdk: 'cold/sdk-job.js',
    raw: 'cold/raw-job.js',
    http: 'cold/http-job.js',
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
  // Each a median over fresh processes: one process's time is too noisy to stand alone.
  const cold = (job: keyof typeof jobs) => median(wall[job]);
  const coldRatio = (job: keyof typeof jobs, reference: keyof typeof jobs) =>
    pairedRatio(wall[job], wall[reference]);
  figures.push({
    id: 'cold-start',
    label: `Cold start, ${VALUES_COUNT} values loaded`,
    unit: 'ms',
    decimals: 1,
    values: { sdk: cold('sdk'), raw: cold('raw'), http: cold('http'), ky: cold('ky') },
    overRaw: {
      sdk: coldRatio('sdk', 'raw'),
      http: coldRatio('http', 'raw'),
      ky: coldRatio('ky', 'raw'),
    },
  });
  figures.push({
    id: 'import-only',
    label: 'Import only (raw: empty process)',
    unit: 'ms',
    decimals: 1,
    values: { sdk: cold('import-sdk'), raw: cold('empty'), ky: cold('import-ky') },
    overRaw: { sdk: coldRatio('import-sdk', 'empty'), ky: coldRatio('import-ky', 'empty') },
  });
  importOnly = {
    sdk: cold('import-sdk') - cold('empty'),
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
      label: `Bundle, ${bundle.app} app (gzip -9)`,
      unit: 'KB',
      decimals: 2,
      values: {
        sdk: bundle.gzipBytes / 1024,
        ...(bundle.app === 'one-call' && floor ? { ky: floor.gzipBytes / 1024 } : {}),
      },
      overRaw: {},
    });
  }
}

// ---------------------------------------------------------------------------------------------

const ratio = (value: number | undefined): string =>
  value === undefined || !Number.isFinite(value) ? '—' : `${value.toFixed(2)}×`;

// Two tables, to stay readable at nine contenders: what each measured, then each over raw
// fetch (only the figures where a ratio means something).
const valueTable = markdownTable(
  ['Figure', 'Unit', ...NAMES.map((name) => TITLES[name])],
  figures.map((figure) => [
    figure.label,
    figure.unit,
    ...NAMES.map((name) => formatNumber(figure.values[name] ?? null, figure.decimals)),
  ]),
  2,
);
const ratioNames = NAMES.filter((name) => name !== 'raw');
const ratioTable = markdownTable(
  ['Figure', ...ratioNames.map((name) => RATIO_TITLES[name]), 'browser/ky', 'SDK/floor'],
  figures
    .filter((figure) => Object.keys(figure.overRaw).length > 0)
    .map((figure) => [
      figure.label,
      ...ratioNames.map((name) => ratio(figure.overRaw[name])),
      ratio(figure.browserOverKy),
      ratio(figure.sdkOverFloor),
    ]),
  1,
);

// The job figures have contenders of their own (three ways to run one command): a table of their
// own, values and ratios to the raw script side by side.
const jobTable = jobResult
  ? markdownTable(
      ['Job figure', 'Unit', ...JOB_NAMES.map((name) => JOB_TITLES[name]), 'run/raw', 'exec/raw'],
      [
        [
          'Job: time until the command starts, median',
          'ms',
          ...JOB_NAMES.map((name) => formatNumber(jobResult?.startMs[name].median ?? null, 1)),
          ratio(jobResult.startOverRaw.run),
          ratio(jobResult.startOverRaw.exec),
        ],
        [
          'Job: time until the command starts, p75',
          'ms',
          ...JOB_NAMES.map((name) => formatNumber(jobResult?.startMs[name].p75 ?? null, 1)),
          '—',
          '—',
        ],
        [
          'Job: resident while the command runs',
          'MB',
          ...JOB_NAMES.map((name) => formatNumber(jobResult?.residentMb[name].median ?? null, 1)),
          ratio(jobResult.residentOverRaw.run),
          ratio(jobResult.residentOverRaw.exec),
        ],
      ],
      2,
    )
  : [];

const seconds = (now() - started) / 1000;
console.log('');
if (figures.length > 0) {
  for (const row of valueTable) console.log(row);
  console.log('');
  for (const row of ratioTable) console.log(row);
  console.log('');
}
if (importOnly) {
  console.log(
    `Import alone, over an empty process: SDK +${importOnly.sdk.toFixed(1)} ms, ky +${importOnly.ky.toFixed(1)} ms.`,
  );
}
if (figures.length > 0) {
  console.log(
    `Ratios are medians of per-round ratios (browser/ky: the SDK's browser build over ky alone; SDK/floor: the SDK over ky on node:http).`,
  );
  console.log(
    `Throughput rows are requests per second: a ratio below 1 there means fewer requests per second.`,
  );
  console.log(`The ky column of the one-call bundle row is the floor app: ky and zod/mini alone.`);
}
if (jobResult) {
  if (figures.length > 0) console.log('');
  for (const row of jobTable) console.log(row);
  console.log('');
  console.log(
    `Jobs load ${VALUES_COUNT} values and start /bin/sh, which prints a line and execs sleep; resident: VmRSS of every process of the job but the command (0 with --exec: the command has the job's pid).`,
  );
}
console.log(
  `Node ${process.version}, ${cpus} CPUs (load ${loadAtStart.toFixed(2)} at start), ${MODE} mode, ${seconds.toFixed(0)} s.` +
    (SHORT ? ' Short-mode timings are rough: they prove the harness runs, nothing more.' : ''),
);

const problems = bundles.flatMap((bundle) => bundle.problems.map((p) => `${bundle.app}: ${p}`));
for (const problem of problems) console.log(`FORBIDDEN in a bundle: ${problem}`);

const rounded = (record: Partial<Record<Name, number>>) =>
  Object.fromEntries(
    NAMES.filter((name) => record[name] !== undefined).map((name) => [
      name,
      round(record[name] ?? Number.NaN),
    ]),
  );

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
  contenders: TITLES,
  figures: figures.map((figure) => ({
    id: figure.id,
    label: figure.label,
    unit: figure.unit,
    values: rounded(figure.values),
    overRaw: rounded(figure.overRaw),
    ...(figure.browserOverKy === undefined
      ? {}
      : { sdkBrowserOverKy: round(figure.browserOverKy) }),
    ...(figure.sdkOverFloor === undefined ? {} : { sdkOverFloor: round(figure.sdkOverFloor) }),
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
  job: jobEntry(),
};

/**
 * The job figures as results.json keeps them, with the run they come from: with `--only job`
 * they replace the `job` entry of the last run's file and nothing else, so they say their own.
 */
function jobEntry() {
  if (jobResult === undefined) return null;
  const figure = (
    id: string,
    label: string,
    unit: string,
    samples: JobResult['startMs'],
    overRaw: JobResult['startOverRaw'],
  ) => ({
    id,
    label,
    unit,
    values: Object.fromEntries(JOB_NAMES.map((name) => [name, samples[name].median])),
    p75: Object.fromEntries(JOB_NAMES.map((name) => [name, samples[name].p75])),
    overRaw,
    detail: samples,
  });
  return {
    measuredIn: ONLY === undefined ? `${MODE} run` : `${MODE} run, --only job`,
    date: new Date().toISOString(),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    cpus,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    loadAverage: { atStart: round(loadAtStart), atEnd: round(os.loadavg()[0] ?? 0) },
    plan: PLAN.job,
    contenders: JOB_TITLES,
    commands: jobResult.commands,
    figures: [
      figure(
        'job-start',
        'Job: time until the command starts',
        'ms',
        jobResult.startMs,
        jobResult.startOverRaw,
      ),
      figure(
        'job-resident',
        'Job: resident while the command runs',
        'MB',
        jobResult.residentMb,
        jobResult.residentOverRaw,
      ),
    ],
  };
}

const out = benchFile(SHORT ? './results-short.json' : './results.json');
// A run of one part keeps every other figure of the file as the last whole run left it.
const kept =
  ONLY !== undefined && existsSync(out)
    ? { ...(JSON.parse(readFileSync(out, 'utf8')) as object), job: results.job }
    : results;
writeFileSync(out, `${JSON.stringify(kept, null, 2)}\n`);
// Formatted as the repo's formatter wants it, so `npm run lint` stays clean after a run.
spawnSync(benchFile('../node_modules/.bin/biome'), ['format', '--write', out], { stdio: 'ignore' });
console.log(`Results written to ${out}`);
if (problems.length > 0) process.exitCode = 1;
