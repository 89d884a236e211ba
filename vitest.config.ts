import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // CI reads its pass/fail counts from this report (see .ci/run).
    reporters: ['default', ['json', { outputFile: 'reports/vitest.json' }]],
    projects: [
      {
        // The client against hand-written MSW responses (test/setup.ts starts the server).
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
        test: {
          name: 'mock',
          include: ['test/mock/**/*.test.ts', 'test/e2e/**/*.test.ts'],
          environment: 'node',
        },
      },
    ],
  },
});
