/**
 * `setupServer` for the browser run (vitest.browser.config.ts): the same `listen` / `close`
 * as `msw/node`'s, over MSW's `setupWorker` and the service worker the config serves at
 * `/mockServiceWorker.js`. The browser config also answers `msw/node` with this module, so
 * helpers that import `setupServer` (test/mock/api.ts) run in Chromium unchanged.
 */
import type { RequestHandler } from 'msw';
import { setupWorker } from 'msw/browser';
import { HttpNetworkFrame } from 'msw/experimental';

/** Where the browser suite's mock answers: the page's own origin, as a dashboard's API. */
export const MOCK_PATH = '/mock-api';

/** What the tests need of `msw/node`'s server. */
export interface MockServer {
  listen(options?: unknown): Promise<void>;
  close(): void;
}

/**
 * Vitest's own traffic (the page's origin, outside {@link MOCK_PATH}) goes on to its server;
 * any other request no handler answers fails, as `onUnhandledFrame: 'error'` does in Node.
 */
function isVitestTraffic(request: Request): boolean {
  const url = new URL(request.url);
  return url.origin === location.origin && !url.pathname.startsWith(`${MOCK_PATH}/`);
}

export function setupServer(...handlers: RequestHandler[]): MockServer {
  const worker = setupWorker(...handlers);
  return {
    async listen() {
      await worker.start({
        quiet: true,
        onUnhandledFrame({ frame, defaults }) {
          if (frame instanceof HttpNetworkFrame && isVitestTraffic(frame.data.request)) return;
          defaults.error();
          // A network error, as `setupServer` gives; a thrown Error would be answered with a 500.
          throw Response.error();
        },
      });
    },
    close() {
      worker.stop();
    },
  };
}
