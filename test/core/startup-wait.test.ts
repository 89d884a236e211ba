/**
 * The startup policy under fake timers: `load` (and `resolveReferences`, and a cache's first
 * load) keep retrying an unavailable service for `wait`, then fail with the last error; a
 * verdict fails at once; `wait: 0` or an explicit `maxRetries` is the ordinary policy.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  APIConnectionError,
  APITimeoutError,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  createSecretCache,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  RequestValidationError,
  SecretsVault,
  UnprocessableEntityError,
} from '../../src/index.js';
import { BASE_URL, secret, TOKEN } from '../helpers.js';
import { scripted, settle } from './scripted-fetch.js';

const VALUES = [secret({ value: { password: 'hunter2' } })];

/** A service that refuses connections until `upAt` (fake ms since the start), then answers. */
function outage(upAt: number, answer: () => Response = valuesResponse) {
  const started = Date.now();
  const times: number[] = [];
  const fetch = async () => {
    times.push(Date.now() - started);
    if (Date.now() - started < upAt) throw new TypeError('fetch failed');
    return answer();
  };
  return { fetch, times };
}

function valuesResponse(): Response {
  return Response.json({ statusCode: 200, errorCode: null, message: null, data: VALUES });
}

function clientOf(fetch: typeof globalThis.fetch, options: { maxRetries?: number } = {}) {
  return new SecretsVault({ baseUrl: BASE_URL, token: TOKEN, fetch, ...options });
}

describe('startup wait', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
  });

  it('rides out a 20 s outage with the defaults and resolves once the service is back', async () => {
    const service = outage(20_000);
    const loaded = clientOf(service.fetch).secrets.load('vlt_1');
    const error = await settle(loaded);

    expect(error).toBeUndefined();
    expect((await loaded).stripe?.password).toBe('hunter2');
    expect(service.times.at(-1)).toBeGreaterThanOrEqual(20_000);
    // Backoff capped at 8 s: the service is asked again within 8 s of coming back.
    expect(service.times.at(-1)).toBeLessThan(28_000);
  });

  it('waits 60 s by default, then fails with the last error', async () => {
    const service = outage(Number.POSITIVE_INFINITY);
    const error = await settle(clientOf(service.fetch).secrets.load('vlt_1'));

    expect(error).toBeInstanceOf(APIConnectionError);
    expect(service.times.length).toBeGreaterThan(5);
    expect(Math.max(...service.times)).toBeLessThanOrEqual(60_000);
    // The deadline is used up: the last attempt comes late in the wait, not 8 s early.
    expect(Math.max(...service.times)).toBeGreaterThan(50_000);
  });

  it('keeps trying into the last stretch of the wait, then ends at its deadline', async () => {
    // Twenty jobs, each with its own draws: not one may give up early. With `wait: 2_000` the
    // last attempt falls in the half second before the last 250 ms (a quarter of a short wait),
    // and the call ends when the wait does, not when that attempt failed.
    for (let job = 0; job < 20; job += 1) {
      const service = outage(Number.POSITIVE_INFINITY);
      const started = Date.now();
      let endedAt = 0;
      const loaded = clientOf(service.fetch)
        .secrets.load('vlt_1', { wait: 2_000 })
        .finally(() => {
          endedAt = Date.now() - started;
        });
      const error = await settle(loaded);
      expect(error).toBeInstanceOf(APIConnectionError);
      expect(Math.max(...service.times)).toBeGreaterThan(1_250);
      expect(Math.max(...service.times)).toBeLessThanOrEqual(1_750);
      expect(endedAt).toBe(2_000);
    }
  });

  it('spreads the last attempts of a fleet over the second before the last 250 ms', async () => {
    const lastAttempts: number[] = [];
    for (let job = 0; job < 20; job += 1) {
      const service = outage(Number.POSITIVE_INFINITY);
      await settle(clientOf(service.fetch).secrets.load('vlt_1', { wait: 10_000 }));
      lastAttempts.push(Math.max(...service.times));
    }
    // Not all at the deadline: a fleet that started together must not come back at one instant.
    expect(new Set(lastAttempts).size).toBeGreaterThan(10);
    expect(Math.min(...lastAttempts)).toBeGreaterThan(8_750);
    expect(Math.max(...lastAttempts)).toBeLessThanOrEqual(9_750);
  });

  it('brings a fleet up whose service recovers 5 s before their shared deadline, spread over them', async () => {
    // 300 jobs released together with the default wait (60 s); the service refuses connections
    // for 55 s, then answers each request after 100 ms. Every job must come up: none may send its
    // last attempt so late that the deadline cuts the answer, and the jobs whose next draw would
    // overshoot the deadline must not all come back in its last instants.
    const started = Date.now();
    const arrivals: number[] = [];
    const fetch = async () => {
      const at = Date.now() - started;
      if (at < 55_000) throw new TypeError('fetch failed');
      arrivals.push(at);
      await new Promise((resolve) => setTimeout(resolve, 100));
      return valuesResponse();
    };
    const jobs = Array.from({ length: 300 }, () => clientOf(fetch).secrets.load('vlt_1'));
    const outcomes = await Promise.allSettled(
      jobs.map((job) => settle(job).then((error) => error)),
    );
    const failed = outcomes.filter((outcome) => outcome.status === 'fulfilled' && outcome.value);
    expect(failed).toEqual([]);
    expect(arrivals).toHaveLength(300);
    // Half-second buckets from the recovery: no bucket above three times the mean.
    const buckets = new Map<number, number>();
    for (const at of arrivals) {
      const bucket = Math.floor((at - 55_000) / 500);
      buckets.set(bucket, (buckets.get(bucket) ?? 0) + 1);
    }
    const mean = arrivals.length / (Math.max(...buckets.keys()) + 1);
    expect(Math.max(...buckets.values())).toBeLessThanOrEqual(3 * mean);
  });

  it('cuts an attempt still in flight when the wait ends, whatever the attempt timeout', async () => {
    // A service that accepts the connection and never answers: before, `--wait 2s` waited out the
    // whole 30 s attempt timeout.
    const times: number[] = [];
    const started = Date.now();
    const hanging = (_input: RequestInfo | URL, init?: RequestInit) =>
      new Promise<Response>((_resolve, reject) => {
        times.push(Date.now() - started);
        init?.signal?.addEventListener('abort', () => reject(init.signal?.reason));
      });
    let endedAt = 0;
    const loaded = clientOf(hanging)
      .secrets.load('vlt_1', { wait: 2_000 })
      .finally(() => {
        endedAt = Date.now() - started;
      });
    const error = await settle(loaded);
    expect(error).toBeInstanceOf(APITimeoutError);
    expect((error as Error).message).toBe(
      'Request timed out: attempt 1 had no answer when the wait (2000 ms) ended',
    );
    expect(times).toEqual([0]);
    expect(endedAt).toBe(2_000);
  });

  it('names what the attempt before failed with when the wait cuts the last one', async () => {
    // Refused, then accepted and never answered: on a loaded machine the last attempt of a dead
    // service can be the one the wait cuts, and the refusals must not vanish from the error.
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8443'), {
      code: 'ECONNREFUSED',
      address: '127.0.0.1',
      port: 8443,
    });
    let calls = 0;
    const fetch = (_input: RequestInfo | URL, init?: RequestInit) => {
      calls += 1;
      if (calls < 3) return Promise.reject(new TypeError('fetch failed', { cause: refused }));
      return new Promise<Response>((_resolve, reject) => {
        init?.signal?.addEventListener('abort', () => reject(init.signal?.reason));
      });
    };
    const error = await settle(clientOf(fetch).secrets.load('vlt_1', { wait: 5_000 }));
    expect(error).toBeInstanceOf(APITimeoutError);
    expect((error as Error).message).toBe(
      'Request timed out: attempt 3 had no answer when the wait (5000 ms) ended; attempt 2 failed with ECONNREFUSED',
    );
  });

  it('names the last failed attempt when totalTimeout ends the call', async () => {
    const service = scripted([503]);
    const error = await settle(
      clientOf(service.fetch).secrets.load('vlt_1', { wait: 60_000, totalTimeout: 3_000 }),
    );
    expect(error).toBeInstanceOf(APITimeoutError);
    expect((error as Error).message).toMatch(
      new RegExp(
        `^Request timed out: the call took longer than totalTimeout \\(3000 ms\\); attempt ${service.times.length} failed with 503$`,
      ),
    );
  });

  it('keeps a totalTimeout shorter than the wait as the deadline that ends the call', async () => {
    const service = outage(Number.POSITIVE_INFINITY);
    const error = await settle(
      clientOf(service.fetch).secrets.load('vlt_1', { wait: 60_000, totalTimeout: 3_000 }),
    );
    expect(error).toBeInstanceOf(APITimeoutError);
    expect((error as Error).message).toContain('totalTimeout (3000 ms)');
    expect(Math.max(...service.times)).toBeLessThanOrEqual(3_000);
  });

  it('ends with the class of the last answer, such as InternalServerError for a 503', async () => {
    const service = scripted([503]);
    const error = await settle(clientOf(service.fetch).secrets.load('vlt_1', { wait: 10_000 }));
    expect(error).toBeInstanceOf(InternalServerError);
    expect((error as InternalServerError).attempts).toBe(service.times.length);
    expect(service.times.length).toBeGreaterThan(3);
    expect((service.times.at(-1) ?? 0) - (service.times[0] ?? 0)).toBeLessThanOrEqual(10_000);
  });

  it.each([
    [400, BadRequestError],
    [401, AuthenticationError],
    [403, PermissionDeniedError],
    [404, NotFoundError],
    [422, UnprocessableEntityError],
  ])('fails at once on a %i verdict, whatever wait says', async (status, errorClass) => {
    const service = scripted([status]);
    const error = await settle(clientOf(service.fetch).secrets.load('vlt_1', { wait: 600_000 }));
    expect(error).toBeInstanceOf(errorClass);
    expect(service.times).toHaveLength(1);
  });

  it('keeps retrying 408, 429 and 5xx answers within the wait', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const service = scripted([408, 429, 500, 502, 503, 504, 200]);
    const error = await settle(clientOf(service.fetch).secrets.load('vlt_1', { wait: 30_000 }));
    expect(error).toBeUndefined();
    expect(service.times).toHaveLength(7);
  });

  it('uses the ordinary policy with wait: 0', async () => {
    const service = outage(Number.POSITIVE_INFINITY);
    const error = await settle(clientOf(service.fetch).secrets.load('vlt_1', { wait: 0 }));
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(service.times).toHaveLength(3);
  });

  it('uses the ordinary policy with the count a load passes as maxRetries', async () => {
    const service = outage(Number.POSITIVE_INFINITY);
    const error = await settle(clientOf(service.fetch).secrets.load('vlt_1', { maxRetries: 1 }));
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(service.times).toHaveLength(2);
  });

  it("ignores the client's maxRetries: the wait, not a count, ends a startup load", async () => {
    const service = outage(15_000);
    const client = clientOf(service.fetch, { maxRetries: 0 });
    expect(await settle(client.secrets.load('vlt_1'))).toBeUndefined();
    expect(service.times.length).toBeGreaterThan(1);
  });

  it('takes its default wait from SECRETS_VAULT_WAIT', async () => {
    vi.stubEnv('SECRETS_VAULT_WAIT', '5s');
    const service = outage(Number.POSITIVE_INFINITY);
    const error = await settle(clientOf(service.fetch).secrets.load('vlt_1'));
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(Math.max(...service.times)).toBeLessThanOrEqual(5_000);
    expect(service.times.length).toBeGreaterThan(2);
  });

  it('waits out its deadline, then fails with the answer, when Retry-After reaches past it', async () => {
    // Ending at once would have the job (and its supervisor's restart) ask again at once.
    for (const [retryAfter, status] of [
      ['30', 429],
      ['100', 503],
    ] as const) {
      const service = scripted([status], { 'Retry-After': retryAfter });
      const started = Date.now();
      const error = await settle(clientOf(service.fetch).secrets.load('vlt_1', { wait: 10_000 }));
      expect(error).toBeInstanceOf(status === 429 ? RateLimitError : InternalServerError);
      expect(service.times).toHaveLength(1);
      expect(Date.now() - started).toBeGreaterThanOrEqual(10_000 - 5);
      expect(Date.now() - started).toBeLessThanOrEqual(10_000);
    }
  });

  it('ends at a shorter totalTimeout with the answer, and at once on an abort', async () => {
    const service = scripted([503], { 'Retry-After': '100' });
    const client = new SecretsVault({
      baseUrl: BASE_URL,
      token: TOKEN,
      fetch: service.fetch,
      totalTimeout: 4_000,
    });
    const started = Date.now();
    const error = await settle(client.secrets.load('vlt_1', { wait: 10_000 }));
    expect(error).toBeInstanceOf(InternalServerError);
    expect(Date.now() - started).toBe(4_000);
    expect(service.times).toHaveLength(1);

    const controller = new AbortController();
    const aborted = clientOf(service.fetch).secrets.load('vlt_1', {
      wait: 10_000,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 1_000);
    expect(await settle(aborted)).toBeInstanceOf(APIUserAbortError);
  });

  it('honours a Retry-After longer than a minute when the wait allows it', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const service = scripted([503, 200], { 'Retry-After': '90' });
    const error = await settle(clientOf(service.fetch).secrets.load('vlt_1', { wait: 120_000 }));
    expect(error).toBeUndefined();
    expect(service.gaps()).toEqual([90_000]);
  });

  it('refuses a wait that is not whole milliseconds from 0 before sending', async () => {
    const service = outage(0);
    for (const wait of [-1, 1.5, Number.NaN]) {
      const error = await settle(clientOf(service.fetch).secrets.load('vlt_1', { wait }));
      expect(error).toBeInstanceOf(RequestValidationError);
      expect((error as RequestValidationError).issues[0]?.path).toEqual(['wait']);
    }
    expect(service.times).toHaveLength(0);
  });

  it('stops waiting when the caller aborts', async () => {
    const service = outage(Number.POSITIVE_INFINITY);
    const controller = new AbortController();
    const loaded = clientOf(service.fetch).secrets.load('vlt_1', { signal: controller.signal });
    setTimeout(() => controller.abort(), 3_000);
    const error = await settle(loaded);
    expect((error as Error).name).toBe('APIUserAbortError');
    expect(Math.max(...service.times)).toBeLessThanOrEqual(3_000);
  });

  it('waits in resolveReferences too', async () => {
    const service = outage(12_000);
    const resolved = clientOf(service.fetch).secrets.resolveReferences({
      PASSWORD: 'vault://vlt_1/stripe/password',
    });
    expect(await settle(resolved)).toBeUndefined();
    expect((await resolved).PASSWORD).toBe('hunter2');
  });

  it("waits on a cache's first load, and refreshes with the ordinary policy", async () => {
    let down = true;
    const times: number[] = [];
    const fetch = async () => {
      times.push(Date.now());
      if (down) throw new TypeError('fetch failed');
      return valuesResponse();
    };
    const cache = createSecretCache(clientOf(fetch), { ttl: 1_000 });
    setTimeout(() => {
      down = false;
    }, 10_000);
    const first = cache.load('vlt_1');
    expect(await settle(first)).toBeUndefined();
    expect(times.length).toBeGreaterThan(3);

    // The service goes down again: a refresh gives up after the ordinary 3 attempts and the
    // cached value is served meanwhile.
    down = true;
    await vi.advanceTimersByTimeAsync(2_000);
    times.length = 0;
    const stale = await cache.load('vlt_1');
    expect(stale.stripe?.password).toBe('hunter2');
    await vi.runAllTimersAsync();
    expect(times).toHaveLength(3);
  });

  it('gives a cache a wait of its own for first loads', async () => {
    const service = outage(Number.POSITIVE_INFINITY);
    const cache = createSecretCache(clientOf(service.fetch), { ttl: 1_000, wait: 4_000 });
    const error = await settle(cache.load('vlt_1'));
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(Math.max(...service.times)).toBeLessThanOrEqual(4_000);
    expect(() => createSecretCache(clientOf(service.fetch), { ttl: 1, wait: -1 })).toThrow(
      RangeError,
    );
  });
});
