/**
 * The mock served over HTTP is safe to leave running on a developer machine: loopback only,
 * answers only its own `Host` (DNS rebinding), bounded request bodies that are never buffered
 * for an unknown caller, idempotency that does not depend on how a path is spelled, stores that
 * do not grow, and an envelope answer for every method. Every test goes over real sockets.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import {
  afterAll,
  afterEach,
  beforeAll,
  beforeEach,
  describe,
  expect,
  it,
  type MockInstance,
  vi,
} from 'vitest';
import { createVaultMock } from '../../src/mock/index.js';
import { type ServedVaultMock, serveVaultMock } from '../../src/mock/node.js';
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
const ownHost = () => `127.0.0.1:${port}`;

interface Answer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Record<string, unknown> | null;
}

/** Splits what a server sent on one connection into its answers (interim ones included). */
function parseAnswers(bytes: Buffer): Answer[] {
  const answers: Answer[] = [];
  let rest: Buffer = bytes;
  while (rest.byteLength > 0) {
    const headEnd = rest.indexOf('\r\n\r\n');
    if (headEnd === -1) break;
    const [statusLine = '', ...lines] = rest.subarray(0, headEnd).toString('latin1').split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    const status = Number(statusLine.split(' ')[1]);
    rest = rest.subarray(headEnd + 4);
    let body: Buffer = Buffer.alloc(0);
    if (status >= 200) {
      if (headers['content-length'] !== undefined) {
        const length = Number(headers['content-length']);
        body = rest.subarray(0, length);
        rest = rest.subarray(length);
      } else if (headers['transfer-encoding'] === 'chunked') {
        const parts: Buffer[] = [];
        for (;;) {
          const sizeEnd = rest.indexOf('\r\n');
          const size = Number.parseInt(rest.subarray(0, sizeEnd).toString('latin1'), 16);
          rest = rest.subarray(sizeEnd + 2);
          if (!(size > 0)) break;
          parts.push(rest.subarray(0, size));
          rest = rest.subarray(size + 2);
        }
        rest = rest.subarray(rest.indexOf('\r\n') + 2);
        body = Buffer.concat(parts);
      } else {
        body = rest;
        rest = Buffer.alloc(0);
      }
    }
    const text = body.toString('utf8');
    answers.push({ status, headers, body: text === '' ? null : JSON.parse(text) });
  }
  return answers;
}

const openSockets = new Set<Socket>();
afterEach(() => {
  for (const socket of openSockets) socket.destroy();
  openSockets.clear();
});

/**
 * Writes `head` (and `body`, if any) on a raw connection and never finishes the request: the
 * answers only arrive, and the promise only resolves, if the server answers and then closes the
 * connection without waiting for the rest.
 */
function exchange(
  head: string,
  body?: Buffer,
  options: { readonly port?: number; readonly host?: string } = {},
): Promise<Answer[]> {
  return new Promise((resolve, reject) => {
    const socket = connect(options.port ?? port, options.host ?? '127.0.0.1');
    openSockets.add(socket);
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(parseAnswers(Buffer.concat(received))));
    socket.write(head);
    if (body !== undefined) socket.write(body);
  });
}

/** One chunk of a chunked body, as it goes on the wire. */
const chunkFrame = (bytes: Buffer) =>
  Buffer.concat([Buffer.from(`${bytes.byteLength.toString(16)}\r\n`), bytes, Buffer.from('\r\n')]);

/** The only answer a connection carried, asserting the server closed it after that answer. */
function only(answers: Answer[]): Answer {
  expect(answers).toHaveLength(1);
  return answers[0] as Answer;
}

interface Upload {
  readonly status: number;
  readonly headers: IncomingMessage['headers'];
  readonly body: { errorCode: string | null; statusCode: number };
  /** Bytes the client had written when the answer arrived. */
  readonly writtenWhenAnswered: number;
}

/**
 * Streams a body of `total` bytes in 64 KiB chunks with `node:http`, as a real client would,
 * waiting for the socket to drain between chunks, and stops writing once the answer arrives.
 */
function upload(options: {
  readonly headers: Record<string, string>;
  readonly total: number;
}): Promise<Upload> {
  return new Promise((resolve, reject) => {
    let written = 0;
    let answered = false;
    const outgoing = httpRequest(
      { host: '127.0.0.1', port, method: 'POST', path: '/v1/vaults', headers: options.headers },
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

/** Sends one complete request with `node:http` and reads the whole answer. */
function raw(options: {
  readonly method: string;
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  readonly port?: number;
  readonly host?: string;
}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: options.host ?? '127.0.0.1',
        port: options.port ?? port,
        method: options.method,
        path: options.path,
        headers: options.headers ?? {},
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: incoming.statusCode ?? 0,
            headers: incoming.headers as Record<string, string>,
            body: text === '' ? null : JSON.parse(text),
          });
        });
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
  it('answers 413 from Content-Length alone, without waiting for the body, and closes the connection', async () => {
    const answer = only(
      await exchange(
        `POST /v1/vaults HTTP/1.1\r\nHost: ${ownHost()}\r\nAuthorization: ${owner()}\r\n` +
          'Content-Type: application/json\r\nContent-Length: 5000000\r\n\r\n',
      ),
    );
    expect(answer.status).toBe(413);
    expect(answer.body).toMatchObject({
      statusCode: 413,
      errorCode: 'payload_too_large',
      data: null,
    });
    expect(answer.headers.connection).toBe('close');
    expect(answer.headers['x-request-id']).toMatch(/^req_/);
  });

  it('stops reading a chunked body at 1 MB and answers 413 while the rest is still unsent', async () => {
    // 17 chunks of 64 KiB: just over 1,000,000 bytes, and the closing chunk never comes.
    const chunks = Array.from({ length: 17 }, () => chunkFrame(Buffer.alloc(64 * 1024, 'a')));
    const answer = only(
      await exchange(
        `POST /v1/vaults HTTP/1.1\r\nHost: ${ownHost()}\r\nAuthorization: ${owner()}\r\n` +
          'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
        Buffer.concat(chunks),
      ),
    );
    expect(answer.status).toBe(413);
    expect(answer.body).toMatchObject({ statusCode: 413, errorCode: 'payload_too_large' });
    expect(answer.headers.connection).toBe('close');
  });

  it('answers 413 to a streamed 32 MB upload long before the client has sent it', async () => {
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
    expect(answer.headers.connection).toBe('close');
    // Only what the socket buffers took before the answer: nowhere near the whole body.
    expect(answer.writtenWhenAnswered).toBeLessThan(total / 2);
  });

  it.each([
    ['no Authorization header', ''],
    ['an unknown token', 'Authorization: Bearer sv_not_a_token\r\n'],
  ])(
    'answers 401 to a 400 MiB body with %s without waiting for a byte of it',
    async (_case, auth) => {
      const answer = only(
        await exchange(
          `POST /v1/vaults HTTP/1.1\r\nHost: ${ownHost()}\r\n${auth}` +
            `Content-Type: application/json\r\nContent-Length: ${400 * 1024 * 1024}\r\n\r\n`,
        ),
      );
      expect(answer.status).toBe(401);
      expect(answer.body).toMatchObject({ statusCode: 401, errorCode: 'unauthorized' });
      expect(answer.headers.connection).toBe('close');
    },
  );

  it('answers 401 to an unauthenticated chunked body after its first chunk', async () => {
    const answer = only(
      await exchange(
        `POST /v1/vaults HTTP/1.1\r\nHost: ${ownHost()}\r\n` +
          'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
        chunkFrame(Buffer.from('{"name":')),
      ),
    );
    expect(answer.status).toBe(401);
    expect(answer.body?.errorCode).toBe('unauthorized');
  });

  it('answers 401 to a streamed 400 MiB unauthenticated upload while the client still sends', async () => {
    const total = 400 * 1024 * 1024;
    const answer = await upload({
      headers: { 'Content-Type': 'application/json', 'Content-Length': String(total) },
      total,
    });
    expect(answer.status).toBe(401);
    expect(answer.body.errorCode).toBe('unauthorized');
    expect(answer.writtenWhenAnswered).toBeLessThan(16 * 1024 * 1024);
  });

  it('does not invite the body of a request it refuses (Expect: 100-continue)', async () => {
    const answers = await exchange(
      `POST /v1/vaults HTTP/1.1\r\nHost: ${ownHost()}\r\nExpect: 100-continue\r\n` +
        'Content-Type: application/json\r\nContent-Length: 5000000\r\n\r\n',
    );
    expect(answers.map((answer) => answer.status)).toEqual([401]);
  });

  it('invites the body with 100 Continue when it is going to read it', async () => {
    const body = JSON.stringify({ name: 'continued' });
    const socket = connect(port, '127.0.0.1');
    openSockets.add(socket);
    const received: Buffer[] = [];
    const answered = new Promise<Answer[]>((resolve) => {
      socket.on('data', (chunk: Buffer) => {
        received.push(chunk);
        const answers = parseAnswers(Buffer.concat(received));
        if (answers.length === 1 && answers[0]?.status === 100) socket.write(body);
        if (answers.length === 2) resolve(answers);
      });
    });
    socket.write(
      `POST /v1/vaults HTTP/1.1\r\nHost: ${ownHost()}\r\nAuthorization: ${owner()}\r\n` +
        `Expect: 100-continue\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    expect((await answered).map((answer) => answer.status)).toEqual([100, 201]);
    expect(await vaultCount()).toBe(1);
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
  it.each(['0.0.0.0', '192.168.1.10', '::', '[::]', '::ffff:192.168.1.10', 'example.com'])(
    'refuses to listen on %s without the opt-in, naming the option',
    async (host) => {
      await expect(serveVaultMock(createVaultMock(), { host })).rejects.toThrow(
        /not a loopback address.*allowNonLoopbackHost: true/,
      );
    },
  );

  it.each(['127.0.0.1', '127.0.0.2', 'localhost', 'LocalHost'])(
    'listens on the loopback address %s',
    async (host) => {
      const other = await serveVaultMock(createVaultMock(), { host });
      try {
        expect(new URL(other.url).hostname).toMatch(/^(127\.\d+\.\d+\.\d+|\[::1\])$/);
      } finally {
        await other.close();
      }
    },
  );

  it('answers any Host only when allowNonLoopbackHost is set', async () => {
    // Still bound to loopback: the opt-in is what matters here, not the address.
    const other = await serveVaultMock(mock, { host: '127.0.0.1', allowNonLoopbackHost: true });
    try {
      const answer = await raw({
        method: 'GET',
        path: '/v1/org',
        port: Number(new URL(other.url).port),
        headers: { Host: 'mock.internal:8080', Authorization: owner() },
      });
      expect(answer.status).toBe(200);
    } finally {
      await other.close();
    }
  });
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
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(await vaultCount()).toBe(0);
  });

  it('answers 421 before reading any of the body', async () => {
    const answer = only(
      await exchange(
        `POST /v1/vaults HTTP/1.1\r\nHost: attacker.example:${port}\r\nAuthorization: ${owner()}\r\n` +
          'Content-Type: application/json\r\nContent-Length: 900000\r\n\r\n',
      ),
    );
    expect(answer.status).toBe(421);
    expect(answer.headers.connection).toBe('close');
  });

  it.each(['127.0.0.1', 'localhost', 'LOCALHOST'])(
    'answers a Host of %s with the served port',
    async (name) => {
      const answer = await raw({
        method: 'GET',
        path: '/v1/org',
        headers: { Host: `${name}:${port}`, Authorization: owner() },
      });
      expect(answer.status).toBe(200);
    },
  );

  it.each([
    ['the right name on another port', () => `127.0.0.1:${port + 1}`],
    ['no port', () => '127.0.0.1'],
    ['the IPv6 loopback of an IPv4 server', () => `[::1]:${port}`],
  ])('answers 421 to a Host of %s', async (_case, host) => {
    const answer = await raw({
      method: 'GET',
      path: '/v1/org',
      headers: { Host: host(), Authorization: owner() },
    });
    expect(answer.status).toBe(421);
  });

  it('answers 421 to a request without Host', async () => {
    const answer = only(
      await exchange(`GET /v1/org HTTP/1.0\r\nAuthorization: ${owner()}\r\n\r\n`),
    );
    expect(answer.status).toBe(421);
  });

  it('checks the authority of an absolute request target instead of Host', async () => {
    const head = (authority: string) =>
      `GET http://${authority}/v1/org HTTP/1.1\r\nHost: ${ownHost()}\r\n` +
      `Authorization: ${owner()}\r\nConnection: close\r\n\r\n`;
    expect(only(await exchange(head(`attacker.example:${port}`))).status).toBe(421);
    expect(only(await exchange(head(ownHost()))).status).toBe(200);
  });

  it.for(['::1', '[::1]'])(
    'answers [::1]:<port> and localhost:<port> on a server given %s, and nothing else',
    async (host, context) => {
      let other: ServedVaultMock;
      try {
        other = await serveVaultMock(mock, { host });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EADDRNOTAVAIL') context.skip();
        throw error;
      }
      try {
        const otherPort = Number(new URL(other.url).port);
        expect(other.url).toBe(`http://[::1]:${otherPort}`);
        const status = async (host: string) =>
          (
            await raw({
              method: 'GET',
              path: '/v1/org',
              host: '::1',
              port: otherPort,
              headers: { Host: host, Authorization: owner() },
            })
          ).status;
        expect(await status(`[::1]:${otherPort}`)).toBe(200);
        expect(await status(`localhost:${otherPort}`)).toBe(200);
        expect(await status(`127.0.0.1:${otherPort}`)).toBe(421);
      } finally {
        await other.close();
      }
    },
  );
});

describe('faults', () => {
  it.each(['/v1/%76aults', '/v1/vault%73', '/v1/vaults/'])(
    'hits a request spelled %s with a fault injected on /v1/vaults',
    async (spelling) => {
      mock.faults.inject(
        { method: 'POST', path: '/v1/vaults', times: 1 },
        { kind: 'status', status: 503 },
      );
      const answer = await raw({
        method: 'POST',
        path: spelling,
        headers: { Authorization: owner(), 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'dodging' }),
      });
      expect(answer.status).toBe(503);
      expect(await vaultCount()).toBe(0);
    },
  );
});

describe('idempotency keys', () => {
  const create = (path: string, body: Record<string, unknown>) =>
    raw({
      method: 'POST',
      path,
      headers: {
        Authorization: owner(),
        'Content-Type': 'application/json',
        'Idempotency-Key': 'job-1',
      },
      body: JSON.stringify(body),
    });

  it('replays instead of creating twice when the same create is sent to another spelling of its path', async () => {
    const first = await create('/v1/vaults', { name: 'Payments' });
    expect(first.status).toBe(201);
    for (const spelling of ['/v1/vaults/', '/v1/%76aults', '/v1%2Fvaults', '/v1/./vaults']) {
      const again = await create(spelling, { name: 'Payments' });
      expect([spelling, again.headers['idempotent-replayed']]).toEqual([spelling, 'true']);
      expect(again.body).toEqual(first.body);
    }
    expect(await vaultCount()).toBe(1);
  });

  it('scopes the key to the decoded path parameters, not their spelling', async () => {
    const vault = await create('/v1/vaults', { name: 'Payments' });
    const vaultId = (vault.body as { data: { id: string } }).data.id;
    // The id percent-encoded character by character reaches the same vault.
    const encodedId = [...vaultId]
      .map((character) => `%${character.charCodeAt(0).toString(16)}`)
      .join('');
    const secret = { name: 'stripe', value: { key: 'sk_test' } };
    const first = await create(`/v1/vaults/${vaultId}/secrets`, secret);
    const again = await create(`/v1/vaults/${encodedId}/secrets/`, secret);
    expect(first.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    const listed = await fetch(`${served.url}/v1/vaults/${vaultId}/secrets`, {
      headers: { Authorization: owner() },
    });
    expect(((await listed.json()) as { data: unknown[] }).data).toHaveLength(1);
  });
});

describe('every method gets an envelope', () => {
  it.each([
    ['TRACE', '/v1/vaults'],
    ['PROPFIND', '/v1/vaults'],
    ['PUT', '/v1/vaults'],
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

  it.each([
    ['CONNECT', `127.0.0.1:${443}`],
    ['TRACK', '/v1/vaults'],
    ['BREW', '/v1/vaults'],
    ['OPTIONS', '*'],
  ])(
    'answers the raw request %s %s with a 404 envelope and the service headers',
    async (method, target) => {
      const answer = only(
        await exchange(
          `${method} ${target} HTTP/1.1\r\nHost: ${ownHost()}\r\nAuthorization: ${owner()}\r\nConnection: close\r\n\r\n`,
        ),
      );
      expect(answer.status).toBe(404);
      expect(answer.body).toMatchObject({ statusCode: 404, errorCode: 'not_found', data: null });
      expect(answer.headers['x-request-id']).toMatch(/^req_/);
      expect(answer.headers['cache-control']).toBe('no-store');
    },
  );

  it('answers an unknown method from another Host with 421', async () => {
    const answer = only(
      await exchange(`BREW /v1/vaults HTTP/1.1\r\nHost: attacker.example:${port}\r\n\r\n`),
    );
    expect(answer.status).toBe(421);
  });

  it('answers bytes that are not HTTP with a 400 envelope', async () => {
    const answer = only(await exchange('hello\r\n\r\n'));
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ statusCode: 400, errorCode: 'bad_request', data: null });
  });
});

describe('a long-running mock', () => {
  // How much a mock holds is not observable through its public API or its answers (an expired
  // cursor is refused whether or not it is still stored), so these tests find the store of the
  // served mock through the one method every request calls, and only read its maps.
  let sweeps: MockInstance<MockStore['sweepExpired']>;
  beforeEach(() => {
    sweeps = vi.spyOn(MockStore.prototype, 'sweepExpired');
  });
  afterEach(() => sweeps.mockRestore());
  const store = () => sweeps.mock.contexts.at(-1) as MockStore;

  const get = async (path: string) => {
    const answer = await fetch(`${served.url}${path}`, { headers: { Authorization: owner() } });
    const envelope = (await answer.json()) as { errorCode: string | null; next_cursor?: string };
    return { status: answer.status, ...envelope };
  };
  const createVault = (name: string, key?: string) =>
    fetch(`${served.url}/v1/vaults`, {
      method: 'POST',
      headers: {
        Authorization: owner(),
        'Content-Type': 'application/json',
        ...(key === undefined ? {} : { 'Idempotency-Key': key }),
      },
      body: JSON.stringify({ name }),
    });

  it('drops cursors once their 15 minutes are over', async () => {
    for (const name of ['a', 'b', 'c']) await createVault(name);
    const first = await get('/v1/vaults?limit=1');
    const second = await get(
      `/v1/vaults?limit=1&cursor=${encodeURIComponent(`${first.next_cursor}`)}`,
    );
    expect(second.status).toBe(200);
    expect(store().cursors.size).toBe(2);

    mock.clock.advance(15 * 60_000 + 1);
    const expired = await get(
      `/v1/vaults?limit=1&cursor=${encodeURIComponent(`${second.next_cursor}`)}`,
    );
    expect(expired).toMatchObject({ status: 400, errorCode: 'invalid_cursor' });
    expect(store().cursors.size).toBe(0);
  });

  it('drops stored idempotent responses once their 24 hours are over', async () => {
    await createVault('a', 'job-a');
    await createVault('b', 'job-b');
    expect(store().idempotency.size).toBe(2);

    mock.clock.advance(24 * 60 * 60_000 + 1);
    await get('/v1/org');
    expect(store().idempotency.size).toBe(0);
  });

  it('walks its maps at most once per minute of the mock clock', async () => {
    await createVault('a', 'job-a');
    mock.clock.advance(24 * 60 * 60_000 - 30_000);
    await get('/v1/org');
    mock.clock.advance(31_000);
    await get('/v1/org');
    // Expired, but swept less than a minute ago (the clock also follows real time, hence slack).
    expect(store().idempotency.size).toBe(1);
    mock.clock.advance(60_000);
    await get('/v1/org');
    expect(store().idempotency.size).toBe(0);
  });

  it('keeps the marker of a create that is still running, however long it runs', async () => {
    const hold = mock.faults.inject(
      { method: 'POST', path: '/v1/vaults', times: 1 },
      { kind: 'hold' },
    );
    const first = createVault('slow', 'job-slow');
    await hold.held;
    mock.clock.advance(48 * 60 * 60_000);
    await get('/v1/org');
    const second = await createVault('slow', 'job-slow');
    expect(second.status).toBe(409);
    hold.release();
    expect((await first).status).toBe(201);
    expect(await vaultCount()).toBe(1);
  });
});
