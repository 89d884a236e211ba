/**
 * The client against servers, proxies and networks that misbehave on purpose, over real sockets:
 * redirects, slow and cut bodies, cursors that never end, echoed secrets, forged log lines,
 * refused connections. Whatever comes back must become data or one of the SDK's errors, within
 * the deadlines the caller set, and nothing secret may leave for another origin or reach a message.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  APIConnectionError,
  APIError,
  APITimeoutError,
  APIUserAbortError,
  type Logger,
  RedirectError,
  RequestValidationError,
  ResponseValidationError,
  SecretsVault,
  SecretsVaultError,
} from '../../src/index.js';
import { rejectionOf } from '../rejection.js';
import {
  cutBody,
  type ScriptedServer,
  secretData,
  sendJson,
  serveScript,
  sleep,
  success,
  vaultData,
} from './scripted-server.js';

const TOKEN = 'sv_live_token_do_not_leak_9c1e5b2d';
const PEM = [
  '-----BEGIN PRIVATE KEY-----',
  'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7',
  'q9dW1x0vN3k0Zr8pL2mT5sYhQe1oJ4uVbXnR6cAaKf0GjHlEwI',
  '-----END PRIVATE KEY-----',
].join('\n');

const servers: ScriptedServer[] = [];
async function start(script: Parameters<typeof serveScript>[0]): Promise<ScriptedServer> {
  const server = await serveScript(script);
  servers.push(server);
  return server;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  vi.restoreAllMocks();
});

function clientFor(
  server: { url: string },
  options: ConstructorParameters<typeof SecretsVault>[0] = {},
) {
  // Near-zero jitter keeps retries fast without changing what is retried.
  vi.spyOn(Math, 'random').mockReturnValue(0.001);
  return new SecretsVault({ baseUrl: server.url, token: TOKEN, maxRetries: 2, ...options });
}

/** What `build` throws. */
function thrownBy(build: () => void): unknown {
  try {
    build();
  } catch (error) {
    return error;
  }
  throw new Error('expected it to throw');
}

/** Everything an error shows when printed, stack and cause chain included. */
function printed(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth += 1) {
    parts.push(String(current.stack), current.message, JSON.stringify(current));
    current = current.cause;
  }
  return parts.join('\n');
}

describe('redirects', () => {
  it.each([
    [307, 'create'],
    [308, 'update'],
  ] as const)(
    'never re-sends a secret to the Location of a %i on secrets.%s',
    async (status, method) => {
      const elsewhere = await start((_request, response) =>
        sendJson(response, 201, success(secretData())),
      );
      const server = await start((_request, response) => {
        response.writeHead(status, { Location: `${elsewhere.url}/v1/steal` });
        response.end();
      });
      const client = clientFor(server, { headers: { 'X-Tenant': 'acme' } });
      const call =
        method === 'create'
          ? client.secrets.create('vlt_1', { name: 'db', value: { key: PEM } })
          : client.secrets.update('sec_1', { value: { key: PEM } });
      const error = await rejectionOf(call);
      expect(error).toBeInstanceOf(RedirectError);
      expect(error).toBeInstanceOf(APIError);
      expect((error as RedirectError).status).toBe(status);
      expect((error as RedirectError).location).toBe(`${elsewhere.url}/v1/steal`);
      expect(server.requests).toHaveLength(1);
      expect(elsewhere.requests).toHaveLength(0);
    },
  );

  it.each([301, 302, 303])('does not turn a POST into a GET elsewhere on a %i', async (status) => {
    const elsewhere = await start((_request, response) =>
      sendJson(response, 200, success(vaultData())),
    );
    const server = await start((_request, response) => {
      response.writeHead(status, { Location: `${elsewhere.url}/v1/vaults` });
      response.end();
    });
    const error = await rejectionOf(clientFor(server).vaults.create({ name: 'Payments' }));
    expect(error).toBeInstanceOf(RedirectError);
    expect(elsewhere.requests).toHaveLength(0);
    expect(server.requests).toHaveLength(1);
  });

  it('reports the opaque redirect a browser gives for redirect: manual as RedirectError', async () => {
    const seenModes: string[] = [];
    const fetch = async (input: RequestInfo | URL) => {
      seenModes.push((input as Request).redirect);
      // What a browser hands back: status 0, no headers, type opaqueredirect.
      const response = new Response(null, { status: 200 });
      for (const [name, value] of Object.entries({
        status: 0,
        ok: false,
        type: 'opaqueredirect',
      })) {
        Object.defineProperty(response, name, { value });
      }
      return response;
    };
    const client = new SecretsVault({ baseUrl: 'https://vault.example.com', token: TOKEN, fetch });
    const error = await rejectionOf(client.vaults.get('vlt_1'));
    expect(error).toBeInstanceOf(RedirectError);
    expect((error as RedirectError).status).toBe(0);
    expect((error as Error).message).toContain('status hidden by the browser');
    expect(seenModes).toEqual(['manual']);
  });

  it('spends one request on a redirect loop, and does not retry it', async () => {
    const server = await start((request, response) => {
      response.writeHead(302, { Location: request.url });
      response.end();
    });
    const error = await rejectionOf(clientFor(server).vaults.get('vlt_1'));
    expect(error).toBeInstanceOf(RedirectError);
    expect((error as RedirectError).attempts).toBe(1);
    expect(server.requests).toHaveLength(1);
  });
});

describe('deadlines', () => {
  it('ends a call at totalTimeout while the body trickles in', async () => {
    let finishedWriting = false;
    const server = await start(async (_request, response) => {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      // Ten seconds of body, a byte every 200 ms.
      for (let index = 0; index < 50 && !response.destroyed; index += 1) {
        response.write(' ');
        await sleep(200);
      }
      finishedWriting = !response.destroyed;
      response.end();
    });
    const error = await rejectionOf(
      clientFor(server, { timeout: 20_000 }).vaults.get('vlt_1', { totalTimeout: 1_500 }),
    );
    expect(error).toBeInstanceOf(APITimeoutError);
    expect((error as Error).message).toContain('totalTimeout (1500 ms)');
    expect(finishedWriting).toBe(false);
  });

  it('counts the body inside the attempt timeout instead of restarting it at the headers', async () => {
    const server = await start(async (_request, response) => {
      await sleep(600);
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.write('{');
      // The rest never comes.
    });
    const started = performance.now();
    const error = await rejectionOf(
      clientFor(server, { maxRetries: 0 }).vaults.get('vlt_1', { timeout: 800 }),
    );
    const elapsed = performance.now() - started;
    expect(error).toBeInstanceOf(APITimeoutError);
    expect((error as Error).message).toBe(
      'Request timed out: attempt 1 took longer than timeout (800 ms)',
    );
    // A deadline restarted at the headers would end at 600 + 800 ms at the earliest.
    expect(elapsed).toBeLessThan(1_350);
  });

  it('retries an attempt whose body timed out, as any other timeout', async () => {
    const server = await start(async (_request, response, index) => {
      if (index === 0) {
        response.writeHead(200, { 'Content-Type': 'application/json' });
        response.write('{"statusCode":');
        return;
      }
      sendJson(response, 200, success(vaultData()));
    });
    const vault = await clientFor(server).vaults.get('vlt_1', { timeout: 300 });
    expect(vault.id).toBe('vlt_1');
    expect(server.requests).toHaveLength(2);
  });
});

describe('bodies cut off after the headers', () => {
  it('retries a GET whose body was cut off, and returns the later answer', async () => {
    const body = JSON.stringify(success(vaultData()));
    const server = await start((_request, response, index) =>
      index === 0 ? cutBody(response, 200, body) : sendJson(response, 200, success(vaultData())),
    );
    const vault = await clientFor(server).vaults.get('vlt_1');
    expect(vault).toEqual(vaultData());
    expect(server.requests).toHaveLength(2);
  });

  it('retries a create whose answer was cut off with the same Idempotency-Key', async () => {
    const body = JSON.stringify({ ...success(vaultData()), statusCode: 201 });
    const server = await start((_request, response, index) =>
      index === 0
        ? cutBody(response, 201, body)
        : sendJson(
            response,
            201,
            { ...success(vaultData()), statusCode: 201 },
            { 'Idempotent-Replayed': 'true' },
          ),
    );
    const result = await clientFor(server).vaults.create({ name: 'Payments' }).withResponse();
    expect(result.replayed).toBe(true);
    const keys = server.requests.map((request) => request.headers['idempotency-key']);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toBeTruthy();
    expect(keys[1]).toBe(keys[0]);
  });

  it('fails with a one-line APIConnectionError once every attempt was cut off', async () => {
    const server = await start((_request, response) =>
      cutBody(response, 200, JSON.stringify(success(vaultData()))),
    );
    const error = await rejectionOf(clientFor(server).vaults.get('vlt_1'));
    expect(error).toBeInstanceOf(APIConnectionError);
    expect((error as Error).message).toMatch(/^Connection error: the response body was cut off/);
    expect((error as Error).message).not.toContain('\n');
    expect((error as APIConnectionError).attempts).toBe(3);
    expect(server.requests).toHaveLength(3);
  });
});

describe('bodies that never end', () => {
  it('stops an endless body of unknown length at 32 MiB and closes the connection', async () => {
    let written = 0;
    let closed = false;
    const server = await start((_request, response) => {
      // Chunked, no Content-Length: the size is known only as it arrives.
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.on('close', () => {
        closed = true;
      });
      const chunk = Buffer.alloc(256 * 1024, 32);
      const pump = () => {
        while (!closed && written < 256 * 1024 ** 2) {
          written += chunk.length;
          if (!response.write(chunk)) {
            response.once('drain', pump);
            return;
          }
        }
        response.end();
      };
      pump();
    });
    const error = await rejectionOf(clientFor(server, { maxRetries: 0 }).vaults.get('vlt_1'));
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(String(error)).toContain('larger than 33554432 bytes');
    await vi.waitFor(() => expect(closed).toBe(true));
    // The fetch was aborted near the limit rather than left to download the rest.
    expect(written).toBeLessThan(128 * 1024 ** 2);
  });
});

describe('pagination that would never end', () => {
  it('refuses a cursor already followed (A → B → A) with a ResponseValidationError', async () => {
    const next: Record<string, string> = { '': 'A', A: 'B', B: 'A' };
    const server = await start((request, response) => {
      const cursor = new URL(request.url, 'http://x').searchParams.get('cursor') ?? '';
      sendJson(response, 200, success([vaultData(`vlt_${cursor}`)], next[cursor] ?? null));
    });
    const seen: string[] = [];
    const error = await rejectionOf(
      (async () => {
        for await (const vault of clientFor(server).vaults.list()) seen.push(vault.id);
      })(),
    );
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).issues[0]?.path).toEqual(['next_cursor']);
    expect((error as Error).message).toContain('already followed');
    expect(seen).toEqual(['vlt_', 'vlt_A']);
    expect(server.requests).toHaveLength(3);
  });

  it('stops after ten empty pages in a row that each promise more, even under toArray({ max })', async () => {
    const server = await start((_request, response, index) =>
      sendJson(response, 200, success([], `cursor-${index}`)),
    );
    const error = await rejectionOf(clientFor(server).vaults.list().toArray({ max: 5 }));
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as Error).message).toContain('empty on 10 pages in a row');
    expect(server.requests).toHaveLength(10);
  });

  it('follows a cursor again on a second getNextPage() of the same page', async () => {
    const server = await start((request, response) => {
      const cursor = new URL(request.url, 'http://x').searchParams.get('cursor');
      sendJson(
        response,
        200,
        success([vaultData(cursor ?? 'first')], cursor === null ? 'A' : null),
      );
    });
    const first = await clientFor(server).vaults.list();
    const again = await first.getNextPage();
    const andAgain = await first.getNextPage();
    expect(again.data).toEqual(andAgain.data);
  });
});

describe('loggers', () => {
  const throwingLogger = (level: keyof Logger): Logger => ({
    debug() {},
    info() {},
    warn() {},
    error() {},
    [level]: () => {
      throw new Error('logger exploded');
    },
  });

  it.each(['debug', 'info', 'warn'] as const)(
    'never lets a logger whose %s throws change the outcome of a retried create',
    async (level) => {
      const server = await start((_request, response, index) =>
        index === 0
          ? sendJson(response, 503, {
              statusCode: 503,
              errorCode: 'unavailable',
              message: 'busy',
              data: null,
            })
          : sendJson(response, 201, { ...success(vaultData()), statusCode: 201 }),
      );
      const client = clientFor(server, { logger: throwingLogger(level), logLevel: 'debug' });
      const vault = await client.vaults.create({ name: 'x' });
      expect(vault.id).toBe('vlt_1');
      expect(server.requests).toHaveLength(2);
    },
  );

  it('never lets a logger whose error throws replace the error of a call', async () => {
    const server = await start((_request, response) =>
      sendJson(response, 404, {
        statusCode: 404,
        errorCode: 'not_found',
        message: 'gone',
        data: null,
      }),
    );
    const client = clientFor(server, { logger: throwingLogger('error'), logLevel: 'debug' });
    const error = await rejectionOf(client.vaults.get('vlt_1'));
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(404);
    expect(server.requests).toHaveLength(1);
  });

  it('ignores an async logger that rejects', async () => {
    const server = await start((_request, response) =>
      sendJson(response, 200, success(vaultData())),
    );
    const rejecting = () => Promise.reject(new Error('async logger failed'));
    const logger = { debug: rejecting, info: rejecting, warn: rejecting, error: rejecting };
    const vault = await clientFor(server, { logger, logLevel: 'debug' }).vaults.get('vlt_1');
    expect(vault.id).toBe('vlt_1');
    await sleep(20);
  });
});

describe('input that would throw inside fetch', () => {
  it('refuses a base URL with credentials without printing them', () => {
    const error = thrownBy(() => {
      new SecretsVault({
        baseUrl: 'https://admin:hunter2-secret@vault.example.com',
        token: TOKEN,
      });
    });
    expect(error).toBeInstanceOf(SecretsVaultError);
    expect((error as Error).message).toContain('`baseUrl`');
    expect((error as Error).message).toContain('credentials');
    expect(printed(error)).not.toContain('hunter2');
  });

  it('refuses a client header with a line break, naming the option, never the value', () => {
    const error = thrownBy(() => {
      new SecretsVault({
        baseUrl: 'https://vault.example.com',
        token: TOKEN,
        headers: { 'X-Trace': 'ok\nX-Evil: 1' },
      });
    });
    expect(error).toBeInstanceOf(SecretsVaultError);
    expect((error as Error).message).toContain('headers.X-Trace');
    expect(printed(error)).not.toContain('X-Evil');
  });

  it.each([
    ['a value with a line break', { 'X-Trace': 'secret-value\r\nX-Evil: 1' }],
    ['a value with NUL', { 'X-Trace': 'secret-value\0' }],
    ['a value beyond Latin-1', { 'X-Trace': 'secret-value-€' }],
    ['an invalid name', { 'X Trace: secret-value': 'x' }],
  ])('refuses a call header with %s before sending', async (_case, headers) => {
    const server = await start((_request, response) =>
      sendJson(response, 200, success(vaultData())),
    );
    const error = await rejectionOf(clientFor(server).vaults.get('vlt_1', { headers }));
    expect(error).toBeInstanceOf(RequestValidationError);
    expect(printed(error)).not.toContain('secret-value');
    expect(server.requests).toHaveLength(0);
  });

  it('refuses ids and cursors that are not well-formed strings before sending', async () => {
    const server = await start((_request, response) =>
      sendJson(response, 200, success(vaultData())),
    );
    const client = clientFor(server);
    const byId = await rejectionOf(client.vaults.get('vlt_\uD800'));
    expect(byId).toBeInstanceOf(RequestValidationError);
    expect((byId as RequestValidationError).issues[0]?.path).toEqual(['vaultId']);
    const byCursor = await rejectionOf(client.vaults.list({ cursor: 'abc\uDC00' }));
    expect(byCursor).toBeInstanceOf(RequestValidationError);
    expect(server.requests).toHaveLength(0);
  });
});

describe('what the server says back', () => {
  it('scrubs a multi-line secret that the server echoes JSON-encoded, raw, or one line at a time', async () => {
    const server = await start((request, response) =>
      sendJson(response, 422, {
        statusCode: 422,
        errorCode: 'validation_error',
        message: `bad body ${request.body} | raw ${PEM} | line ${PEM.split('\n')[1]}`,
        data: null,
      }),
    );
    const error = await rejectionOf(
      clientFor(server).secrets.create('vlt_1', { name: 'tls', value: { key: PEM } }),
    );
    expect(error).toBeInstanceOf(APIError);
    const text = printed(error);
    for (const line of PEM.split('\n').slice(1, 3)) expect(text).not.toContain(line);
    expect(text).not.toContain(JSON.stringify(PEM).slice(1, -1));
    expect((error as Error).message).toContain('[REDACTED]');
  });

  it('escapes line breaks and terminal escapes in server messages', async () => {
    const server = await start((_request, response) =>
      sendJson(response, 404, {
        statusCode: 404,
        errorCode: 'not_found',
        message: 'gone\n2026-11-22 INFO forged line\r\u001b[31mred\u202e',
        data: null,
      }),
    );
    const error = await rejectionOf(clientFor(server).vaults.get('vlt_1'));
    const { message } = error as Error;
    expect(message).toBe('gone\\n2026-11-22 INFO forged line\\r\\u001b[31mred\\u202e');
    for (const char of ['\n', '\r', '\u001b', '\u202e']) expect(message).not.toContain(char);
  });
});

describe('connection failures', () => {
  it('says ECONNREFUSED and the address in one line, with the runtime error as cause', async () => {
    const server = await start(() => undefined);
    await server.close();
    servers.splice(servers.indexOf(server), 1);
    const error = await rejectionOf(clientFor(server, { maxRetries: 0 }).vaults.get('vlt_1'));
    expect(error).toBeInstanceOf(APIConnectionError);
    expect((error as Error).message).toBe(
      `Connection error: ECONNREFUSED 127.0.0.1:${server.port}`,
    );
    expect((error as Error).cause).toBeInstanceOf(Error);
  });

  it('says ENOTFOUND and the host when the name does not resolve', async () => {
    const lookupFailure = Object.assign(new Error('getaddrinfo ENOTFOUND vault.example.com'), {
      code: 'ENOTFOUND',
      hostname: 'vault.example.com',
    });
    const fetch = async () => {
      throw new TypeError('fetch failed', { cause: lookupFailure });
    };
    const client = new SecretsVault({
      baseUrl: 'https://vault.example.com',
      token: TOKEN,
      maxRetries: 0,
      fetch,
    });
    const error = await rejectionOf(client.vaults.get('vlt_1'));
    expect((error as Error).message).toBe('Connection error: ENOTFOUND vault.example.com');
    expect((error as Error).cause).toBeInstanceOf(TypeError);
  });

  it('names the host when every address of it refused the connection', async () => {
    const refused = (address: string) =>
      Object.assign(new Error(`connect ECONNREFUSED ${address}:8200`), {
        code: 'ECONNREFUSED',
        address,
        port: 8200,
      });
    const everyAddress = Object.assign(new AggregateError([refused('::1'), refused('127.0.0.1')]), {
      code: 'ECONNREFUSED',
    });
    const fetch = async () => {
      throw new TypeError('fetch failed', { cause: everyAddress });
    };
    const client = new SecretsVault({
      baseUrl: 'http://localhost:8200',
      token: TOKEN,
      maxRetries: 0,
      fetch,
    });
    const error = await rejectionOf(client.vaults.get('vlt_1'));
    expect((error as Error).message).toBe('Connection error: ECONNREFUSED localhost:8200');
  });

  /** A client at `baseUrl` whose every attempt fails as a browser says it, bare; and a count. */
  function failingAsBrowsersDo(baseUrl: string) {
    const count = { attempts: 0 };
    const fetch = async () => {
      count.attempts += 1;
      throw new TypeError('Failed to fetch');
    };
    return { client: new SecretsVault({ baseUrl, token: TOKEN, maxRetries: 2, fetch }), count };
  }

  it('says when a browser blocked the request, and does not retry it', async () => {
    const { client, count } = failingAsBrowsersDo('https://vault.example.com');
    const error = await rejectionOf(client.vaults.get('vlt_1'));
    expect(error).toBeInstanceOf(APIConnectionError);
    expect((error as Error).message).toBe(
      'Connection error: the request to vault.example.com was blocked by the browser (CORS or CSP?)',
    );
    expect(count.attempts).toBe(1);
  });

  it('retries the same bare failure on the origin of the page, where CORS cannot be the cause', async () => {
    vi.stubGlobal('location', { origin: 'https://vault.example.com' });
    try {
      const { client, count } = failingAsBrowsersDo('https://vault.example.com');
      const error = await rejectionOf(client.vaults.get('vlt_1'));
      expect(error).toBeInstanceOf(APIConnectionError);
      expect((error as Error).message).toBe(
        'Connection error: no response from vault.example.com (the browser gives no reason: offline, or the connection dropped)',
      );
      expect(count.attempts).toBe(3);
      // Another origin than the page's is still taken for a CORS refusal.
      const elsewhere = failingAsBrowsersDo('https://api.vault.example.com');
      expect(
        ((await rejectionOf(elsewhere.client.vaults.get('vlt_1'))) as Error).message,
      ).toContain('blocked by the browser (CORS or CSP?)');
      expect(elsewhere.count.attempts).toBe(1);
    } finally {
      vi.unstubAllGlobals();
    }
  });
});

describe('the details every error carries', () => {
  it('gives a malformed create answer the idempotency key, attempts, request id, method and route', async () => {
    const server = await start((_request, response) =>
      sendJson(
        response,
        201,
        { statusCode: 201, errorCode: null, message: null, data: { id: 1 } },
        { 'X-Request-Id': 'req_malformed' },
      ),
    );
    const error = await rejectionOf(
      clientFor(server).secrets.create(
        'vlt_1',
        { name: 'db', value: { password: 'p' } },
        { idempotencyKey: 'job-7' },
      ),
    );
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error).toMatchObject({
      idempotencyKey: 'job-7',
      attempts: 1,
      requestId: 'req_malformed',
      method: 'POST',
      path: '/v1/vaults/{vaultId}/secrets',
    });
  });

  it('gives connection errors, timeouts, aborts and input errors the same details', async () => {
    const hanging = await start(() => undefined);
    const client = clientFor(hanging, { maxRetries: 1 });
    const timeout = await rejectionOf(
      client.vaults.create({ name: 'x' }, { timeout: 200, idempotencyKey: 'k-1' }),
    );
    expect(timeout).toBeInstanceOf(APITimeoutError);
    expect(timeout).toMatchObject({
      method: 'POST',
      path: '/v1/vaults',
      attempts: 2,
      idempotencyKey: 'k-1',
    });

    const controller = new AbortController();
    const aborted = client.vaults.get('vlt_1', { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const abort = await rejectionOf(aborted);
    expect(abort).toBeInstanceOf(APIUserAbortError);
    expect(abort).toMatchObject({ method: 'GET', path: '/v1/vaults/{vaultId}', attempts: 1 });

    const invalid = await rejectionOf(client.secrets.list('vlt_1', { limit: 0 }));
    expect(invalid).toBeInstanceOf(RequestValidationError);
    expect(invalid).toMatchObject({
      method: 'GET',
      path: '/v1/vaults/{vaultId}/secrets',
      attempts: 0,
    });
  });
});
