/**
 * `createSecretCache` in a long-running server: keyed by vault id whatever schema a call passes,
 * callers isolated from each other, `ttl` on a monotonic clock, a verdict on refresh ends the
 * cached value, every failed refresh is reported, and memory is bounded by `maxEntries`.
 */
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
 * a vault it does not know is a 404. It records which vault each request asked for.
 */
function vaultService() {
  const vaults = new Map<string, Values | number>();
  const requests: string[] = [];
  const fetch = async (input: RequestInfo | URL) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const vaultId = decodeURIComponent(url.pathname.split('/')[3] ?? '');
    requests.push(vaultId);
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
  return { client, vaults, asked };
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

    // A minute passes, and the wall clock is stepped back an hour (NTP, a VM resumed).
    elapse(61_000);
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
      elapse(61_000);
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
