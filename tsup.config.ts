import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    'mock/index': 'src/mock/index.ts',
    'mock/node': 'src/mock/node.ts',
  },
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  clean: true,
  treeshake: true,
  target: 'es2022',
  platform: 'neutral',
  removeNodeProtocol: false,
  external: ['ky', 'zod', 'msw', /^node:/],
});
