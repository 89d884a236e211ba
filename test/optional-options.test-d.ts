/**
 * Under `exactOptionalPropertyTypes` (as this repository compiles), every options bag accepts
 * `undefined` for each optional setting, so the usual wrapper that forwards optional settings
 * it was given compiles without spreading conditionally. Compiled, never run.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type {
  LoadOptions,
  RequestOptions,
  SecretCacheLoadOptions,
  SecretCacheOptions,
  StartupOptions,
  ToArrayOptions,
  ToEnvOptions,
} from '../src/index.js';
import type { FaultTarget, MockFault, VaultMockOptions } from '../src/mock/index.js';
import type { ServeOptions } from '../src/mock/node.js';

/** What an application's own wrapper typically receives and forwards. */
interface Forwarded {
  signal?: AbortSignal | undefined;
  timeout?: number | undefined;
  totalTimeout?: number | undefined;
  maxRetries?: number | undefined;
  headers?: Record<string, string> | undefined;
  idempotencyKey?: string | undefined;
  wait?: number | undefined;
  max?: number | undefined;
  prefix?: string | undefined;
}

describe('options bags under exactOptionalPropertyTypes', () => {
  it('accept undefined for every optional setting', () => {
    const given: Forwarded = {};
    expectTypeOf({
      signal: given.signal,
      timeout: given.timeout,
      totalTimeout: given.totalTimeout,
      maxRetries: given.maxRetries,
      headers: given.headers,
      idempotencyKey: given.idempotencyKey,
    }).toExtend<RequestOptions>();
    expectTypeOf({ wait: given.wait, timeout: given.timeout }).toExtend<StartupOptions>();
    expectTypeOf({ wait: given.wait, schema: undefined }).toExtend<LoadOptions>();
    expectTypeOf({ max: given.max }).toExtend<ToArrayOptions>();
    expectTypeOf({ prefix: given.prefix }).toExtend<ToEnvOptions>();
    expectTypeOf({
      ttl: 1,
      maxStale: given.max,
      maxEntries: given.max,
      wait: given.wait,
      onChange: undefined,
      onError: undefined,
    }).toExtend<SecretCacheOptions>();
    expectTypeOf({ schema: undefined }).toExtend<SecretCacheLoadOptions<undefined>>();
    expectTypeOf({ baseUrl: given.prefix, now: given.max }).toExtend<VaultMockOptions>();
    expectTypeOf({
      port: given.max,
      host: given.prefix,
      allowNonLoopbackHost: undefined,
    }).toExtend<ServeOptions>();
    expectTypeOf({
      path: '/v1/vaults',
      method: given.prefix,
      times: given.max,
    }).toExtend<FaultTarget>();
    expectTypeOf({
      kind: 'status' as const,
      status: 429,
      retryAfter: given.max,
      errorCode: given.prefix,
    }).toExtend<MockFault>();
  });
});
