import { defineConfig } from 'vitest/config';
import { packageAliases } from './test/package-aliases.js';

// Every suite runs twice in Node: once through node:http, as users' requests go, and once
// through Node's fetch, the transport of every other runtime (and the one a caller's `fetch`
// option stands in for). Each run names its transport: MSW puts its own fetch in place of
// Node's, which the client would otherwise take for a test tool's and send through.
const CLIENT_FILES = ['test/*.test.ts', 'test/core/**/*.test.ts', 'test/resources/**/*.test.ts'];
const MOCK_FILES = [
  'test/mock/**/*.test.ts',
  'test/e2e/**/*.test.ts',
  'test/cli/**/*.test.ts',
  'test/docs/**/*.test.ts',
  'test/query/**/*.test.ts',
  'test/opentelemetry/**/*.test.ts',
  'test/frameworks/**/*.test.ts',
  'examples/**/*.test.ts',
];

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
          include: CLIENT_FILES,
          setupFiles: ['test/setup.ts'],
          environment: 'node',
          env: { SECRETS_VAULT_TRANSPORT: 'http' },
          typecheck: {
            enabled: true,
            include: ['test/**/*.test-d.ts'],
            tsconfig: './tsconfig.json',
          },
        },
      },
      {
        extends: true,
        test: {
          name: 'client, fetch',
          include: CLIENT_FILES,
          setupFiles: ['test/setup.ts'],
          environment: 'node',
          env: { SECRETS_VAULT_TRANSPORT: 'fetch' },
        },
      },
      {
        // The stateful mock, over real fetch: each file sets up its own transport.
        extends: true,
        test: {
          name: 'mock',
          include: MOCK_FILES,
          environment: 'node',
          env: { SECRETS_VAULT_TRANSPORT: 'http' },
        },
      },
      {
        extends: true,
        test: {
          name: 'mock, fetch',
          include: MOCK_FILES,
          environment: 'node',
          env: { SECRETS_VAULT_TRANSPORT: 'fetch' },
        },
      },
    ],
  },
});
