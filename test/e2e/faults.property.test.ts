/**
 * Property-based tests: random schedules of faults (dropped connections before and after the
 * service commits, bodies cut off after it commits, 5xx, 429, non-retryable 4xx, delays) against
 * creates, updates, deletes and list pages. A small model predicts what the client must do; the
 * client must match it exactly.
 */
import fc from 'fast-check';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { APIConnectionError, SecretsVault } from '../../src/index.js';
import { createVaultMock, type FaultTarget, type MockFault } from '../../src/mock/index.js';

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

/** Faults the mock plays itself. */
type MockFaultName =
  | 'drop'
  | 'drop-after-commit'
  | 'status-500'
  | 'status-503'
  | 'status-429'
  | 'status-400'
  | 'status-422'
  | 'delay';

/**
 * Every fault of a schedule. `cut-body-after-commit` is not the mock's: the service carries the
 * request out and its status and headers arrive, then the body stream fails part-way. It is made
 * here, around the real fetch (see {@link scheduledClient}).
 */
type FaultName = MockFaultName | 'cut-body-after-commit';

const faultArbitrary = fc.constantFrom<FaultName>(
  'drop',
  'drop-after-commit',
  'cut-body-after-commit',
  'status-500',
  'status-503',
  'status-429',
  'status-400',
  'status-422',
  'delay',
);
const scheduleArbitrary = fc.array(faultArbitrary, { maxLength: MAX_RETRIES + 2 });

function toFault(name: MockFaultName): MockFault {
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

// Where a cut body stops: a few bytes in, or halfway through a shorter body.
const CUT_AFTER_BYTES = 8;

/**
 * The real answer with its body cut off: the status and headers as sent, then a prefix of the
 * body, then the error undici gives when the server closes the socket mid-body.
 */
async function cutBody(response: Response): Promise<Response> {
  // A 204 has no body to cut: it is whole once its headers have arrived.
  if (response.body === null) return response;
  const body = new Uint8Array(await response.arrayBuffer());
  const prefix = body.slice(0, Math.min(CUT_AFTER_BYTES, Math.floor(body.length / 2)));
  let sentPrefix = false;
  // `pull`, not `start`: erroring a stream drops the chunks still queued in it.
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sentPrefix) {
        const socket = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
        controller.error(new TypeError('terminated', { cause: socket }));
        return;
      }
      sentPrefix = true;
      controller.enqueue(prefix);
    },
  });
  return new Response(stream, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/**
 * A client whose attempts meet `schedule` in order, fault i on attempt i, and that counts the
 * attempts it sends. A mock fault is injected on `target` just before its own attempt, not all up
 * front: the mock plays its faults on the next matching requests, so faults injected ahead would
 * slide onto the attempts whose body this wrapper cuts.
 */
function scheduledClient(
  target: Pick<FaultTarget, 'method' | 'path'>,
  schedule: readonly FaultName[],
): { client: SecretsVault; attempts: () => number } {
  let attempts = 0;
  const client = new SecretsVault({
    baseUrl: mock.baseUrl,
    token: mock.principals.owner.token,
    maxRetries: MAX_RETRIES,
    retryBudget: false,
    fetch: async (input, init) => {
      const fault = schedule[attempts];
      attempts += 1;
      if (fault === 'cut-body-after-commit') return cutBody(await globalThis.fetch(input, init));
      if (fault !== undefined) mock.faults.inject({ ...target, times: 1 }, toFault(fault));
      return globalThis.fetch(input, init);
    },
  });
  return { client, attempts: () => attempts };
}

interface Predicted {
  readonly succeeds: boolean;
  readonly attempts: number;
  /** Whether the service carried out the operation at some attempt. */
  readonly committed: boolean;
}

/** What the operation under test answers when it succeeds. */
interface Operation {
  /**
   * Its success is a 204, with no body that could be cut off (a DELETE retried after its commit
   * gets a 404, which has one).
   */
  readonly answersWithoutBody?: boolean;
}

/** What a correct client does under a schedule: retry what is retryable, up to MAX_RETRIES. */
function predict(schedule: readonly FaultName[], operation: Operation = {}): Predicted {
  let committed = false;
  for (let attempt = 0; ; attempt += 1) {
    const fault = schedule[attempt];
    if (fault === undefined || fault === 'delay')
      return { succeeds: true, attempts: attempt + 1, committed: true };
    if (fault === 'cut-body-after-commit') {
      // Only the first commit answers 204; once done, a DELETE is answered 404, with a body.
      if (operation.answersWithoutBody && !committed)
        return { succeeds: true, attempts: attempt + 1, committed: true };
      committed = true;
    }
    if (fault === 'drop-after-commit') committed = true;
    // A cut body is a lost response, retried like a dropped connection (creates carry a key).
    const retryable = fault !== 'status-400' && fault !== 'status-422';
    if (!retryable || attempt === MAX_RETRIES)
      return { succeeds: false, attempts: attempt + 1, committed };
  }
}

interface PredictedList {
  readonly succeeds: boolean;
  readonly attempts: number;
  /** Pages fetched in full before the iteration ended or failed. */
  readonly pagesRead: number;
}

/** Iterating `pages` pages: each page is its own GET, with its own MAX_RETRIES, in turn. */
function predictList(schedule: readonly FaultName[], pages: number): PredictedList {
  let attempts = 0;
  for (let page = 0; page < pages; page += 1) {
    const fetched = predict(schedule.slice(attempts));
    attempts += fetched.attempts;
    if (!fetched.succeeds) return { succeeds: false, attempts, pagesRead: page };
  }
  return { succeeds: true, attempts, pagesRead: pages };
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
        const { client, attempts } = scheduledClient(
          { method: 'POST', path: '/v1/vaults' },
          schedule,
        );

        const result = await settle(client.vaults.create({ name: 'payments' }));
        mock.faults.clear();
        const vaults = await owner().vaults.list().toArray();

        expect(result.ok).toBe(predicted.succeeds);
        expect(attempts()).toBe(predicted.attempts);
        expect(attempts()).toBeLessThanOrEqual(MAX_RETRIES + 1);
        // A retry after a commit carries the same Idempotency-Key: the mock replays, never remakes.
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
        const { client, attempts } = scheduledClient(
          { method: 'PATCH', path: '/v1/vaults/:vaultId' },
          schedule,
        );

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
        const predicted = predict(schedule, { answersWithoutBody: true });
        const { client, attempts } = scheduledClient(
          { method: 'DELETE', path: '/v1/vaults/:vaultId' },
          schedule,
        );

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
      fc.constantFrom<FaultName>(
        'drop',
        'cut-body-after-commit',
        'status-500',
        'status-503',
        'status-429',
        'delay',
      ),
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
          // The last page has no next cursor, and an empty list is still one page.
          const predicted = predictList(schedule, Math.max(1, Math.ceil(count / limit)));
          const { client, attempts } = scheduledClient(
            { method: 'GET', path: '/v1/vaults' },
            schedule,
          );

          const seen: string[] = [];
          const result = await settle(
            (async () => {
              for await (const vault of client.vaults.list({ limit })) seen.push(vault.id);
            })(),
          );
          mock.faults.clear();

          expect(result.ok).toBe(predicted.succeeds);
          expect(attempts()).toBe(predicted.attempts);
          expect(new Set(seen).size).toBe(seen.length);
          expect(seen).toEqual(expected.slice(0, predicted.pagesRead * limit));
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('a body cut off after the service commits', () => {
  it('fails a create cut off on every attempt with APIConnectionError after maxRetries + 1 attempts, having made one vault', async () => {
    const schedule = Array.from(
      { length: MAX_RETRIES + 2 },
      (): FaultName => 'cut-body-after-commit',
    );
    expect(predict(schedule)).toEqual({
      succeeds: false,
      attempts: MAX_RETRIES + 1,
      committed: true,
    });
    const { client, attempts } = scheduledClient({ method: 'POST', path: '/v1/vaults' }, schedule);

    const result = await settle(client.vaults.create({ name: 'payments' }));
    mock.faults.clear();
    const vaults = await owner().vaults.list().toArray();

    expect(result.ok).toBe(false);
    const error = result.ok ? undefined : result.error;
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error).toMatchObject({
      message: expect.stringMatching(/^Connection error: the response body was cut off/),
      attempts: MAX_RETRIES + 1,
      method: 'POST',
      idempotencyKey: expect.any(String),
    });
    expect(attempts()).toBe(MAX_RETRIES + 1);
    // Every retry carried the first attempt's Idempotency-Key, so the mock replayed it.
    expect(vaults).toHaveLength(1);
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
