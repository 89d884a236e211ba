import { defineConfig } from 'tsup';

export default defineConfig([
  {
    entry: {
      index: 'src/index.ts',
      'mock/index': 'src/mock/index.ts',
      'mock/node': 'src/mock/node.ts',
    },
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    treeshake: true,
    target: 'es2022',
    platform: 'neutral',
    removeNodeProtocol: false,
    external: ['ky', 'zod', 'msw', /^node:/],
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
    // The client for Node, Bun and Deno (the `node` export condition): ky and zod inlined and
    // tree-shaken into one file, which a process loads in a fraction of the time their ~60
    // modules take (docs/performance.md). Bundlers take the build above, sharing the app's ky
    // and zod. The types are the build above's.
    entry: { 'node/index': 'src/index.ts' },
    format: ['esm', 'cjs'],
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
    // The `secrets-vault` command: Node only, one ESM file with its shebang.
    entry: { cli: 'src/cli/main.ts' },
    format: ['esm'],
    sourcemap: false,
    treeshake: true,
    target: 'node22',
    platform: 'node',
    removeNodeProtocol: false,
    banner: { js: '#!/usr/bin/env node' },
    // Inlined as in the Node build above: a command starts once per run.
    noExternal: ['ky', 'zod'],
  },
]);
