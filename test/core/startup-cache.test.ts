/**
 * `createSecretCache` in a long-running server: keyed by vault id whatever schema a call passes,
 * callers isolated from each other, `ttl` on a monotonic clock, a verdict on refresh ends the
 * cached value, every failed refresh is reported, and memory is bounded by `maxEntries`; a vault
 * can be refreshed now or forgotten, and refreshes of a fleet are spread over `ttl`–`1.2 × ttl`.
 */
import { inspect } from 'node:util';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import {
  AuthenticationError,
  createSecretCache,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  SecretsVault,
} from '../../src/index.js';
import { BASE_URL, secret, TOKEN } from '../helpers.js';
import { rejectionOf } from '../rejection.js';

const PASSWORD = 'correct-horse-battery-staple';
const API_KEY = 'sk_live_51HqLyjWDarjtT1zdp7dc';
const STOCK = { database: { password: PASSWORD }, stripe: { apiKey: API_KEY } };

type Values = Record<string, Record<string, string>>;

/**
 * A service answering the values endpoint per vault: the values set in `vaults`, or a status;
 * a vault it does not know is a 404. It records which vault each request asked for; `hold()`
 * keeps the answers of the requests it gets until the function it returns is called.
 */
function vaultService() {
  const vaults = new Map<string, Values | number>();
  const requests: string[] = [];
  let held: Promise<void> | undefined;
  const fetch = async (input: RequestInfo | URL) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const vaultId = decodeURIComponent(url.pathname.split('/')[3] ?? '');
    requests.push(vaultId);
    await held;
    const answer = vaults.get(vaultId) ?? 404;
    if (typeof answer === 'number') {
      return Response.json(
        { statusCode: answer, errorCode: 'refused', message: 'no', data: null },
        { status: answer },
      );
    }
    const data = Object.entries(answer).map(([name, value], index) =>
      secret({ id: `sec_${index}`, vault_id: vaultId, name, value }),
    );
    return Response.json({ statusCode: 200, errorCode: null, message: null, data });
  };
  const client = new SecretsVault({ baseUrl: BASE_URL, token: TOKEN, fetch, maxRetries: 0 });
  const asked = (vaultId: string) => requests.filter((id) => id === vaultId).length;
  const hold = () => {
    let release = () => {};
    held = new Promise((resolve) => {
      release = () => {
        held = undefined;
        resolve();
      };
    });
    return release;
  };
  return { client, vaults, asked, hold };
}

/** Moves both clocks on, as time passing does. */
const elapse = (ms: number) => vi.advanceTimersByTime(ms);

describe('createSecretCache', () => {
  beforeEach(() => {
    // Only the clocks: the client's own timers run for real.
    vi.useFakeTimers({ toFake: ['Date', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('is keyed by vault id: inline schemas hit the cache, each applied to the cached values', async () => {
    const service = vaultService();
    service.vaults.set('vlt_1', STOCK);
    const cache = createSecretCache(service.client, { ttl: 60_000 });

    const stripe = await cache.load('vlt_1', {
      schema: z.object({ stripe: z.object({ apiKey: z.string() }) }),
    });
    const again = await cache.load('vlt_1', {
      schema: z.object({ stripe: z.object({ apiKey: z.string() }) }),
    });
    const password = await cache.load('vlt_1', {
      schema: z.object({ database: z.object({ password: z.string() }) }).transform((config) => ({
        length: config.database.password.length,
      })),
    });
    const raw = await cache.load('vlt_1');

    expect(service.asked('vlt_1')).toBe(1);
    expect(stripe).toEqual({ stripe: { apiKey: API_KEY } });
    expect(again).toEqual(stripe);
    expect(password).toEqual({ length: PASSWORD.length });
    expect(raw.database?.password).toBe(PASSWORD);
  });

  it('does not let one caller change what the next caller gets', async () => {
    const service = vaultService();
    service.vaults.set('vlt_1', STOCK);
    const cache = createSecretCache(service.client, { ttl: 60_000 });
    const schema = z.object({ database: z.object({ password: z.string() }) });

    const first = await cache.load('vlt_1');
    Reflect.set(first.database ?? {}, 'password', 'tampered');
    Reflect.deleteProperty(first, 'stripe');
    const typed = await cache.load('vlt_1', { schema });
    typed.database.password = 'tampered';

    const next = await cache.load('vlt_1');
    expect(next.database?.password).toBe(PASSWORD);
    expect(next.stripe?.apiKey).toBe(API_KEY);
    expect((await cache.load('vlt_1', { schema })).database.password).toBe(PASSWORD);
    expect(service.asked('vlt_1')).toBe(1);
  });

  it('measures ttl on a monotonic clock: a wall clock stepped back does not keep a value fresh', async () => {
    const service = vaultService();
    service.vaults.set('vlt_1', STOCK);
    const cache = createSecretCache(service.client, { ttl: 60_000 });
    await cache.load('vlt_1');

    // 1.2 × ttl passes, and the wall clock is stepped back an hour (NTP, a VM resumed).
    elapse(73_000);
    vi.setSystemTime(Date.now() - 60 * 60_000);
    service.vaults.set('vlt_1', { ...STOCK, database: { password: 'rotated' } });
    await cache.load('vlt_1');
    await vi.waitFor(async () =>
      expect((await cache.load('vlt_1')).database?.password).toBe('rotated'),
    );
    expect(service.asked('vlt_1')).toBe(2);

    // Nor does a wall clock jumping a day ahead age a value loaded a moment ago.
    vi.setSystemTime(Date.now() + 24 * 60 * 60_000);
    await cache.load('vlt_1');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(service.asked('vlt_1')).toBe(2);
  });

  it.each([
    [401, AuthenticationError],
    [403, PermissionDeniedError],
    [404, NotFoundError],
  ])(
    'drops a vault refused with %i on refresh: no stale value after a verdict',
    async (status, errorClass) => {
      const service = vaultService();
      service.vaults.set('vlt_1', STOCK);
      const onError = vi.fn();
      const cache = createSecretCache(service.client, { ttl: 60_000, onError });
      await cache.load('vlt_1');

      service.vaults.set('vlt_1', status);
      elapse(73_000);
      await cache.load('vlt_1');
      await vi.waitFor(() => expect(onError).toHaveBeenCalledTimes(1));

      expect(onError).toHaveBeenCalledWith('vlt_1', expect.any(errorClass));
      expect(await rejectionOf(cache.load('vlt_1'))).toBeInstanceOf(errorClass);
      expect(await rejectionOf(cache.load('vlt_1'))).toBeInstanceOf(errorClass);
      expect(cache.size).toBe(0);
    },
  );

  it('calls onError for every failed refresh, ignoring what it throws, and serves the last good value', async () => {
    const service = vaultService();
    service.vaults.set('vlt_1', STOCK);
    const onError = vi.fn(() => {
      throw new Error('a broken observer');
    });
    const cache = createSecretCache(service.client, { ttl: 1_000, onError });
    await cache.load('vlt_1');
    service.vaults.set('vlt_1', 503);

    for (const failures of [1, 2, 3]) {
      elapse(2_000);
      expect((await cache.load('vlt_1')).database?.password).toBe(PASSWORD);
      await vi.waitFor(() => expect(onError).toHaveBeenCalledTimes(failures));
    }
    for (const [vaultId, error] of onError.mock.calls as unknown as [string, unknown][]) {
      expect(vaultId).toBe('vlt_1');
      expect(error).toBeInstanceOf(InternalServerError);
    }
  });

  it('keeps no entry for a failed first load, however many unknown vaults are asked for', async () => {
    const service = vaultService();
    service.vaults.set('vlt_1', STOCK);
    service.vaults.set('vlt_2', STOCK);
    const cache = createSecretCache(service.client, { ttl: 60_000, maxEntries: 2 });
    await cache.load('vlt_1');
    await cache.load('vlt_2');

    for (let index = 0; index < 100_000; index += 1) {
      await cache.load(`vlt_unknown_${index}`).catch(() => undefined);
    }

    expect(cache.size).toBe(2);
    // Neither known vault was pushed out to make room for a failure.
    await cache.load('vlt_1');
    await cache.load('vlt_2');
    expect(service.asked('vlt_1')).toBe(1);
    expect(service.asked('vlt_2')).toBe(1);
    // Nor was a failure remembered: the service is asked again.
    expect(await rejectionOf(cache.load('vlt_unknown_0'))).toBeInstanceOf(NotFoundError);
    expect(service.asked('vlt_unknown_0')).toBe(2);
  }, 60_000);

  it('keeps at most maxEntries vaults (1000 by default), the least recently used out first', async () => {
    const service = vaultService();
    for (let index = 0; index <= 1_000; index += 1) service.vaults.set(`vlt_${index}`, STOCK);

    const small = createSecretCache(service.client, { ttl: 60_000, maxEntries: 2 });
    await small.load('vlt_1');
    await small.load('vlt_2');
    await small.load('vlt_1');
    await small.load('vlt_3');
    expect(small.size).toBe(2);
    await small.load('vlt_1');
    await small.load('vlt_3');
    expect([service.asked('vlt_1'), service.asked('vlt_3')]).toEqual([1, 1]);
    await small.load('vlt_2');
    expect(service.asked('vlt_2')).toBe(2);

    const byDefault = createSecretCache(service.client, { ttl: 60_000 });
    for (let index = 0; index <= 1_000; index += 1) await byDefault.load(`vlt_${index}`);
    expect(byDefault.size).toBe(1_000);
    await byDefault.load('vlt_0');
    expect(service.asked('vlt_0')).toBe(2);

    for (const maxEntries of [0, -1, 1.5, Number.NaN]) {
      expect(() => createSecretCache(service.client, { ttl: 1, maxEntries })).toThrow(RangeError);
    }
  });
});

describe('SecretCache.refresh, SecretCache.delete and spread refreshes', () => {
  const ROTATED = { ...STOCK, database: { password: 'rotated-password' } };

  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('refresh loads now, calls onChange when values changed and not when they are the same, and restarts ttl', async () => {
    const service = vaultService();
    service.vaults.set('vlt_1', STOCK);
    const onChange = vi.fn();
    // maxStale 0: a load past the refresh point waits for its request, so none goes unseen.
    const cache = createSecretCache(service.client, { ttl: 60_000, maxStale: 0, onChange });
    const first = await cache.load('vlt_1');

    await cache.refresh('vlt_1');
    expect(service.asked('vlt_1')).toBe(2);
    expect(onChange).not.toHaveBeenCalled();
    expect(await cache.load('vlt_1')).toEqual(first);

    elapse(50_000);
    service.vaults.set('vlt_1', ROTATED);
    await cache.refresh('vlt_1');
    expect(service.asked('vlt_1')).toBe(3);
    expect(onChange).toHaveBeenCalledTimes(1);
    expect(onChange.mock.calls[0]?.[0]).toBe('vlt_1');
    expect(onChange.mock.calls[0]?.[1].database.password).toBe('rotated-password');

    // 100 s after the first load but 50 s after the refresh: still fresh, from memory.
    elapse(50_000);
    expect((await cache.load('vlt_1')).database?.password).toBe('rotated-password');
    expect(service.asked('vlt_1')).toBe(3);
  });

  it('sends one request for concurrent refresh calls', async () => {
    const service = vaultService();
    service.vaults.set('vlt_1', STOCK);
    const onChange = vi.fn();
    const cache = createSecretCache(service.client, { ttl: 60_000, onChange });
    await cache.load('vlt_1');
    service.vaults.set('vlt_1', ROTATED);

    await Promise.all([cache.refresh('vlt_1'), cache.refresh('vlt_1'), cache.refresh('vlt_1')]);

    expect(service.asked('vlt_1')).toBe(2);
    expect(onChange).toHaveBeenCalledTimes(1);
  });

  it('shares a background refresh already in flight rather than sending a second request', async () => {
    const service = vaultService();
    service.vaults.set('vlt_1', STOCK);
    const onChange = vi.fn();
    const cache = createSecretCache(service.client, { ttl: 60_000, onChange });
    const first = await cache.load('vlt_1');
    service.vaults.set('vlt_1', ROTATED);

    elapse(73_000);
    const release = service.hold();
    expect(await cache.load('vlt_1')).toBe(first);
    await vi.waitFor(() => expect(service.asked('vlt_1')).toBe(2));
    const refreshing = cache.refresh('vlt_1');
    release();
    await refreshing;

    expect(service.asked('vlt_1')).toBe(2);
    expect(onChange).toHaveBeenCalledTimes(1);
    expect((await cache.load('vlt_1')).database?.password).toBe('rotated-password');
  });

  it('loads and keeps a vault not cached, sharing a first load already in flight', async () => {
    const service = vaultService();
    service.vaults.set('vlt_1', STOCK);
    const onChange = vi.fn();
    const cache = createSecretCache(service.client, { ttl: 60_000, onChange });

    await cache.refresh('vlt_1');
    expect(cache.size).toBe(1);
    expect((await cache.load('vlt_1')).database?.password).toBe(PASSWORD);
    expect(service.asked('vlt_1')).toBe(1);
    expect(onChange).not.toHaveBeenCalled();

    service.vaults.set('vlt_2', STOCK);
    const release = service.hold();
    const loading = cache.load('vlt_2');
    await vi.waitFor(() => expect(service.asked('vlt_2')).toBe(1));
    const refreshing = cache.refresh('vlt_2');
    release();
    await Promise.all([loading, refreshing]);
    expect(service.asked('vlt_2')).toBe(1);
    expect(cache.size).toBe(2);

    // A vault the service does not know is not kept.
    expect(await rejectionOf(cache.refresh('vlt_unknown'))).toBeInstanceOf(NotFoundError);
    expect(cache.size).toBe(2);
  });

  it('rejects with the error of an outage and keeps serving the entry as it was', async () => {
    const service = vaultService();
    service.vaults.set('vlt_1', STOCK);
    const onError = vi.fn();
    const cache = createSecretCache(service.client, { ttl: 60_000, onError });
    const first = await cache.load('vlt_1');

    elapse(50_000);
    service.vaults.set('vlt_1', 503);
    expect(await rejectionOf(cache.refresh('vlt_1'))).toBeInstanceOf(InternalServerError);
    expect(onError).toHaveBeenCalledWith('vlt_1', expect.any(InternalServerError));
    expect(await cache.load('vlt_1')).toBe(first);
    expect(cache.size).toBe(1);
    expect(service.asked('vlt_1')).toBe(2);

    // The failed refresh did not restart ttl: the entry is due as it was, and refreshed then.
    service.vaults.set('vlt_1', ROTATED);
    elapse(23_000);
    expect(await cache.load('vlt_1')).toBe(first);
    await vi.waitFor(async () =>
      expect((await cache.load('vlt_1')).database?.password).toBe('rotated-password'),
    );
    expect(service.asked('vlt_1')).toBe(3);
  });

  it.each([
    [401, AuthenticationError],
    [403, PermissionDeniedError],
    [404, NotFoundError],
  ])('drops the entry when a refresh gets a %i verdict', async (status, errorClass) => {
    const service = vaultService();
    service.vaults.set('vlt_1', STOCK);
    const cache = createSecretCache(service.client, { ttl: 60_000 });
    await cache.load('vlt_1');

    service.vaults.set('vlt_1', status);
    expect(await rejectionOf(cache.refresh('vlt_1'))).toBeInstanceOf(errorClass);
    expect(cache.size).toBe(0);
    expect(await rejectionOf(cache.load('vlt_1'))).toBeInstanceOf(errorClass);
    expect(service.asked('vlt_1')).toBe(3);
  });

  it('delete forgets one vault, true when it was cached, and the next load asks the service', async () => {
    const service = vaultService();
    service.vaults.set('vlt_1', STOCK);
    service.vaults.set('vlt_2', STOCK);
    const cache = createSecretCache(service.client, { ttl: 60_000 });
    await cache.load('vlt_1');
    await cache.load('vlt_2');

    expect(cache.delete('vlt_1')).toBe(true);
    expect(cache.delete('vlt_1')).toBe(false);
    expect(cache.delete('vlt_never_loaded')).toBe(false);
    expect(cache.size).toBe(1);

    await cache.load('vlt_1');
    await cache.load('vlt_2');
    expect(service.asked('vlt_1')).toBe(2);
    expect(service.asked('vlt_2')).toBe(1);
  });

  it('does not let a refresh or first load in flight bring a deleted vault back', async () => {
    const service = vaultService();
    service.vaults.set('vlt_1', STOCK);
    const onChange = vi.fn();
    const cache = createSecretCache(service.client, { ttl: 60_000, onChange });
    await cache.load('vlt_1');
    service.vaults.set('vlt_1', ROTATED);

    let release = service.hold();
    const refreshing = cache.refresh('vlt_1');
    await vi.waitFor(() => expect(service.asked('vlt_1')).toBe(2));
    expect(cache.delete('vlt_1')).toBe(true);
    release();
    await refreshing;
    expect(cache.size).toBe(0);
    expect(onChange).not.toHaveBeenCalled();

    release = service.hold();
    const loading = cache.load('vlt_1');
    await vi.waitFor(() => expect(service.asked('vlt_1')).toBe(3));
    expect(cache.delete('vlt_1')).toBe(false);
    release();
    expect((await loading).database?.password).toBe('rotated-password');
    expect(cache.size).toBe(0);

    await cache.load('vlt_1');
    expect(service.asked('vlt_1')).toBe(4);
  });

  it('refreshes at ttl when the draw is 0, and just before 1.2 × ttl when it is 0.999', async () => {
    const service = vaultService();
    service.vaults.set('vlt_1', STOCK);
    // maxStale 0: a load past the refresh point waits for its request, so none goes unseen.
    const options = { ttl: 60_000, maxStale: 0 };
    const random = vi.spyOn(Math, 'random');

    random.mockReturnValue(0);
    const early = createSecretCache(service.client, options);
    await early.load('vlt_1');
    elapse(59_999);
    await early.load('vlt_1');
    expect(service.asked('vlt_1')).toBe(1);
    elapse(2);
    await early.load('vlt_1');
    expect(service.asked('vlt_1')).toBe(2);

    random.mockReturnValue(0.999);
    const late = createSecretCache(service.client, options);
    await late.load('vlt_1');
    elapse(71_980);
    await late.load('vlt_1');
    expect(service.asked('vlt_1')).toBe(3);
    elapse(20);
    await late.load('vlt_1');
    expect(service.asked('vlt_1')).toBe(4);
  });

  it('spreads the refreshes of 200 caches started together over ttl to 1.2 × ttl', async () => {
    const service = vaultService();
    const ttl = 60_000;
    const caches = Array.from({ length: 200 }, (_, index) => {
      service.vaults.set(`vlt_${index}`, STOCK);
      return createSecretCache(service.client, { ttl, maxStale: 0 });
    });
    await Promise.all(caches.map((cache, index) => cache.load(`vlt_${index}`)));

    // Every 100 ms from ttl on, each cache not yet refreshed is asked for its vault.
    const refreshedAt = new Map<number, number>();
    elapse(ttl);
    for (let step = 1; step <= 120 && refreshedAt.size < caches.length; step += 1) {
      elapse(100);
      for (const [index, cache] of caches.entries()) {
        if (refreshedAt.has(index)) continue;
        await cache.load(`vlt_${index}`);
        if (service.asked(`vlt_${index}`) === 2) refreshedAt.set(index, ttl + step * 100);
      }
    }

    const times = [...refreshedAt.values()];
    expect(times).toHaveLength(200);
    expect(Math.min(...times)).toBeLessThanOrEqual(ttl + 1_000);
    expect(Math.max(...times)).toBeGreaterThanOrEqual(1.2 * ttl - 1_000);
    expect(Math.max(...times)).toBeLessThanOrEqual(1.2 * ttl);
    // 200 draws over 120 slots of 100 ms fill about 97 of them; all at once would fill one.
    expect(new Set(times).size).toBeGreaterThan(50);
  });

  it('passes hostile values through refresh and onChange unchanged, and never into an error', async () => {
    const hostile = {
      quotes: `'"\`'\\''"`,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion, kept literal on purpose.
      substitution: '$(touch /tmp/pwned) `id` ${HOME} $HOME',
      controls: '\u0001\u0007\b\t\n\v\f\r\u001b[31m\u007f\u0085\u2028',
      escapes: '\\n\\t\\x00\\u0000 %s %d %o {{ x }}',
      reference: 'vault://vlt_1/database/password',
      large: 'A"$\n'.repeat(16 * 1024),
    };
    const service = vaultService();
    service.vaults.set('vlt_1', STOCK);
    const onChange = vi.fn();
    const onError = vi.fn();
    const cache = createSecretCache(service.client, { ttl: 60_000, onChange, onError });
    await cache.load('vlt_1');

    service.vaults.set('vlt_1', { hostile });
    await cache.refresh('vlt_1');
    const changed = onChange.mock.calls[0]?.[1] as Values;
    const loaded = (await cache.load('vlt_1')) as Values;
    for (const [key, value] of Object.entries(hostile)) {
      expect(changed.hostile?.[key]).toBe(value);
      expect(loaded.hostile?.[key]).toBe(value);
    }
    expect(hostile.large).toHaveLength(64 * 1024);

    const errors: unknown[] = [];
    errors.push(
      await rejectionOf(
        cache.load('vlt_1', { schema: z.object({ hostile: z.object({ large: z.number() }) }) }),
      ),
    );
    service.vaults.set('vlt_1', 503);
    errors.push(await rejectionOf(cache.refresh('vlt_1')));
    service.vaults.set('vlt_1', 404);
    errors.push(await rejectionOf(cache.refresh('vlt_1')));
    errors.push(...onError.mock.calls.map(([, error]) => error));
    expect(errors).toHaveLength(5);
    for (const error of errors) {
      const printed = `${inspect(error, { depth: Number.POSITIVE_INFINITY })} ${String(error)} ${JSON.stringify(error)}`;
      for (const value of Object.values(hostile)) expect(printed).not.toContain(value);
    }
  });
});
