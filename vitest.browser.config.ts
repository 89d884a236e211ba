/**
 * The tests that need Chromium (Debian's, never a download), run by `npm run test:browser`:
 * the end-to-end suite inside the browser (Vitest browser mode; the same test files as the Node
 * run, with the mock in MSW's service worker instead of `setupServer`), and the dashboard
 * example clicked through from Node.
 */
import { fileURLToPath } from 'node:url';
import { playwright } from '@vitest/browser-playwright';
import { msw } from 'msw/vite';
import { defineConfig } from 'vitest/config';

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
];

export default defineConfig({
  resolve: {
    // As in vitest.config.ts: the package by name resolves to the sources.
    alias: [
      { find: '@secrets-vault/sdk/mock/node', replacement: source('./src/mock/node.ts') },
      { find: '@secrets-vault/sdk/mock', replacement: source('./src/mock/index.ts') },
      { find: /^@secrets-vault\/sdk$/, replacement: source('./src/index.ts') },
    ],
  },
  test: {
    typecheck: { enabled: false },
    // CI reads pass/fail counts from this report, as from reports/vitest.json.
    reporters: ['default', ['json', { outputFile: 'reports/vitest-browser.json' }]],
    projects: [
      {
        extends: true,
        // Serves node_modules/msw/lib/mockServiceWorker.js at /mockServiceWorker.js, nothing else.
        plugins: [msw({ mode: 'worker-only' })],
        resolve: {
          alias: [
            // The transport: setupWorker on the page's origin instead of setupServer.
            {
              find: /^\.\/mock-transport\.js$/,
              replacement: source('./test/browser/suite/mock-transport.ts'),
            },
            // test/mock/api.ts starts the mock with `msw/node`, which has no browser build.
            { find: /^msw\/node$/, replacement: source('./test/browser/suite/setup-server.ts') },
          ],
        },
        test: {
          name: 'browser',
          include: ['test/e2e/every-method.test.ts', 'test/mock/contract.test.ts'],
          testTimeout: 30_000,
          hookTimeout: 30_000,
          browser: {
            enabled: true,
            headless: true,
            provider: playwright({
              launchOptions: { executablePath: CHROMIUM, args: CHROMIUM_ARGS },
            }),
            instances: [{ browser: 'chromium' }],
          },
        },
      },
      {
        // The dashboard example, clicked through in Chromium by playwright-core from Node.
        extends: true,
        test: {
          name: 'dashboard',
          include: ['examples/dashboard/*.e2e.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
