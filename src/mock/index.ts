/**
 * `@secrets-vault/sdk/mock`: a stateful, in-memory Secrets Vault Service as MSW request handlers,
 * for `setupServer` (Node) and `setupWorker` (browsers). It implements the service's API contract
 * and, where the contract leaves a gap, makes one consistent choice (roles, error codes, ordering,
 * expiry) and keeps to it.
 *
 * @packageDocumentation
 */
import { type HttpHandler, http } from 'msw';
import { createClock, type MockClock } from './clock.js';
import { MockFaults } from './faults.js';
import { auditRoutes } from './handlers/audit.js';
import { orgRoutes } from './handlers/org.js';
import { secretRoutes } from './handlers/secrets.js';
import { teamRoutes } from './handlers/teams.js';
import { vaultRoutes } from './handlers/vaults.js';
import { isMockSeed } from './ids.js';
import { errorResponse, MockError, runRoute } from './pipeline.js';
import { type MockPrincipals, MockStore } from './store.js';

export type { MockClock } from './clock.js';
export type { FaultTarget, InjectedFault, MockFault } from './faults.js';
export { MockFaults } from './faults.js';
export type { MockPrincipal, MockPrincipals } from './store.js';

/** Options of {@link createVaultMock}. */
export interface VaultMockOptions {
  /**
   * The origin (and optional path) the handlers answer on; point the client's `baseUrl` at it.
   * @default 'https://vault.mock'
   */
  readonly baseUrl?: string | undefined;
  /**
   * Where the mock's clock starts; it then runs with real time until set or advanced.
   * @default the current time
   */
  readonly now?: Date | string | number | undefined;
  /**
   * Makes the mock's ids repeatable: an integer from 0 to 2^53 - 1 from which every id is
   * derived, so that the same seed and the same requests in the same order give the same ids,
   * in any process, and `reset()` gives them again. Without it ids are random.
   * @default undefined (random ids)
   * @example
   * ```ts
   * const mock = createVaultMock({ seed: 7 });
   * ```
   */
  readonly seed?: number | undefined;
}

/** A running mock: its handlers, principals, clock and fault switchboard. */
export interface VaultMock {
  /** The MSW handlers: pass them to `setupServer(...mock.handlers)` or `setupWorker(...)`. */
  readonly handlers: HttpHandler[];
  /** The base URL the handlers answer on. */
  readonly baseUrl: string;
  /** The seeded principals and their tokens (the same tokens after every `reset()`). */
  readonly principals: MockPrincipals;
  /** The mock's clock: move it to expire cursors, idempotency records, secrets, invitations. */
  readonly clock: MockClock;
  /** Fault injection per method and path. */
  readonly faults: MockFaults;
  /**
   * Forgets every resource, audit entry, cursor, idempotency record and fault; seeds anew (with
   * a `seed`, the same ids start over).
   */
  reset(): void;
}

/**
 * Creates a stateful mock of the whole Secrets Vault API.
 *
 * @example
 * ```ts
 * import { setupServer } from 'msw/node';
 * import { SecretsVault } from '@secrets-vault/sdk';
 * import { createVaultMock } from '@secrets-vault/sdk/mock';
 *
 * const mock = createVaultMock();
 * const server = setupServer(...mock.handlers);
 * server.listen({ onUnhandledFrame: 'error' });
 *
 * const client = new SecretsVault({ baseUrl: mock.baseUrl, token: mock.principals.owner.token });
 * const vault = await client.vaults.create({ name: 'Payments' });
 * ```
 * @throws {RangeError} when `seed` is not an integer from 0 to 2^53 - 1
 */
export function createVaultMock(options: VaultMockOptions = {}): VaultMock {
  const baseUrl = (options.baseUrl ?? 'https://vault.mock').replace(/\/+$/, '');
  const basePath = new URL(baseUrl).pathname.replace(/\/+$/, '');
  const clock = createClock(options.now);
  if (options.seed !== undefined && !isMockSeed(options.seed)) {
    throw new RangeError('createVaultMock: seed must be an integer from 0 to 2^53 - 1');
  }
  const store = new MockStore(clock, options.seed);
  const faults = new MockFaults();
  const deps = { store, faults };

  const routeHandlers = [
    ...vaultRoutes,
    ...secretRoutes,
    ...teamRoutes,
    ...orgRoutes,
    ...auditRoutes,
  ].map((route) => {
    const method = route.method.toLowerCase() as 'get' | 'post' | 'patch' | 'delete';
    return http[method](`${baseUrl}/v1${route.path}`, ({ request, params }) =>
      runRoute(
        deps,
        route,
        request,
        Object.fromEntries(Object.entries(params).map(([name, value]) => [name, String(value)])),
        new URL(request.url).pathname.slice(basePath.length),
      ),
    );
  });
  const notFound = () => errorResponse(new MockError(404, 'not_found', 'No such route'));

  return {
    handlers: [
      ...routeHandlers,
      // The service sends no CORS headers, not even to a preflight, so neither does the mock.
      http.options(`${baseUrl}/*`, notFound),
      http.all(`${baseUrl}/v1`, notFound),
      http.all(`${baseUrl}/v1/*`, notFound),
    ],
    baseUrl,
    get principals() {
      return store.seededPrincipals;
    },
    clock,
    faults,
    reset() {
      faults.clear();
      store.reset();
    },
  };
}
