/**
 * The browser twin of test/e2e/mock-transport.ts (vitest.browser.config.ts swaps it in): the
 * mock answers on the page's own origin, from MSW's service worker.
 */
import type { RequestHandler } from 'msw';
import { afterAll, beforeAll } from 'vitest';
import type { VaultMockOptions } from '../../../src/mock/index.js';
import { MOCK_PATH, setupServer } from './setup-server.js';

/** Options for `createVaultMock`: a same-origin base URL the service worker answers on. */
export const mockOptions: VaultMockOptions = { baseUrl: `${location.origin}${MOCK_PATH}` };

/** Serves the handlers to the calling test file, from its first test to its last. */
export function useMockTransport(handlers: RequestHandler[]): void {
  const server = setupServer(...handlers);
  beforeAll(() => server.listen());
  afterAll(() => server.close());
}
