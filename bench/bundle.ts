/**
 * Bundle size: two browser apps bundled with esbuild from the built package (dist/), minified,
 * ESM, platform browser, split at dynamic imports as web bundlers do, gzipped at level 9. `@secrets-vault/sdk` is resolved the way a
 * bundler resolves it from node_modules: through the package.json `exports` map with the
 * `browser` and `import` conditions (here by package self-reference, the repo being the
 * package), never through the repo's tsconfig paths to src/.
 *
 *   node bench/bundle.ts            prints the sizes and what went into each bundle
 *   node bench/bundle.ts --check    also exits 1 when an app is over its budget, or when a
 *                                   bundle holds the mock, the CLI or Node-only code
 */
import { relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';
import { benchFile } from './lib.ts';

/**
 * Gzipped bytes the one-call app may weigh through the package root (1 KB = 1,024 bytes): its
 * measured size rounded up to the next 0.05 KB, so that it cannot grow unnoticed. It went from
 * 29.10 KB to 25.55 KB when web pages got a build of their own (without the environment,
 * Node's system errors and the fast path of validation: 1.1 KB) and four zod features (record,
 * array, extend, the number and string checks) gave way to refinements and loops (2.1 KB), then
 * to 25.33 KB when scrubbing undid the server's escaping instead of listing encoders (0.2 KB),
 * then to 25.84 KB with the fourth security round (0.5 KB: refusing framing headers, scrubbing
 * every log record and header name, the startup wait as a deadline, the error brand that both
 * builds share); see docs/performance.md. 25.97 KB with the command's messages for shell users
 * and the cause on every log record, then 26.62 KB with the request path as one loop of its own
 * (0.65 KB: the retries, deadline and waits that ky ran before, the one interpretation of an
 * attempt, the senders' vocabulary, each method's operation name and the telemetry hooks), 26.66
 * KB measured later, then 26.02 KB when the startup calls' own code (reading references and
 * looking them up, building the loaded record and running its schema: 2.1 KB minified) came to
 * load on demand (0.54 KB) and the option checks and error fields lost bytes no user sees (0.1
 * KB), then 26.11 KB when a call without options came to reuse its client's settings and route
 * templates came to be split once (0.09 KB, for about a microsecond per call), then 26.14 KB when
 * a timeout came to name what the attempt before it failed with (0.03 KB), then 26.15 KB (26,774
 * bytes) when every wait came to run on a chain of timers, `AbortSignal.timeout()` to end a call
 * as a timeout, and throttling answers to back off from 1 s (paid for by writing `Infinity` as
 * such and drawing the backoff inline). Without the `telemetry` option, its hooks in the call
 * loop still weigh 0.20 KB. The goal is 25.5 KB.
 */
export const ONE_CALL_BUDGET_BYTES = 26.15 * 1024;

/**
 * The same call made the smallest documented way to use only vaults: `new Vaults(options)` from
 * `@secrets-vault/sdk/vaults`, 24.04 KB measured (24.02 KB before the chained timers and the
 * throttling backoff, 23.99 KB before a timeout named the attempt before it, 23.89 KB before
 * the per-client call settings and split templates, 23.98 KB before the option checks and error
 * fields lost bytes no user sees, 23.25 KB before the request path became one loop, 22.72 KB
 * before the fourth security round), rounded up likewise. The goal is 22.75 KB.
 */
export const VAULTS_ONLY_BUDGET_BYTES = 24.05 * 1024;

/** The budget of each app, where it has one. */
export const BUDGETS: Readonly<Record<string, number>> = {
  'one-call': ONE_CALL_BUDGET_BYTES,
  'vaults-only': VAULTS_ONLY_BUDGET_BYTES,
};

export interface BundleResult {
  readonly app: string;
  /** Minified bytes the app loads before its call: its entry and the chunks it imports. */
  readonly minifiedBytes: number;
  /** The same, gzipped file by file (as they travel), summed. */
  readonly gzipBytes: number;
  /**
   * Minified bytes of the chunks loaded only on demand (the startup calls' own code), not counted
   * above.
   */
  readonly lazyMinifiedBytes: number;
  /** Input files by bytes they contribute to what is loaded first, largest first. */
  readonly inputs: ReadonlyArray<{ readonly path: string; readonly bytes: number }>;
  /** What must not be in a browser bundle of the SDK but is. */
  readonly problems: readonly string[];
}

// `floor` is ky and zod/mini alone making the one call: the least any client on them weighs.
const APPS = ['one-call', 'vaults-only', 'floor'] as const;

// Inputs that must never reach a browser bundle of the package's main entry.
const FORBIDDEN_INPUTS: ReadonlyArray<[RegExp, string]> = [
  [/(^|\/)src\//, 'a source file (src/): the bundle was built from source, not from dist/'],
  [/(^|\/)dist\/mock\//, 'the mock (dist/mock/)'],
  [/(^|\/)dist\/cli\./, 'the CLI (dist/cli.js)'],
  [/(^|\/)dist\/(?!browser\/)/, "a file of another build than the browser's (dist/browser/)"],
  [/(^|\/)node_modules\/(msw|@mswjs)\//, 'msw'],
];
// Strings that betray the mock, the CLI or Node-only code in the output.
const FORBIDDEN_TEXT: ReadonlyArray<[RegExp, string]> = [
  [/["'`]node:[a-z_/]+["'`]/, 'an import of a node: module'],
  [/createVaultMock|serveVaultMock/, 'the mock (createVaultMock / serveVaultMock)'],
  [/\bmsw\b|setupServer|setupWorker/, 'msw'],
  [/secrets-vault run|exec node -- "\$0"/, 'the CLI'],
  [/ECONNREFUSED|SECRETS_VAULT_TIMEOUT/, 'server-only code (the environment, system errors)'],
];

/** An app's scripts as a web app's bundler splits them, with what esbuild says of them. */
export interface BundledScripts {
  readonly metafile: esbuild.Metafile;
  /** The entry and every chunk it imports statically: what loads before the app's call. */
  readonly initial: ReadonlySet<string>;
  /** Every script written, loaded first or on demand. */
  readonly scripts: readonly string[];
  /** The bytes of one output file (paths as in the metafile). */
  contents(path: string): Uint8Array;
}

/**
 * Bundles one app as a web app's bundler does: minified, split at dynamic imports (which
 * Vite, webpack, Rollup and Next.js all do), from the built package.
 */
export async function bundleScripts(app: (typeof APPS)[number]): Promise<BundledScripts> {
  const outdir = benchFile(`../node_modules/.cache/bundle-${app}`);
  const result = await esbuild.build({
    entryPoints: [benchFile(`./apps/${app}.ts`)],
    absWorkingDir: benchFile('..'),
    bundle: true,
    write: false,
    outdir,
    splitting: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    metafile: true,
    logLevel: 'silent',
    // An empty tsconfig: the repo's tsconfig maps @secrets-vault/sdk to src/ for type checking,
    // which a user's bundler never sees. Resolution then goes through package.json exports.
    tsconfigRaw: {},
  });
  const outputs = result.metafile.outputs;
  const files = new Map(
    result.outputFiles.map((file) => [relative(benchFile('..'), file.path), file]),
  );
  // The app's own entry (each chunk reached by a dynamic import is an entry point too).
  const entry = Object.keys(outputs).find(
    (path) => outputs[path]?.entryPoint === `bench/apps/${app}.ts`,
  );
  if (entry === undefined) throw new Error(`esbuild wrote nothing for ${app}`);
  const initial = new Set<string>();
  const pending = [entry];
  for (let path = pending.pop(); path !== undefined; path = pending.pop()) {
    if (initial.has(path)) continue;
    initial.add(path);
    for (const imported of outputs[path]?.imports ?? []) {
      if (imported.kind === 'import-statement' && outputs[imported.path])
        pending.push(imported.path);
    }
  }
  return {
    metafile: result.metafile,
    initial,
    scripts: Object.keys(outputs).filter((path) => path.endsWith('.js')),
    contents: (path) => files.get(path)?.contents ?? new Uint8Array(),
  };
}

/** Bundles one app (see {@link bundleScripts}) and measures what it loads before its call. */
export async function bundleApp(app: (typeof APPS)[number]): Promise<BundleResult> {
  const { metafile, initial, scripts, contents } = await bundleScripts(app);
  const outputs = metafile.outputs;
  const bytes = new Map<string, number>();
  for (const path of initial) {
    for (const [input, { bytesInOutput }] of Object.entries(outputs[path]?.inputs ?? {})) {
      bytes.set(input, (bytes.get(input) ?? 0) + bytesInOutput);
    }
  }
  const inputs = [...bytes]
    .map(([path, size]) => ({ path, bytes: size }))
    .filter((input) => input.bytes > 0)
    .sort((a, b) => b.bytes - a.bytes);

  const problems: string[] = [];
  const allInputs = Object.keys(metafile.inputs);
  for (const path of allInputs) {
    for (const [pattern, what] of FORBIDDEN_INPUTS) {
      if (pattern.test(path)) problems.push(`${what}: ${path}`);
    }
  }
  if (app !== 'floor' && !allInputs.some((path) => path.startsWith('dist/browser/'))) {
    problems.push('no file of dist/browser/ among the inputs: the built package was not measured');
  }
  for (const path of scripts) {
    const text = new TextDecoder().decode(contents(path));
    for (const [pattern, what] of FORBIDDEN_TEXT) {
      const found = pattern.exec(text);
      if (found) problems.push(`${what}: ${found[0]} in ${path}`);
    }
  }
  const sum = (paths: Iterable<string>, size: (path: string) => number) =>
    [...paths].reduce((total, path) => total + size(path), 0);
  return {
    app,
    minifiedBytes: sum(initial, (path) => contents(path).byteLength),
    gzipBytes: sum(initial, (path) => gzipSync(contents(path), { level: 9 }).byteLength),
    lazyMinifiedBytes: sum(
      scripts.filter((path) => !initial.has(path)),
      (path) => contents(path).byteLength,
    ),
    inputs,
    problems,
  };
}

/** Bundles every app. */
export async function measureBundles(): Promise<BundleResult[]> {
  const results: BundleResult[] = [];
  for (const app of APPS) results.push(await bundleApp(app));
  return results;
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(2)} KB`;

/** Groups inputs by package (ky, zod) or file (dist/…), with the bytes each contributes. */
function byOrigin(inputs: BundleResult['inputs']): Array<[string, number, number]> {
  const groups = new Map<string, [number, number]>();
  for (const { path, bytes } of inputs) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
    const origin = match?.[1] ?? path;
    const [total, files] = groups.get(origin) ?? [0, 0];
    groups.set(origin, [total + bytes, files + 1]);
  }
  return [...groups].map(([origin, [bytes, files]]) => [origin, bytes, files]);
}

if (import.meta.main) {
  const check = process.argv.includes('--check');
  const results = await measureBundles();
  let failed = false;
  for (const result of results) {
    console.log(
      `${result.app}: ${kb(result.gzipBytes)} gzip -9 (${kb(result.minifiedBytes)} minified; ${kb(result.lazyMinifiedBytes)} minified more loaded on demand)`,
    );
    for (const [origin, bytes, files] of byOrigin(result.inputs).sort((a, b) => b[1] - a[1])) {
      console.log(`  ${kb(bytes).padStart(10)} minified  ${origin} (${files} file(s))`);
    }
    for (const problem of result.problems) {
      console.log(`  FORBIDDEN: ${problem}`);
      failed = true;
    }
  }
  for (const result of results) {
    const budget = BUDGETS[result.app];
    if (budget !== undefined && result.gzipBytes > budget) {
      console.log(
        `${result.app} is ${kb(result.gzipBytes)} gzipped, over its budget of ${kb(budget)}`,
      );
      failed = true;
    }
  }
  if (check && failed) process.exit(1);
  if (check) {
    const budgets = Object.entries(BUDGETS).map(([app, budget]) => `${app} ${kb(budget)}`);
    console.log(`bundle check passed (budgets: ${budgets.join(', ')})`);
  }
}
