/**
 * Property-based tests: random schedules of faults from the mock (dropped connections before
 * and after the service commits, 5xx, 429, non-retryable 4xx, delays) against creates, updates,
 * deletes and list pages. A small model predicts what the client must do; the client must
 * match it exactly.
 */
import fc from 'fast-check';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { SecretsVault } from '../../src/index.js';
import { createVaultMock, type MockFault } from '../../src/mock/index.js';

const mock = createVaultMock();
const server = setupServer(...mock.handlers);
const MAX_RETRIES = 3;

beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
beforeEach(() => {
  mock.reset();
  // Backoff uses full jitter (random × delay); near-zero randoms keep every wait under 10 ms
  // without changing what is retried. Values stay distinct for code that derives ids from them.
  let next = 0;
  vi.spyOn(Math, 'random').mockImplementation(() => {
    next = (next + 0.000_001) % 0.001;
    return next;
  });
});
afterEach(() => {
  vi.restoreAllMocks();
});
afterAll(() => server.close());

type FaultName =
  | 'drop'
  | 'drop-after-commit'
  | 'status-500'
  | 'status-503'
  | 'status-429'
  | 'status-400'
  | 'status-422'
  | 'delay';

const faultArbitrary = fc.constantFrom<FaultName>(
  'drop',
  'drop-after-commit',
  'status-500',
  'status-503',
  'status-429',
  'status-400',
  'status-422',
  'delay',
);
const scheduleArbitrary = fc.array(faultArbitrary, { maxLength: MAX_RETRIES + 2 });

function toFault(name: FaultName): MockFault {
  switch (name) {
    case 'drop':
      return { kind: 'network-error' };
    case 'drop-after-commit':
      return { kind: 'network-error-after-commit' };
    case 'status-429':
      return { kind: 'status', status: 429, retryAfter: 0 };
    case 'delay':
      return { kind: 'delay', ms: 5 };
    default:
      return { kind: 'status', status: Number(name.slice('status-'.length)) };
  }
}

/** Plays a schedule onto the mock: fault i hits the i-th matching request. */
function inject(method: string, path: string, schedule: readonly FaultName[]): void {
  for (const name of schedule) mock.faults.inject({ method, path, times: 1 }, toFault(name));
}

interface Predicted {
  readonly succeeds: boolean;
  readonly attempts: number;
  /** Whether the service carried out the operation at some attempt. */
  readonly committed: boolean;
}

/** What a correct client does under a schedule: retry what is retryable, up to MAX_RETRIES. */
function predict(schedule: readonly FaultName[]): Predicted {
  let committed = false;
  for (let attempt = 0; ; attempt += 1) {
    const fault = schedule[attempt];
    if (fault === undefined || fault === 'delay')
      return { succeeds: true, attempts: attempt + 1, committed: true };
    if (fault === 'drop-after-commit') committed = true;
    const retryable = fault !== 'status-400' && fault !== 'status-422';
    if (!retryable || attempt === MAX_RETRIES)
      return { succeeds: false, attempts: attempt + 1, committed };
  }
}

/** A client that counts the attempts it sends. */
function countingClient(): { client: SecretsVault; attempts: () => number } {
  let attempts = 0;
  const client = new SecretsVault({
    baseUrl: mock.baseUrl,
    token: mock.principals.owner.token,
    maxRetries: MAX_RETRIES,
    retryBudget: false,
    fetch: (input, init) => {
      attempts += 1;
      return fetch(input, init);
    },
  });
  return { client, attempts: () => attempts };
}

const owner = () =>
  new SecretsVault({ baseUrl: mock.baseUrl, token: mock.principals.owner.token, maxRetries: 0 });

const settle = async <T>(promise: PromiseLike<T>) => {
  try {
    return { ok: true as const, value: await promise };
  } catch (error) {
    return { ok: false as const, error };
  }
};

describe('under random fault schedules', () => {
  it('a create leaves exactly one resource when it succeeds and at most one when it fails', async () => {
    await fc.assert(
      fc.asyncProperty(scheduleArbitrary, async (schedule) => {
        mock.reset();
        const predicted = predict(schedule);
        inject('POST', '/v1/vaults', schedule);
        const { client, attempts } = countingClient();

        const result = await settle(client.vaults.create({ name: 'payments' }));
        mock.faults.clear();
        const vaults = await owner().vaults.list().toArray();

        expect(result.ok).toBe(predicted.succeeds);
        expect(attempts()).toBe(predicted.attempts);
        expect(attempts()).toBeLessThanOrEqual(MAX_RETRIES + 1);
        expect(vaults).toHaveLength(predicted.committed ? 1 : 0);
        if (result.ok) expect(vaults[0]?.id).toBe(result.value.id);
      }),
      { numRuns: 60 },
    );
  });

  it('an update is applied exactly when the model says, and only retried where safe', async () => {
    await fc.assert(
      fc.asyncProperty(scheduleArbitrary, async (schedule) => {
        mock.reset();
        const vault = await owner().vaults.create({ name: 'before' });
        const predicted = predict(schedule);
        inject('PATCH', '/v1/vaults/:vaultId', schedule);
        const { client, attempts } = countingClient();

        const result = await settle(client.vaults.update(vault.id, { name: 'after' }));
        mock.faults.clear();

        expect(result.ok).toBe(predicted.succeeds);
        expect(attempts()).toBe(predicted.attempts);
        expect((await owner().vaults.get(vault.id)).name).toBe(
          predicted.committed ? 'after' : 'before',
        );
      }),
      { numRuns: 40 },
    );
  });

  it('a delete removes the resource exactly when the model says', async () => {
    await fc.assert(
      fc.asyncProperty(scheduleArbitrary, async (schedule) => {
        mock.reset();
        const vault = await owner().vaults.create({ name: 'doomed' });
        const predicted = predict(schedule);
        inject('DELETE', '/v1/vaults/:vaultId', schedule);
        const { client, attempts } = countingClient();

        const result = await settle(client.vaults.delete(vault.id));
        mock.faults.clear();
        const remaining = await owner().vaults.list().toArray();

        // A retry after a lost response finds the vault gone (404): the delete still succeeded.
        expect(result.ok).toBe(predicted.succeeds);
        expect(attempts()).toBe(predicted.attempts);
        expect(remaining).toHaveLength(predicted.committed ? 0 : 1);
      }),
      { numRuns: 40 },
    );
  });

  it('iterating a list under page faults yields every item exactly once, in order', async () => {
    const retryableSchedule = fc.array(
      fc.constantFrom<FaultName>('drop', 'status-500', 'status-503', 'status-429', 'delay'),
      { maxLength: 8 },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 23 }),
        fc.integer({ min: 1, max: 7 }),
        retryableSchedule,
        async (count, limit, schedule) => {
          mock.reset();
          const seeder = owner();
          for (let index = 0; index < count; index += 1)
            await seeder.vaults.create({ name: `v${index}` });
          const expected = (await seeder.vaults.list({ limit: 100 }).toArray()).map(
            (vault) => vault.id,
          );
          inject('GET', '/v1/vaults', schedule);
          const { client } = countingClient();

          const seen: string[] = [];
          const result = await settle(
            (async () => {
              for await (const vault of client.vaults.list({ limit })) seen.push(vault.id);
            })(),
          );

          expect(new Set(seen).size).toBe(seen.length);
          if (result.ok) expect(seen).toEqual(expected);
          else expect(expected.slice(0, seen.length)).toEqual(seen);
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('concurrency', () => {
  it('makes 50 resources from 50 parallel creates with distinct keys', async () => {
    const client = owner();
    const created = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        client.teams.create({ name: `team ${index}` }, { idempotencyKey: `team-${index}` }),
      ),
    );
    expect(new Set(created.map((team) => team.id)).size).toBe(50);
    expect(await client.teams.list({ limit: 100 }).toArray()).toHaveLength(50);
  });

  it('makes one resource from two parallel creates with the same key', async () => {
    vi.restoreAllMocks(); // real jitter: the second create backs off while the first runs
    const client = new SecretsVault({
      baseUrl: mock.baseUrl,
      token: mock.principals.owner.token,
      maxRetries: 5,
    });
    // Hold the first create in flight so the second meets it running (409, then retried).
    const hold = mock.faults.inject(
      { method: 'POST', path: '/v1/teams', times: 1 },
      { kind: 'hold' },
    );
    const first = client.teams
      .create({ name: 'platform' }, { idempotencyKey: 'same-key' })
      .withResponse();
    await hold.held;
    const second = client.teams
      .create({ name: 'platform' }, { idempotencyKey: 'same-key' })
      .withResponse();
    setTimeout(() => hold.release(), 20);

    const [a, b] = await Promise.all([first, second]);
    expect(a.data.id).toBe(b.data.id);
    expect(b.replayed).toBe(true);
    expect(await client.teams.list().toArray()).toHaveLength(1);
  });
});
