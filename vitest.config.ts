import { defineConfig } from 'vitest/config';
import { packageAliases } from './test/package-aliases.js';

export default defineConfig({
  resolve: {
    // Examples import the package by name, as users do; tests run them against the sources.
    alias: packageAliases,
  },
  test: {
    // CI reads its pass/fail counts from this report (see .ci/run).
    reporters: ['default', ['json', { outputFile: 'reports/vitest.json' }]],
    projects: [
      {
        // The client against hand-written MSW responses (test/setup.ts starts the server).
        extends: true,
        test: {
          name: 'client',
          include: ['test/*.test.ts', 'test/core/**/*.test.ts', 'test/resources/**/*.test.ts'],
          setupFiles: ['test/setup.ts'],
          environment: 'node',
          typecheck: {
            enabled: true,
            include: ['test/**/*.test-d.ts'],
            tsconfig: './tsconfig.json',
          },
        },
      },
      {
        // The stateful mock, over real fetch: each file sets up its own transport.
        extends: true,
        test: {
          name: 'mock',
          include: [
            'test/mock/**/*.test.ts',
            'test/e2e/**/*.test.ts',
            'test/cli/**/*.test.ts',
            'test/query/**/*.test.ts',
            'test/frameworks/**/*.test.ts',
            'examples/**/*.test.ts',
          ],
          environment: 'node',
        },
      },
    ],
  },
});
