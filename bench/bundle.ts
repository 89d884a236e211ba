/**
 * Bundle size: two browser apps bundled with esbuild from the built package (dist/), minified,
 * ESM, platform browser, gzipped at level 9. `@secrets-vault/sdk` is resolved the way a
 * bundler resolves it from node_modules: through the package.json `exports` map with the
 * `browser` and `import` conditions (here by package self-reference, the repo being the
 * package), never through the repo's tsconfig paths to src/.
 *
 *   node bench/bundle.ts            prints the sizes and what went into each bundle
 *   node bench/bundle.ts --check    also exits 1 when the one-call app is over its budget, or
 *                                   when a bundle holds the mock, the CLI or Node-only code
 */
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';
import { benchFile } from './lib.ts';

/**
 * Gzipped bytes the one-call app may weigh (1 KB = 1,024 bytes): its measured size rounded up to
 * the next 0.5 KB, so that it cannot grow unnoticed. Raised from 27.5 KB to 28 KB when the
 * startup policy (the `wait` deadline, Retry-After as a floor with a spread, the environment
 * knobs) added 0.45 KB to 27.65 KB, and to 29 KB when hardening against hostile servers and
 * vault contents (every common encoding scrubbed from errors and headers, redaction that holds
 * for frozen output, bounded references and lists) added 1.16 KB to 28.81 KB, and to 29.5 KB
 * when telling a runtime's network failure from a custom fetch's own error, and reading a body
 * that has no stream, added 0.29 KB to 29.10 KB. Most of that sits
 * in the startup module and the scrubbing, which an app that never loads secrets could leave
 * out once namespaces are built as separate entries. The goal of 18 KB is out of reach
 * with ky and zod: the same call made with ky and zod/mini alone (apps/floor.ts) weighs 13.5 KB,
 * which would leave 4.5 KB for all of the SDK's own code, 12.3 KB today (docs/performance.md).
 */
export const ONE_CALL_BUDGET_BYTES = 29.5 * 1024;

export interface BundleResult {
  readonly app: string;
  readonly minifiedBytes: number;
  readonly gzipBytes: number;
  /** Input files by bytes they contribute to the output, largest first (paths from the repo). */
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
  [/(^|\/)node_modules\/(msw|@mswjs)\//, 'msw'],
];
// Strings that betray the mock, the CLI or Node-only code in the output.
const FORBIDDEN_TEXT: ReadonlyArray<[RegExp, string]> = [
  [/["'`]node:[a-z_/]+["'`]/, 'an import of a node: module'],
  [/createVaultMock|serveVaultMock/, 'the mock (createVaultMock / serveVaultMock)'],
  [/\bmsw\b|setupServer|setupWorker/, 'msw'],
  [/secrets-vault run|#!\/usr\/bin\/env node/, 'the CLI'],
];

/** Bundles one app and checks what went in. */
export async function bundleApp(app: (typeof APPS)[number]): Promise<BundleResult> {
  const result = await esbuild.build({
    entryPoints: [benchFile(`./apps/${app}.ts`)],
    absWorkingDir: benchFile('..'),
    bundle: true,
    write: false,
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
  const [output] = result.outputFiles;
  if (output === undefined) throw new Error(`esbuild wrote nothing for ${app}`);
  const [meta] = Object.values(result.metafile.outputs);
  const inputs = Object.entries(meta?.inputs ?? {})
    .map(([path, { bytesInOutput }]) => ({ path, bytes: bytesInOutput }))
    .sort((a, b) => b.bytes - a.bytes);

  const problems: string[] = [];
  const allInputs = Object.keys(result.metafile.inputs);
  for (const path of allInputs) {
    for (const [pattern, what] of FORBIDDEN_INPUTS) {
      if (pattern.test(path)) problems.push(`${what}: ${path}`);
    }
  }
  if (app !== 'floor' && !allInputs.includes('dist/index.js')) {
    problems.push('dist/index.js is not among the inputs: the built package was not measured');
  }
  for (const [pattern, what] of FORBIDDEN_TEXT) {
    const found = pattern.exec(output.text);
    if (found) problems.push(`${what}: ${found[0]} in the output`);
  }
  return {
    app,
    minifiedBytes: output.contents.byteLength,
    gzipBytes: gzipSync(output.contents, { level: 9 }).byteLength,
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
      `${result.app}: ${kb(result.gzipBytes)} gzip -9 (${kb(result.minifiedBytes)} minified)`,
    );
    for (const [origin, bytes, files] of byOrigin(result.inputs).sort((a, b) => b[1] - a[1])) {
      console.log(`  ${kb(bytes).padStart(10)} minified  ${origin} (${files} file(s))`);
    }
    for (const problem of result.problems) {
      console.log(`  FORBIDDEN: ${problem}`);
      failed = true;
    }
  }
  const oneCall = results.find((result) => result.app === 'one-call');
  if (oneCall && oneCall.gzipBytes > ONE_CALL_BUDGET_BYTES) {
    console.log(
      `one-call is ${kb(oneCall.gzipBytes)} gzipped, over its budget of ${kb(ONE_CALL_BUDGET_BYTES)}`,
    );
    failed = true;
  }
  if (check && failed) process.exit(1);
  if (check) console.log(`bundle check passed (budget ${kb(ONE_CALL_BUDGET_BYTES)})`);
}
