/**
 * The mock served over HTTP is safe to leave running on a developer machine: loopback only,
 * answers only its own `Host` (DNS rebinding), bounded request bodies that are never buffered
 * for an unknown caller, idempotency that does not depend on how a path is spelled, stores that
 * do not grow, and an envelope answer for every method.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createClock } from '../../src/mock/clock.js';
import { orgRoutes } from '../../src/mock/handlers/org.js';
import { createVaultMock, MockFaults } from '../../src/mock/index.js';
import { type ServedVaultMock, serveVaultMock } from '../../src/mock/node.js';
import { runRoute } from '../../src/mock/pipeline.js';
import { MockStore } from '../../src/mock/store.js';

const mock = createVaultMock();
let served: ServedVaultMock;
let port: number;

beforeAll(async () => {
  served = await serveVaultMock(mock);
  port = Number(new URL(served.url).port);
});
beforeEach(() => mock.reset());
afterAll(async () => {
  await served.close();
});

const owner = () => `Bearer ${mock.principals.owner.token}`;

interface Upload {
  readonly status: number;
  readonly headers: IncomingMessage['headers'];
  readonly body: { errorCode: string | null; statusCode: number };
  /** Bytes the client had written when the answer arrived. */
  readonly writtenWhenAnswered: number;
}

/**
 * Streams a body of `total` bytes in 64 KiB chunks, waiting for the socket to drain between
 * chunks, and stops writing as soon as the answer arrives.
 */
function upload(options: {
  readonly headers: Record<string, string>;
  readonly total: number;
  readonly path?: string;
}): Promise<Upload> {
  return new Promise((resolve, reject) => {
    let written = 0;
    let answered = false;
    const outgoing = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: options.path ?? '/v1/vaults',
        headers: options.headers,
      },
      (incoming) => {
        answered = true;
        const writtenWhenAnswered = written;
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () => {
          resolve({
            status: incoming.statusCode ?? 0,
            headers: incoming.headers,
            body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
            writtenWhenAnswered,
          });
          outgoing.destroy();
        });
      },
    );
    // The server may close the connection while the client still writes: that is the point.
    outgoing.on('error', (error) => {
      if (!answered) reject(error);
    });
    const chunk = Buffer.alloc(64 * 1024, 'a');
    const writeMore = () => {
      while (!answered && written < options.total) {
        written += chunk.byteLength;
        if (!outgoing.write(chunk)) {
          outgoing.once('drain', writeMore);
          return;
        }
      }
      if (!answered) outgoing.end();
    };
    writeMore();
  });
}

/** Sends one raw request and reads the whole answer. */
function raw(options: {
  readonly method: string;
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}): Promise<{
  status: number;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: options.method,
        path: options.path,
        headers: options.headers ?? {},
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () =>
          resolve({
            status: incoming.statusCode ?? 0,
            headers: incoming.headers,
            body: JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null'),
          }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}

async function vaultCount(): Promise<number> {
  const answer = await fetch(`${served.url}/v1/vaults`, { headers: { Authorization: owner() } });
  return ((await answer.json()) as { data: unknown[] }).data.length;
}

describe('request bodies', () => {
  it('answers 413 from Content-Length alone, before the body is sent, and closes the connection', async () => {
    const answer = await upload({
      headers: {
        Authorization: owner(),
        'Content-Type': 'application/json',
        'Content-Length': String(5_000_000),
      },
      total: 5_000_000,
    });
    expect(answer.status).toBe(413);
    expect(answer.body).toMatchObject({ statusCode: 413, errorCode: 'payload_too_large' });
    expect(answer.headers.connection).toBe('close');
    expect(answer.writtenWhenAnswered).toBeLessThan(5_000_000);
  });

  it('stops reading a chunked body at 1 MB and answers 413 while the client still sends', async () => {
    const total = 32 * 1024 * 1024;
    const answer = await upload({
      headers: {
        Authorization: owner(),
        'Content-Type': 'application/json',
        'Transfer-Encoding': 'chunked',
      },
      total,
    });
    expect(answer.status).toBe(413);
    expect(answer.body.errorCode).toBe('payload_too_large');
    expect(answer.writtenWhenAnswered).toBeLessThan(total);
  });

  it.each([
    ['no Authorization header', {}],
    ['an unknown token', { Authorization: 'Bearer sv_not_a_token' }],
  ])('answers 401 to a 400 MiB upload with %s without reading its body', async (_case, auth) => {
    const total = 400 * 1024 * 1024;
    const answer = await upload({
      headers: { ...auth, 'Content-Type': 'application/json', 'Content-Length': String(total) },
      total,
    });
    expect(answer.status).toBe(401);
    expect(answer.body.errorCode).toBe('unauthorized');
    // Only what the socket buffers took before the answer: nowhere near the whole body.
    expect(answer.writtenWhenAnswered).toBeLessThan(16 * 1024 * 1024);
  });

  it('still serves a body of exactly 1,000,000 bytes', async () => {
    const name = 'v';
    const padding = ' '.repeat(1_000_000 - JSON.stringify({ name }).length);
    const body = `{"name":"${name}"}${padding}`;
    expect(Buffer.byteLength(body)).toBe(1_000_000);
    const answer = await raw({
      method: 'POST',
      path: '/v1/vaults',
      headers: { Authorization: owner(), 'Content-Type': 'application/json' },
      body,
    });
    expect(answer.status).toBe(201);
  });
});

describe('where it listens', () => {
  it.each(['0.0.0.0', '192.168.1.10', '::', 'example.com'])(
    'refuses to listen on %s without the opt-in',
    async (host) => {
      await expect(serveVaultMock(createVaultMock(), { host })).rejects.toThrow(
        /allowNonLoopbackHost/,
      );
    },
  );

  it.each(['127.0.0.1', '127.0.0.2', 'localhost'])(
    'listens on the loopback address %s',
    async (host) => {
      const other = await serveVaultMock(createVaultMock(), { host });
      try {
        expect(new URL(other.url).hostname).toMatch(/^127\./);
      } finally {
        await other.close();
      }
    },
  );
});

describe('DNS rebinding', () => {
  it('answers 421 to a request whose Host is another name, and does nothing else', async () => {
    const answer = await raw({
      method: 'POST',
      path: '/v1/vaults',
      headers: {
        Host: `attacker.example:${port}`,
        Authorization: owner(),
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({ name: 'rebound' }),
    });
    expect(answer.status).toBe(421);
    expect(answer.body).toMatchObject({
      statusCode: 421,
      errorCode: 'misdirected_request',
      data: null,
    });
    expect(answer.headers['x-request-id']).toMatch(/^req_/);
    expect(await vaultCount()).toBe(0);
  });

  it.each(['127.0.0.1', 'localhost'])('answers a Host of %s with the served port', async (name) => {
    const answer = await raw({
      method: 'GET',
      path: '/v1/org',
      headers: { Host: `${name}:${port}`, Authorization: owner() },
    });
    expect(answer.status).toBe(200);
  });

  it('answers 421 to the right name on another port', async () => {
    const answer = await raw({
      method: 'GET',
      path: '/v1/org',
      headers: { Host: `127.0.0.1:${port + 1}`, Authorization: owner() },
    });
    expect(answer.status).toBe(421);
  });
});

describe('idempotency keys', () => {
  it('replays instead of creating twice when the same create is sent to another spelling of its path', async () => {
    const send = (path: string) =>
      raw({
        method: 'POST',
        path,
        headers: {
          Authorization: owner(),
          'Content-Type': 'application/json',
          'Idempotency-Key': 'job-1',
        },
        body: JSON.stringify({ name: 'Payments' }),
      });
    const first = await send('/v1/vaults');
    const trailingSlash = await send('/v1/vaults/');
    const encoded = await send('/v1/%76aults');
    expect(first.status).toBe(201);
    expect(trailingSlash.headers['idempotent-replayed']).toBe('true');
    expect(encoded.headers['idempotent-replayed']).toBe('true');
    expect(encoded.body).toEqual(first.body);
    expect(await vaultCount()).toBe(1);
  });
});

describe('every method gets an envelope', () => {
  it.each([
    ['TRACE', '/v1/vaults'],
    ['PROPFIND', '/v1/vaults'],
    ['GET', '/'],
    ['GET', '/favicon.ico'],
    ['DELETE', '/v2/vaults'],
  ])('answers %s %s with a 404 envelope and the service headers', async (method, path) => {
    const answer = await raw({ method, path, headers: { Authorization: owner() } });
    expect(answer.status).toBe(404);
    expect(answer.body).toMatchObject({ statusCode: 404, errorCode: 'not_found', data: null });
    expect(answer.headers['x-request-id']).toMatch(/^req_/);
    expect(answer.headers['cache-control']).toBe('no-store');
  });
});

describe('requests Node cannot parse', () => {
  it.each(['TRACK', 'BREW'])(
    'answers the unknown method %s with a 400 envelope',
    async (method) => {
      const answer = await raw({ method, path: '/v1/vaults', headers: { Authorization: owner() } });
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ statusCode: 400, errorCode: 'bad_request', data: null });
      expect(answer.headers['x-request-id']).toMatch(/^req_/);
    },
  );
});

describe('a long-running mock', () => {
  it('drops expired cursors and stored idempotent responses', () => {
    const clock = createClock('2026-01-01T00:00:00.000Z');
    const store = new MockStore(clock);
    const now = clock.now();
    store.cursors.set('fresh', {
      list: 'l',
      after: { sortKey: 'k', id: 'i' },
      expiresAt: now + 15 * 60_000,
    });
    store.cursors.set('stale', {
      list: 'l',
      after: { sortKey: 'k', id: 'i' },
      expiresAt: now + 60_000,
    });
    store.idempotency.set('running', {
      state: 'running',
      body: '{}',
      expiresAt: Number.POSITIVE_INFINITY,
    });
    store.idempotency.set('done', { state: 'done', body: '{}', expiresAt: now + 120_000 });
    store.sweepExpired();
    expect(store.cursors.size).toBe(2);

    clock.advance(5 * 60_000);
    store.sweepExpired();
    expect([...store.cursors.keys()]).toEqual(['fresh']);
    expect([...store.idempotency.keys()]).toEqual(['running']);
  });

  it('sweeps as requests come in', async () => {
    const clock = createClock('2026-01-01T00:00:00.000Z');
    const store = new MockStore(clock);
    store.cursors.set('stale', {
      list: 'l',
      after: { sortKey: 'k', id: 'i' },
      expiresAt: clock.now() + 60_000,
    });
    clock.advance(2 * 60_000);
    const getOrg = orgRoutes.find((route) => route.method === 'GET' && route.path === '/org');
    if (getOrg === undefined) throw new Error('GET /org route missing');
    const request = new Request('https://vault.mock/v1/org', {
      headers: { Authorization: `Bearer ${store.seededPrincipals.owner.token}` },
    });
    const answer = await runRoute(
      { store, faults: new MockFaults() },
      getOrg,
      request,
      {},
      '/v1/org',
    );
    expect(answer.status).toBe(200);
    expect(store.cursors.has('stale')).toBe(false);
  });
});
