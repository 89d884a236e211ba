/**
 * How a test file reaches the mock in Node: MSW's `setupServer`. The browser run
 * (vitest.browser.config.ts) replaces this module with test/browser/suite/mock-transport.ts,
 * which has the same exports over MSW's `setupWorker`.
 */
import type { RequestHandler } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll } from 'vitest';
import type { VaultMockOptions } from '../../src/mock/index.js';

/** Options for `createVaultMock`: in Node, the defaults (`https://vault.mock`). */
export const mockOptions: VaultMockOptions = {};

/** Serves the handlers to the calling test file, from its first test to its last. */
export function useMockTransport(handlers: RequestHandler[]): void {
  const server = setupServer(...handlers);
  beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
  afterAll(() => server.close());
}
