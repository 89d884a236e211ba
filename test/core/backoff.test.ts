/**
 * The backoff schedule under fake timers: 0.5 s doubling to an 8 s cap, scaled by full jitter;
 * Retry-After as a floor with a jittered spread on top that widens with each such answer; and
 * `maxRetries` without an upper bound. A custom `fetch` answers, so only the client's timers run.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { InternalServerError, RateLimitError, SecretsVault } from '../../src/index.js';
import { BASE_URL, TOKEN } from '../helpers.js';
import { scripted, settle } from './scripted-fetch.js';

function clientOf(fetch: typeof globalThis.fetch, maxRetries: number): SecretsVault {
  return new SecretsVault({
    baseUrl: BASE_URL,
    token: TOKEN,
    maxRetries,
    retryBudget: false,
    fetch,
  });
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
    const server = scripted([503]);
    const error = await settle(clientOf(server.fetch, 6).vaults.get('vlt_1'));

    expect(error).toBeInstanceOf(InternalServerError);
    expect(server.gaps()).toEqual([250, 500, 1_000, 2_000, 4_000, 4_000]);
  });

  it('draws each wait between zero and the full delay (full jitter)', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const server = scripted([503]);
    await settle(clientOf(server.fetch, 3).vaults.get('vlt_1'));
    expect(server.gaps()).toEqual([0, 0, 0]);
  });

  it('takes Retry-After as a floor: never sooner, and spread above it by the jitter draw', async () => {
    const random = vi.spyOn(Math, 'random').mockReturnValue(0);
    const earliest = scripted([503], { 'Retry-After': '3' });
    await settle(clientOf(earliest.fetch, 2).vaults.get('vlt_1'));
    expect(earliest.gaps()).toEqual([3_000, 3_000]);

    random.mockReturnValue(0.5);
    const drawn = scripted([503], { 'Retry-After': '3' });
    await settle(clientOf(drawn.fetch, 2).vaults.get('vlt_1'));
    // 3 s, plus half of a spread that starts at twice the Retry-After and doubles, up to 8 s.
    expect(drawn.gaps()).toEqual([6_000, 7_000]);
  });

  it('spreads repeated 429s further apart each time, up to 8 s above the floor', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(1);
    const server = scripted([429], { 'Retry-After': '1' });
    const error = await settle(clientOf(server.fetch, 5).org.get());

    expect(error).toBeInstanceOf(RateLimitError);
    // 1 s, plus a spread of twice that doubling to the 8 s cap.
    expect(server.gaps()).toEqual([3_000, 5_000, 9_000, 9_000, 9_000]);
  });

  it('grows the wait after throttling from 1 s, and after a connection failure or a plain 5xx from 0.5 s', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(1);
    // A 429 without Retry-After, and a 503 with Retry-After: 0: throttling, from 1 s.
    const throttled = scripted([429]);
    await settle(clientOf(throttled.fetch, 3).vaults.get('vlt_1'));
    expect(throttled.gaps()).toEqual([1_000, 2_000, 4_000]);
    const soon = scripted([503], { 'Retry-After': '0' });
    await settle(clientOf(soon.fetch, 2).vaults.get('vlt_1'));
    expect(soon.gaps()).toEqual([1_000, 2_000]);

    // A plain 503, and refused connections: from 0.5 s.
    const plain = scripted([503]);
    await settle(clientOf(plain.fetch, 3).vaults.get('vlt_1'));
    expect(plain.gaps()).toEqual([500, 1_000, 2_000]);
    const times: number[] = [];
    const refused: typeof fetch = async () => {
      times.push(Date.now());
      throw new TypeError('fetch failed');
    };
    await settle(clientOf(refused, 3).vaults.get('vlt_1'));
    expect(times.slice(1).map((time, index) => time - (times[index] ?? 0))).toEqual([
      500, 1_000, 2_000,
    ]);
  });

  it('keeps a connection failure after a 429 on the 0.5 s base of its own retry count', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(1);
    let calls = 0;
    const times: number[] = [];
    const mixed: typeof fetch = async () => {
      times.push(Date.now());
      calls += 1;
      if (calls === 2) throw new TypeError('fetch failed');
      return new Response(
        JSON.stringify({ statusCode: 429, errorCode: 'rate_limited', message: 'slow', data: null }),
        { status: 429, headers: { 'Content-Type': 'application/json' } },
      );
    };
    await settle(clientOf(mixed, 2).vaults.get('vlt_1'));
    // After the 429: 1 s; after the refused attempt (the call's second retry): 0.5 s × 2.
    expect(times.slice(1).map((time, index) => time - (times[index] ?? 0))).toEqual([1_000, 1_000]);
  });

  it('brings a fleet told to come back in 1 s back over the following two seconds, not at once', async () => {
    // Real jitter draws: 200 clients, each answered 429 Retry-After: 1 once, then served.
    const servers = Array.from({ length: 200 }, () => scripted([429, 200], { 'Retry-After': '1' }));
    const calls = servers.map((server) => clientOf(server.fetch, 2).secrets.listValues('vlt_1'));
    await settle(Promise.all(calls));

    const returns = servers.map((server) => server.gaps()[0] ?? Number.NaN);
    expect(Math.min(...returns)).toBeGreaterThanOrEqual(1_000);
    expect(Math.max(...returns)).toBeLessThanOrEqual(3_000);
    // In 100 ms buckets over [1 s, 3 s): at half the rate the fleet was turned away at, and no
    // bucket above three times the mean (10 a bucket), the fleet's herd target.
    const buckets = new Map<number, number>();
    for (const gap of returns) {
      const bucket = Math.floor(gap / 100);
      buckets.set(bucket, (buckets.get(bucket) ?? 0) + 1);
    }
    expect(buckets.size).toBeGreaterThanOrEqual(16);
    expect(Math.max(...buckets.values())).toBeLessThanOrEqual(30);
  });

  it('retries without an upper bound with maxRetries: Infinity, each wait still capped at 8 s', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(1);
    const server = scripted([...Array.from({ length: 40 }, () => 503), 200]);
    const error = await settle(
      clientOf(server.fetch, Number.POSITIVE_INFINITY).secrets.listValues('v'),
    );

    expect(error).toBeUndefined();
    expect(server.times).toHaveLength(41);
    expect(Math.max(...server.gaps())).toBe(8_000);
  });

  it('accepts any whole number of retries, more than ten included', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const server = scripted([503]);
    const error = await settle(clientOf(server.fetch, 25).vaults.get('vlt_1'));
    expect(error).toBeInstanceOf(InternalServerError);
    expect(server.times).toHaveLength(26);
  });
});
