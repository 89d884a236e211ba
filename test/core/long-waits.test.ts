/**
 * Waits longer than a timer can hold (2^31 − 1 ms, 24.8 days). A platform timer given more fires
 * at once, so a job told `Retry-After: 34 days` under `wait: Infinity` came back at once, in a
 * loop (over a thousand requests in 3 s). Every such wait must last as long as it says: over
 * real time, one request and no more; on a fake clock, the retry comes when it was told to.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  APITimeoutError,
  APIUserAbortError,
  createSecretCache,
  InternalServerError,
  SecretsVault,
} from '../../src/index.js';
import { BASE_URL, fail, route, TOKEN } from '../helpers.js';
import { scripted, settle } from './scripted-fetch.js';

const DAY_S = 24 * 60 * 60;
/** Just past what a timer holds, 34 days, and an HTTP date thousands of years ahead. */
const FAR_RETRY_AFTERS = [
  String(Math.ceil(2_147_483_647 / 1000) + 1),
  String(34 * DAY_S),
  'Fri, 31 Dec 9999 23:59:59 GMT',
];

describe('a Retry-After longer than a timer holds, over real time', () => {
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);
  beforeAll(() => {
    process.on('warning', onWarning);
  });
  afterAll(() => {
    process.off('warning', onWarning);
  });
  afterEach(() => {
    warnings.length = 0;
  });

  /** The vault's values answer 503 with `retryAfter`, for ever. */
  const unavailable = (retryAfter: string) =>
    route('get', '/vaults/vlt_1/secrets/values', () =>
      fail(503, 'service_unavailable', 'come back later', { 'Retry-After': retryAfter }),
    );
  const client = () => new SecretsVault({ baseUrl: BASE_URL, token: TOKEN });

  it.each(FAR_RETRY_AFTERS)(
    'load with wait: Infinity sends one request in a second when told Retry-After: %s',
    async (value) => {
      const seen = unavailable(value);
      const controller = new AbortController();
      const loading = client().secrets.load('vlt_1', {
        wait: Number.POSITIVE_INFINITY,
        signal: controller.signal,
      });
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      controller.abort();

      await expect(loading).rejects.toBeInstanceOf(APIUserAbortError);
      expect(seen).toHaveLength(1);
      expect(warnings.map((warning) => warning.name)).not.toContain('TimeoutOverflowWarning');
    },
  );

  it('a startup wait longer than a timer holds (1000 h) waits as told too', async () => {
    const seen = unavailable(String(34 * DAY_S));
    const controller = new AbortController();
    const loading = client().secrets.load('vlt_1', {
      wait: 1000 * 3_600_000,
      signal: controller.signal,
    });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    controller.abort();

    await expect(loading).rejects.toBeInstanceOf(APIUserAbortError);
    expect(seen).toHaveLength(1);
    expect(warnings).toEqual([]);
  });

  it('without a startup wait, a Retry-After past a minute fails the call at once', async () => {
    const seen = unavailable(String(34 * DAY_S));
    const error = await client()
      .secrets.listValues('vlt_1')
      .catch((thrown: unknown) => thrown);

    expect(error).toBeInstanceOf(InternalServerError);
    expect((error as InternalServerError).headers.get('retry-after')).toBe(String(34 * DAY_S));
    expect(seen).toHaveLength(1);
    expect(warnings).toEqual([]);
  });
});

describe('a wait whose end has already passed', () => {
  it('ends the call at its deadline with no TimeoutNegativeWarning', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      // Each attempt is cut at the deadline, so the wait before a retry would end before it began.
      const hanging: typeof fetch = (input) =>
        new Promise((_resolve, reject) => {
          const { signal } = input as Request;
          signal.addEventListener('abort', () => reject(signal.reason), { once: true });
        });
      const client = new SecretsVault({ baseUrl: BASE_URL, token: TOKEN, fetch: hanging });
      for (let call = 0; call < 5; call += 1) {
        const error = await client.secrets
          .listValues('vlt_1', { totalTimeout: 30 })
          .catch((thrown: unknown) => thrown);
        expect(error).toBeInstanceOf(APITimeoutError);
      }
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.map((warning) => warning.name)).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});

describe('a Retry-After longer than a timer holds, on a fake clock', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('retries once the 34 days have passed, not before and not at once', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
    const service = scripted([503, 200], { 'Retry-After': String(34 * DAY_S) });
    const client = new SecretsVault({ baseUrl: BASE_URL, token: TOKEN, fetch: service.fetch });
    const loading = client.secrets.load('vlt_1', { wait: Number.POSITIVE_INFINITY });

    await vi.advanceTimersByTimeAsync(34 * DAY_S * 1000 - 1);
    expect(service.times).toHaveLength(1);
    expect(await settle(loading)).toBeUndefined();
    expect(service.times).toHaveLength(2);
    const gap = service.gaps()[0] ?? 0;
    expect(gap).toBeGreaterThanOrEqual(34 * DAY_S * 1000);
    // The spread after a Retry-After is capped at 8 s.
    expect(gap).toBeLessThanOrEqual(34 * DAY_S * 1000 + 8_000);
  });

  it("makes a cache's first load wait as told", async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
    const service = scripted([503, 200], { 'Retry-After': String(34 * DAY_S) });
    const client = new SecretsVault({ baseUrl: BASE_URL, token: TOKEN, fetch: service.fetch });
    const cache = createSecretCache(client, { ttl: 60_000, wait: Number.POSITIVE_INFINITY });

    expect(await settle(cache.load('vlt_1'))).toBeUndefined();
    expect(service.gaps()[0]).toBeGreaterThanOrEqual(34 * DAY_S * 1000);
  });

  it('holds a startup wait of 30 days as a deadline, past what one timer holds', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
    // Accepts and never answers: only a timeout or the deadline can end an attempt.
    const times: number[] = [];
    const hanging: typeof fetch = (input) => {
      times.push(Date.now());
      return new Promise((_resolve, reject) => {
        const { signal } = input as Request;
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
    };
    const wait = 30 * DAY_S * 1000;
    const client = new SecretsVault({
      baseUrl: BASE_URL,
      token: TOKEN,
      fetch: hanging,
      timeout: 2_147_483_647,
    });
    const started = Date.now();
    const error = await settle(client.secrets.load('vlt_1', { wait }));

    expect(error).toBeInstanceOf(APITimeoutError);
    expect((error as Error).message).toContain(`when the wait (${wait} ms) ended`);
    // One attempt of 24.8 days, its timeout, then a last one cut by the deadline at 30 days.
    expect(Date.now() - started).toBeGreaterThanOrEqual(wait);
    expect(Date.now() - started).toBeLessThan(wait + 1_000);
    expect(times.length).toBeGreaterThanOrEqual(2);
  });
});

describe('a signal from AbortSignal.timeout()', () => {
  it('ends the call as a timeout, not as a cancellation, and is not retried', async () => {
    const service = scripted([503], {});
    const client = new SecretsVault({
      baseUrl: BASE_URL,
      token: TOKEN,
      fetch: service.fetch,
      maxRetries: 5,
    });
    // An attempt still in flight when the signal's time runs out.
    const hanging: typeof fetch = (input) =>
      new Promise((_resolve, reject) => {
        const { signal } = input as Request;
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
    const inFlight = await new SecretsVault({
      baseUrl: BASE_URL,
      token: TOKEN,
      fetch: hanging,
    }).secrets
      .listValues('vlt_1', { signal: AbortSignal.timeout(50) })
      .catch((thrown: unknown) => thrown);
    expect(inFlight).toBeInstanceOf(APITimeoutError);
    expect((inFlight as Error).message).toBe('Request timed out');

    // Between attempts: the backoff is cut by the signal's time, with no retry after it.
    const between = await client.secrets
      .listValues('vlt_1', { signal: AbortSignal.timeout(100) })
      .catch((thrown: unknown) => thrown);
    expect(between).toBeInstanceOf(APITimeoutError);
    expect(service.times.length).toBeLessThanOrEqual(2);

    // A plain abort stays a cancellation.
    const controller = new AbortController();
    controller.abort();
    const aborted = await client.secrets
      .listValues('vlt_1', { signal: controller.signal })
      .catch((thrown: unknown) => thrown);
    expect(aborted).toBeInstanceOf(APIUserAbortError);
  });
});
