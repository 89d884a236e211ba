import { delay, HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  APIConnectionError,
  APITimeoutError,
  APIUserAbortError,
  InternalServerError,
  type LogFields,
  type Logger,
  NotFoundError,
  RateLimitError,
  ResponseValidationError,
  SecretsVault,
  SecretsVaultError,
} from '../../src/index.js';
import { BASE_URL, createClient, fail, ok, route, secret, TOKEN, vault } from '../helpers.js';
import { rejectionOf } from '../rejection.js';

describe('Retry-After', () => {
  it('fails at once, without retrying, when the service asks for more than a minute', async () => {
    const seen = route('get', '/vaults/:id', () =>
      fail(429, 'rate_limited', 'slow down', { 'Retry-After': '120' }),
    );
    const error = await rejectionOf(createClient({ maxRetries: 3 }).vaults.get('vlt_1'));
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfter).toBe(120);
    expect(seen).toHaveLength(1);
  });

  it('honours Retry-After given as an HTTP date', async () => {
    const seen = route('get', '/vaults/:id', (call) =>
      call === 0
        ? fail(503, 'unavailable', 'later', {
            'Retry-After': new Date(Date.now() - 1000).toUTCString(),
          })
        : ok(vault()),
    );
    await expect(createClient({ maxRetries: 1 }).vaults.get('vlt_1')).resolves.toEqual(vault());
    expect(seen).toHaveLength(2);
  });
});

describe('timeouts', () => {
  it('retries an attempt that timed out and returns the later success', async () => {
    const seen = route('get', '/vaults/:id', async (call) => {
      if (call === 0) await delay(3_000);
      return ok(vault());
    });
    const client = createClient({ timeout: 500, maxRetries: 2 });
    await expect(client.vaults.get('vlt_1')).resolves.toEqual(vault());
    // The first attempt hung; a retry answered (a starved machine may need one more).
    expect(seen.length).toBeGreaterThanOrEqual(2);
  });

  it('throws APITimeoutError with the attempt count when every attempt times out', async () => {
    route('get', '/vaults/:id', async () => {
      await delay(1_000);
      return ok(vault());
    });
    const error = await rejectionOf(
      createClient({ timeout: 50, maxRetries: 1 }).vaults.get('vlt_1'),
    );
    expect(error).toBeInstanceOf(APITimeoutError);
    expect((error as APITimeoutError).attempts).toBe(2);
  });

  it('ends the whole call at totalTimeout, however many retries remain', async () => {
    const seen = route('get', '/vaults/:id', () =>
      fail(503, 'unavailable', 'later', { 'Retry-After': '1' }),
    );
    const error = await rejectionOf(
      createClient({ maxRetries: 5 }).vaults.get('vlt_1', { totalTimeout: 300 }),
    );
    expect(error).toBeInstanceOf(APITimeoutError);
    expect(seen).toHaveLength(1);
  });

  it('refuses an unusable totalTimeout before sending', async () => {
    const seen = route('get', '/org', () => ok({}));
    const error = await rejectionOf(createClient().org.get({ totalTimeout: 0 }));
    expect(error).toBeInstanceOf(SecretsVaultError);
    expect(String(error)).toContain('totalTimeout');
    expect(seen).toHaveLength(0);
    expect(() => createClient({ totalTimeout: -1 })).toThrow(/totalTimeout/);
  });
});

describe('cancellation', () => {
  it('aborts in flight with APIUserAbortError and does not retry', async () => {
    const controller = new AbortController();
    const seen = route('get', '/vaults/:id', async () => {
      controller.abort();
      await delay(5_000);
      return ok(vault());
    });
    const error = await rejectionOf(
      createClient({ maxRetries: 2 }).vaults.get('vlt_1', { signal: controller.signal }),
    );
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect(seen).toHaveLength(1);
  });

  it('aborts during a backoff wait instead of sleeping it out', async () => {
    const controller = new AbortController();
    const seen = route('get', '/vaults/:id', () => {
      setTimeout(() => controller.abort(), 20);
      return fail(503, 'unavailable', 'later', { 'Retry-After': '30' });
    });
    // Without cancellation during the wait this would take 30 s and the test would time out.
    const error = await rejectionOf(
      createClient({ maxRetries: 2 }).vaults.get('vlt_1', { signal: controller.signal }),
    );
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect(seen).toHaveLength(1);
  });

  it('rejects at once with APIUserAbortError when the signal is already aborted', async () => {
    const seen = route('get', '/vaults/:id', () => ok(vault()));
    const error = await rejectionOf(
      createClient().vaults.get('vlt_1', { signal: AbortSignal.abort() }),
    );
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect(seen).toHaveLength(0);
  });
});

describe('retry budget', () => {
  it('stops retrying when most recent attempts failed, and recovers after successes', async () => {
    let healthy = false;
    const seen = route('get', '/vaults/:id', () =>
      healthy ? ok(vault()) : fail(503, 'unavailable', 'down', { 'Retry-After': '0' }),
    );
    const client = createClient({ maxRetries: 2, retryBudget: { capacity: 10, retryCost: 5 } });

    await rejectionOf(client.vaults.get('vlt_1'));
    expect(seen).toHaveLength(3); // two retries spend the whole bucket

    await rejectionOf(client.vaults.get('vlt_1'));
    expect(seen).toHaveLength(4); // no tokens left: fail fast, no retry

    healthy = true;
    for (let index = 0; index < 5; index += 1) await client.vaults.get('vlt_1');
    healthy = false;
    const before = seen.length;
    await rejectionOf(client.vaults.get('vlt_1'));
    expect(seen.length - before).toBe(2); // five successes refilled one retry's worth
  });

  it('can be turned off', async () => {
    const seen = route('get', '/vaults/:id', () =>
      fail(503, 'unavailable', 'down', { 'Retry-After': '0' }),
    );
    const client = createClient({ maxRetries: 1, retryBudget: false });
    for (let index = 0; index < 3; index += 1) await rejectionOf(client.vaults.get('vlt_1'));
    expect(seen).toHaveLength(6);
  });
});

describe('what errors tell an operator', () => {
  it('carries status, code, request id, attempts and the idempotency key of a failed create', async () => {
    route('post', '/vaults/:id/secrets', () =>
      fail(503, 'internal_error', 'down', { 'Retry-After': '0' }),
    );
    const error = await rejectionOf(
      createClient({ maxRetries: 2 }).secrets.create(
        'vlt_1',
        { name: 'db', value: { password: 'hunter2-hunter2' } },
        { idempotencyKey: 'deploy-77/db' },
      ),
    );
    expect(error).toBeInstanceOf(InternalServerError);
    const apiError = error as InternalServerError;
    expect(apiError.status).toBe(503);
    expect(apiError.code).toBe('internal_error');
    expect(apiError.requestId).toMatch(/^req_/);
    expect(apiError.attempts).toBe(3);
    expect(apiError.idempotencyKey).toBe('deploy-77/db');
  });

  it('counts attempts on connection errors too', async () => {
    route('get', '/vaults/:id', () => HttpResponse.error());
    const error = await rejectionOf(createClient({ maxRetries: 1 }).vaults.get('vlt_1'));
    expect(error).toBeInstanceOf(APIConnectionError);
    expect((error as APIConnectionError).attempts).toBe(2);
    expect((error as APIConnectionError).idempotencyKey).toBeNull();
  });
});

describe('hostile success bodies', () => {
  it('refuses a body larger than 32 MiB with ResponseValidationError instead of buffering it', async () => {
    route('get', '/vaults/:id', () => {
      const chunk = new Uint8Array(1024 * 1024).fill(32);
      let sent = 0;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent >= 40) controller.close();
          else {
            sent += 1;
            controller.enqueue(chunk);
          }
        },
      });
      return new HttpResponse(stream, {
        status: 200,
        headers: { 'Content-Type': 'application/json' },
      });
    });
    const error = await rejectionOf(createClient().vaults.get('vlt_1'));
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(String(error)).toContain('larger than');
  });

  it('refuses a body that declares more than 32 MiB before reading any of it', async () => {
    let pulled = 0;
    route('get', '/vaults/:id', () => {
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          pulled += 1;
          controller.enqueue(new Uint8Array(1024).fill(32));
        },
      });
      return new HttpResponse(stream, {
        status: 200,
        headers: { 'Content-Type': 'application/json', 'Content-Length': String(40 * 1024 ** 2) },
      });
    });
    const error = await rejectionOf(createClient().vaults.get('vlt_1'));
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(String(error)).toContain('larger than 33554432 bytes');
    // The transport buffers some chunks ahead of any reader; reading up to the limit would
    // pull 32,768 of them.
    expect(pulled).toBeLessThan(1000);
  });

  it('turns a body cut off mid-stream into APIConnectionError', async () => {
    route('get', '/vaults/:id', () => {
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('{"statusCode":200,"data":{'));
          controller.error(new TypeError('terminated'));
        },
      });
      return new HttpResponse(stream, {
        status: 200,
        headers: { 'Content-Type': 'application/json' },
      });
    });
    const error = await rejectionOf(createClient().vaults.get('vlt_1'));
    expect(error).toBeInstanceOf(APIConnectionError);
  });
});

describe('logging', () => {
  const secretValue = 'correct-horse-battery-staple';

  function recordingLogger() {
    const lines: Array<{ level: string; message: string; fields: LogFields }> = [];
    const record = (level: string) => (message: string, fields: LogFields) => {
      lines.push({ level, message, fields });
    };
    const logger: Logger = {
      debug: record('debug'),
      info: record('info'),
      warn: record('warn'),
      error: record('error'),
    };
    return { logger, lines };
  }

  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('reports method, path, status, attempt, duration, request id and key for each attempt', async () => {
    route('post', '/vaults/:id/secrets', (call) =>
      call === 0
        ? fail(503, 'internal_error', `down ${secretValue} ${TOKEN}`, { 'Retry-After': '0' })
        : ok(secret(), { status: 201 }),
    );
    const { logger, lines } = recordingLogger();
    const client = createClient({ maxRetries: 1, logger, logLevel: 'debug' });
    await client.secrets.create(
      'vlt_1',
      { name: 'db', value: { password: secretValue } },
      { idempotencyKey: 'job-1' },
    );

    const responses = lines.filter((line) => line.fields.status !== undefined);
    expect(responses.map((line) => [line.level, line.fields.status, line.fields.attempt])).toEqual([
      ['warn', 503, 1],
      ['info', 201, 2],
    ]);
    for (const line of responses) {
      expect(line.fields.method).toBe('POST');
      expect(line.fields.path).toBe('/v1/vaults/vlt_1/secrets');
      expect(line.fields.idempotencyKey).toBe('job-1');
      expect(line.fields.requestId).toMatch(/^req_/);
      expect(line.fields.durationMs).toBeGreaterThanOrEqual(0);
    }
    expect(lines.some((line) => line.level === 'warn' && line.message.startsWith('retrying'))).toBe(
      true,
    );
    expect(lines.some((line) => line.level === 'debug')).toBe(true);
  });

  it('never logs the token or a secret value, whatever the outcome', async () => {
    route('patch', '/secrets/:id', () =>
      fail(422, 'validation_error', `bad ${secretValue} ${TOKEN}`),
    );
    route('get', '/secrets/:id/value', () => ok({ ...secret(), value: { password: secretValue } }));
    const { logger, lines } = recordingLogger();
    const client = createClient({ logger, logLevel: 'debug' });
    await rejectionOf(client.secrets.update('sec_1', { value: { password: secretValue } }));
    await client.secrets.getValue('sec_1');
    expect(lines.length).toBeGreaterThan(0);
    const everything = JSON.stringify(lines);
    expect(everything).not.toContain(secretValue);
    expect(everything).not.toContain(TOKEN);
  });

  it('logs nothing by default and follows SECRETS_VAULT_LOG', async () => {
    route('get', '/vaults/:id', () => ok(vault()));
    const info = vi.spyOn(console, 'info').mockImplementation(() => undefined);
    await createClient().vaults.get('vlt_1');
    expect(info).not.toHaveBeenCalled();

    vi.stubEnv('SECRETS_VAULT_LOG', 'info');
    await new SecretsVault({ baseUrl: BASE_URL, token: TOKEN }).vaults.get('vlt_1');
    expect(info).toHaveBeenCalledTimes(1);
    expect(info.mock.calls[0]?.[0]).toContain('200 GET /v1/vaults/vlt_1');
    info.mockRestore();

    vi.stubEnv('SECRETS_VAULT_LOG', 'loud');
    expect(() => new SecretsVault({ baseUrl: BASE_URL, token: TOKEN })).toThrow(
      /SECRETS_VAULT_LOG/,
    );
  });
});

describe('what a custom fetch throws', () => {
  it.each([
    ['the TypeError a runtime throws', () => new TypeError('fetch failed')],
    ["a polyfill's TypeError", () => new TypeError('Network request failed')],
    [
      "a Node client's system error",
      () => Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }),
    ],
    [
      'an error whose cause is a system error',
      () =>
        new Error('request failed', {
          cause: Object.assign(new Error('x'), { code: 'ENOTFOUND' }),
        }),
    ],
  ])('retries %s as a dropped connection', async (_, failure) => {
    let calls = 0;
    const client = createClient({
      maxRetries: 1,
      fetch: async (input, init) => {
        calls += 1;
        if (calls === 1) throw failure();
        return fetch(input, init);
      },
    });
    route('get', '/vaults/:id', () => ok(vault()));
    await expect(client.vaults.get('vlt_1')).resolves.toEqual(vault());
    expect(calls).toBe(2);

    const down = createClient({ fetch: async () => Promise.reject(failure()) });
    expect(await rejectionOf(down.vaults.get('vlt_1'))).toBeInstanceOf(APIConnectionError);
  });

  it("surfaces a custom fetch's own bug once, as a SecretsVaultError with the original as cause", async () => {
    const bug = new TypeError("Cannot read properties of undefined (reading 'span')");
    let calls = 0;
    const client = createClient({
      maxRetries: 3,
      fetch: async () => {
        calls += 1;
        throw bug;
      },
    });
    const error = await rejectionOf(
      client.secrets.create('vlt_1', { name: 'n', value: { k: 'v' } }),
    );
    expect(calls).toBe(1);
    expect(error).toBeInstanceOf(SecretsVaultError);
    expect(error).not.toBeInstanceOf(APIConnectionError);
    expect((error as SecretsVaultError).cause).toBe(bug);
    expect((error as SecretsVaultError).attempts).toBe(1);
  });
});

describe('a fetch whose Response has no body stream', () => {
  /** A fetch like React Native's or a whatwg-fetch polyfill: `body` is null, `arrayBuffer()` works. */
  function streamless(): typeof globalThis.fetch {
    return async (input, init) => {
      const response = await fetch(input, init);
      Object.defineProperty(response, 'body', { value: null });
      return response;
    };
  }

  it('reads the envelope of a success, a create and a 404 through arrayBuffer()', async () => {
    route('get', '/vaults/:id', () => ok(vault()));
    const created = route('post', '/vaults/:vaultId/secrets', () => ok(secret(), { status: 201 }));
    route('get', '/teams/:id', () => fail(404, 'not_found', 'Team not found'));
    const client = createClient({ fetch: streamless() });

    await expect(client.vaults.get('vlt_1')).resolves.toEqual(vault());
    await expect(
      client.secrets.create('vlt_1', { name: 'stripe', value: { api_key: 'sk_1' } }),
    ).resolves.toEqual(secret());
    expect(created).toHaveLength(1);
    const missing = await rejectionOf(client.teams.get('team_9'));
    expect(missing).toBeInstanceOf(NotFoundError);
    expect((missing as NotFoundError).code).toBe('not_found');
    expect((missing as NotFoundError).message).toContain('Team not found');
  });

  it('refuses a body over the limit there too', async () => {
    route(
      'get',
      '/vaults/:id',
      () =>
        new Response(`{"data":"${'x'.repeat(33 * 1024 * 1024)}"}`, {
          status: 200,
          headers: { 'Content-Type': 'application/json' },
        }),
    );
    const error = await rejectionOf(createClient({ fetch: streamless() }).vaults.get('vlt_1'));
    expect(error).toBeInstanceOf(ResponseValidationError);
  });
});
