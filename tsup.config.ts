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
    // The `secrets-vault` command: Node only, one ESM file with its shebang.
    entry: { cli: 'src/cli/main.ts' },
    format: ['esm'],
    sourcemap: true,
    treeshake: true,
    target: 'node22',
    platform: 'node',
    removeNodeProtocol: false,
    banner: { js: '#!/usr/bin/env node' },
    external: ['ky', 'zod'],
  },
]);
