/**
 * The backoff schedule under fake timers: 0.5 s doubling to an 8 s cap, scaled by full jitter,
 * and Retry-After taking its place. A custom `fetch` answers, so only the client's timers run.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { InternalServerError, SecretsVault } from '../../src/index.js';
import { BASE_URL, TOKEN } from '../helpers.js';

function failing(headers: Record<string, string> = {}) {
  const times: number[] = [];
  const fetch = async () => {
    times.push(Date.now());
    return new Response(
      JSON.stringify({ statusCode: 503, errorCode: 'unavailable', message: 'later', data: null }),
      { status: 503, headers: { 'Content-Type': 'application/json', ...headers } },
    );
  };
  return { fetch, gaps: () => times.slice(1).map((time, index) => time - (times[index] ?? 0)) };
}

async function settle(promise: PromiseLike<unknown>): Promise<unknown> {
  const outcome = Promise.resolve(promise).then(
    () => undefined,
    (error: unknown) => error,
  );
  await vi.runAllTimersAsync();
  return outcome;
}

describe('backoff', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('waits 0.5 s, 1 s, 2 s, 4 s, then 8 s at most, scaled by the jitter draw', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    const server = failing();
    const client = new SecretsVault({
      baseUrl: BASE_URL,
      token: TOKEN,
      maxRetries: 6,
      retryBudget: false,
      fetch: server.fetch,
    });

    const error = await settle(client.vaults.get('vlt_1'));

    expect(error).toBeInstanceOf(InternalServerError);
    expect(server.gaps()).toEqual([250, 500, 1_000, 2_000, 4_000, 4_000]);
  });

  it('draws each wait between zero and the full delay (full jitter)', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const server = failing();
    const client = new SecretsVault({
      baseUrl: BASE_URL,
      token: TOKEN,
      maxRetries: 3,
      retryBudget: false,
      fetch: server.fetch,
    });
    await settle(client.vaults.get('vlt_1'));
    expect(server.gaps()).toEqual([0, 0, 0]);
  });

  it('waits exactly what Retry-After asks, without jitter', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    const server = failing({ 'Retry-After': '3' });
    const client = new SecretsVault({
      baseUrl: BASE_URL,
      token: TOKEN,
      maxRetries: 2,
      retryBudget: false,
      fetch: server.fetch,
    });
    await settle(client.vaults.get('vlt_1'));
    expect(server.gaps()).toEqual([3_000, 3_000]);
  });
});
