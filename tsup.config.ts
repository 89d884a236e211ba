import { defineConfig, type Options } from 'tsup';
import packageJson from './package.json' with { type: 'json' };
import { browserModules } from './scripts/browser-modules.ts';
import { CLI_LAUNCHER } from './scripts/cli-launcher.ts';

/** The namespaces that have a sub-path of their own (`@secrets-vault/sdk/vaults`, …). */
const NAMESPACES = ['vaults', 'secrets', 'teams', 'org', 'audit'] as const;
const namespaceEntries = Object.fromEntries(NAMESPACES.map((name) => [name, `src/${name}.ts`]));

/** The entries with declarations of their own: the root and the mock's two. */
const declaredEntries = {
  index: 'src/index.ts',
  'mock/index': 'src/mock/index.ts',
  'mock/node': 'src/mock/node.ts',
};

const neutral = {
  sourcemap: true,
  treeshake: true,
  target: 'es2022',
  platform: 'neutral',
  removeNodeProtocol: false,
  external: ['ky', 'zod', 'msw', /^node:/],
} satisfies Options;

export default defineConfig([
  {
    // Bundlers, workers and every runtime without a build of its own (the `import` condition):
    // ES modules that share the app's ky and zod. The root and the namespace sub-paths are built
    // together, so that they share one copy of the core (one `SecretsVaultError`) in chunks.
    ...neutral,
    entry: { ...declaredEntries, ...namespaceEntries },
    format: ['esm'],
    splitting: true,
    // The sub-paths' declarations re-export the root's (scripts/sub-paths.mjs).
    dts: { entry: declaredEntries },
  },
  {
    // The same for `require`: one file per entry (a sub-path's is a re-export of the root's,
    // written by scripts/sub-paths.mjs, so that every entry throws the same error classes).
    ...neutral,
    entry: declaredEntries,
    format: ['cjs'],
    dts: { entry: declaredEntries },
  },
  {
    // Web pages (the `browser` condition): as the build above, without what only a server needs
    // (scripts/browser-modules.ts), so that a dashboard downloads less.
    ...neutral,
    entry: { index: 'src/index.ts', ...namespaceEntries },
    outDir: 'dist/browser',
    format: ['esm'],
    splitting: true,
    dts: false,
    esbuildPlugins: [browserModules],
  },
  {
    // The TanStack Query options. The package root stays external (imported by name, never
    // bundled in): `queryRetry`'s `instanceof SecretsVaultError` must test the one class every
    // entry shares, and the declarations must name the root's types, not copies of them.
    entry: { 'query/index': 'src/query/index.ts' },
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    treeshake: true,
    target: 'es2022',
    platform: 'neutral',
    external: ['@secrets-vault/sdk'],
  },
  {
    // The OpenTelemetry spans: an entry of its own, so that only who imports it loads
    // `@opentelemetry/api` (external: the application's one copy holds the global tracer
    // provider, propagator and context). It takes nothing but types from the core.
    entry: { 'opentelemetry/index': 'src/opentelemetry/index.ts' },
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    treeshake: true,
    target: 'es2022',
    platform: 'neutral',
    external: ['@secrets-vault/sdk', '@opentelemetry/api'],
    // The tracer's version (the instrumentation scope's).
    define: { __SECRETS_VAULT_SDK_VERSION__: JSON.stringify(packageJson.version) },
  },
  {
    // The client for Node, Bun and Deno (the `node` export condition): ky and zod inlined and
    // tree-shaken into one file, which a process loads in a fraction of the time their ~60
    // modules take (docs/performance.md). Bundlers take the build above, sharing the app's ky
    // and zod. The types are the build above's. Its sub-paths re-export it
    // (scripts/sub-paths.mjs).
    entry: { 'node/index': 'src/index.ts' },
    format: ['esm', 'cjs'],
    splitting: false,
    dts: false,
    // Not minified, so a stack trace reads as it is; no source map of ky's and zod's sources.
    sourcemap: false,
    treeshake: true,
    target: 'node22',
    platform: 'node',
    removeNodeProtocol: false,
    noExternal: ['ky', 'zod'],
  },
  {
    // The `secrets-vault` command: Node only, one ESM file that starts as a shell script, so
    // that Node never reads the command's own `--env-file` (scripts/cli-launcher.ts says why).
    entry: { cli: 'src/cli/bin.ts' },
    format: ['esm'],
    splitting: false,
    sourcemap: false,
    // esbuild's tree-shaking alone: Rollup's would drop the launcher's second line (to it, a
    // string that does nothing), and the file would start Node through `sh` no more.
    treeshake: false,
    target: 'node22',
    platform: 'node',
    removeNodeProtocol: false,
    banner: { js: CLI_LAUNCHER },
    // Inlined as in the Node build above: a command starts once per run.
    noExternal: ['ky', 'zod'],
  },
]);
