/**
 * The tests that need Chromium (Debian's, never a download), run by `npm run test:browser`:
 * the end-to-end suite inside the browser (Vitest browser mode; the same test files as the Node
 * run, with the mock in MSW's service worker instead of `setupServer`, and the SDK's modules as
 * its browser build has them), and the dashboard example clicked through from Node.
 */
import { fileURLToPath } from 'node:url';
import { playwright } from '@vitest/browser-playwright';
import { msw } from 'msw/vite';
import { defineConfig } from 'vitest/config';
import { browserModulesForVite } from './scripts/browser-modules.ts';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './test/browser/chromium.js';
import { packageAliases } from './test/package-aliases.js';

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  resolve: {
    alias: packageAliases,
  },
  test: {
    typecheck: { enabled: false },
    // CI reads pass/fail counts from this report, as from reports/vitest.json.
    reporters: ['default', ['json', { outputFile: 'reports/vitest-browser.json' }]],
    projects: [
      {
        extends: true,
        // Serves node_modules/msw/lib/mockServiceWorker.js at /mockServiceWorker.js, nothing else;
        // and the SDK as its browser build is (scripts/browser-modules.ts).
        plugins: [msw({ mode: 'worker-only' }), browserModulesForVite],
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
          include: [
            'test/e2e/every-method.test.ts',
            'test/e2e/namespaces-alone.test.ts',
            'test/mock/contract.test.ts',
          ],
          testTimeout: 30_000,
          hookTimeout: 30_000,
          browser: {
            enabled: true,
            headless: true,
            provider: playwright({
              launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS },
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
