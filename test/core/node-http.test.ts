/**
 * The node:http sender over real loopback sockets: keep-alive, the process's exit, the request
 * as sent, decoding and its limits, aborts, the runtime's errors, cut bodies, HTTPS with the
 * runtime's CAs, the environment's proxy, and concurrency. Whatever depends on the process's
 * start (CAs, proxy variables, exit) runs in a child process.
 */
import { execFileSync, spawn } from 'node:child_process';
import * as diagnostics from 'node:diagnostics_channel';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as zlib from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type NodeHttpRequest,
  type NodeHttpResponse,
  type NodeHttpSend,
  nodeHttpSender,
} from '../../src/core/transport/node-http.js';
import { BodyCutOff, NoResponse } from '../../src/core/transport/sender.js';
import { findSystemError, hasNetworkErrorCode } from '../../src/core/transport/system-error.js';
import { UnusableBody } from '../../src/core/transport/whole-body.js';
import { server as msw } from '../helpers.js';

const MODULE_PATH = fileURLToPath(
  new URL('../../src/core/transport/node-http.ts', import.meta.url),
);

// MSW (test/setup.ts) intercepts node:http too and refuses every request it has no handler for:
// these tests are about real sockets, so it is off while they run.
beforeAll(() => msw.close());
afterAll(() => msw.listen({ onUnhandledFrame: 'error' }));

const servers: Array<Server | NetServer> = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          if ('closeAllConnections' in server) server.closeAllConnections();
        }),
    ),
  );
});

interface Served {
  readonly url: string;
  readonly port: number;
  /** Connections the server has accepted so far. */
  connections(): number;
}

async function serve(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  server: Server = createServer(handler),
): Promise<Served> {
  let connections = 0;
  server.on('connection', () => {
    connections += 1;
  });
  return listening(server, 'http', () => connections);
}

/** A server that answers each connection with exactly the bytes `respond` writes. */
async function serveRaw(respond: (socket: Socket) => void): Promise<Served> {
  let connections = 0;
  const server = createNetServer((socket) => {
    connections += 1;
    socket.once('data', () => respond(socket));
  });
  return listening(server, 'http', () => connections);
}

async function listening(
  server: Server | NetServer,
  scheme: string,
  connections: () => number,
): Promise<Served> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `${scheme}://127.0.0.1:${port}`, port, connections };
}

function sender(): NodeHttpSend {
  const send = nodeHttpSender();
  if (send === undefined) throw new Error('expected the node:http sender in Node');
  return send;
}

function get(url: string, headers: Record<string, string> = {}): NodeHttpRequest {
  return { method: 'GET', url, headers, body: undefined };
}

const never = new AbortController().signal;
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

async function fetchText(request: NodeHttpRequest, maxBytes = 1 << 20): Promise<string> {
  const response = await sender()(request, never);
  return text(await response.read(maxBytes));
}

/** The response, or undefined when the request failed (a port nothing listens on). */
async function rejectionOrResponse(
  promise: Promise<NodeHttpResponse>,
): Promise<NodeHttpResponse | undefined> {
  try {
    return await promise;
  } catch {
    return undefined;
  }
}

/** The error a promise rejects with (fails the test when it resolves). */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

/** The error Node failed with, which the sender reports as a `kind` failure (its cause). */
async function failure(
  promise: Promise<unknown>,
  kind: typeof NoResponse | typeof BodyCutOff,
): Promise<unknown> {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(kind);
  return (error as Error).cause;
}

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ---- child processes -------------------------------------------------------------------------

let scratch: string;
let childScript: string;

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'node-http-test-'));
  childScript = join(scratch, 'child.mjs');
  // The sources import `./x.js` for `x.ts`, as TypeScript wants; Node's type stripping does not
  // map them, so the child maps them itself.
  writeFileSync(
    childScript,
    `import { registerHooks } from 'node:module';
registerHooks({
  resolve(specifier, context, nextResolve) {
    try {
      return nextResolve(specifier, context);
    } catch (error) {
      if (!specifier.startsWith('.') || !specifier.endsWith('.js')) throw error;
      return nextResolve(specifier.slice(0, -3) + '.ts', context);
    }
  },
});
const { nodeHttpSender } = await import(${JSON.stringify(pathToFileURL(MODULE_PATH).href)});
const send = nodeHttpSender();
if (send === undefined) {
  console.log(JSON.stringify({ sender: false }));
} else {
  try {
    const response = await send(
      { method: 'GET', url: process.argv[2], headers: {}, body: undefined },
      new AbortController().signal,
    );
    const body = new TextDecoder().decode(await response.read(1 << 20));
    console.log(JSON.stringify({ status: response.status, body }));
  } catch (failure) {
    // Node's own error, inside the sender's NoResponse or BodyCutOff.
    const error = failure.cause ?? failure;
    console.log(JSON.stringify({ code: error.code, message: error.message }));
  }
}
`,
  );
});

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// Variables of the test's own environment that would change what the child does.
const INHERITED = [
  'NODE_OPTIONS',
  'NODE_EXTRA_CA_CERTS',
  'NODE_USE_ENV_PROXY',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
];

interface ChildResult {
  readonly exitCode: number | null;
  readonly ms: number;
  readonly output: Record<string, unknown>;
  readonly stderr: string;
}

/** Runs the child script against `url`; it is killed after `killAfterMs`. */
function runChild(
  url: string,
  env: Record<string, string> = {},
  killAfterMs = 10_000,
): Promise<ChildResult> {
  const base: Record<string, string | undefined> = { ...process.env };
  for (const name of INHERITED) delete base[name];
  const started = performance.now();
  const child = spawn(process.execPath, ['--no-warnings', childScript, url], {
    env: { ...base, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk;
  });
  const killer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (exitCode) => {
      clearTimeout(killer);
      const ms = performance.now() - started;
      const line = stdout.trim().split('\n').at(-1) ?? '';
      let output: Record<string, unknown> = {};
      try {
        output = JSON.parse(line) as Record<string, unknown>;
      } catch {
        // Left empty: the assertions on it then show stderr.
      }
      resolve({ exitCode, ms, output, stderr });
    });
  });
}

// ---- tests -----------------------------------------------------------------------------------

// The config runs each client file a second time with SECRETS_VAULT_TRANSPORT=fetch: nothing here
// goes through the transport, so once is enough.
describe.skipIf(process.env.SECRETS_VAULT_TRANSPORT === 'fetch')('node:http sender', () => {
  it('is the same function on every call in Node', () => {
    expect(nodeHttpSender()).toBeTypeOf('function');
    expect(nodeHttpSender()).toBe(nodeHttpSender());
  });

  describe('keep-alive', () => {
    it('reuses the connection for the next request to the same origin', async () => {
      const served = await serve((_req, res) => res.end('ok'));
      expect(await fetchText(get(`${served.url}/a`))).toBe('ok');
      expect(await fetchText(get(`${served.url}/b`))).toBe('ok');
      expect(await fetchText(get(`${served.url}/c`))).toBe('ok');
      expect(served.connections()).toBe(1);
    });

    /** How long after its answer the server saw the client close the connection, in ms. */
    async function idleClose(headers: Record<string, string>, answerAfterMs = 0) {
      let answered = 0;
      const closed = new Promise<number>((resolve) => {
        const server = createServer((_req, res) => {
          setTimeout(() => {
            res.writeHead(200, headers).end('ok', () => {
              answered = performance.now();
            });
          }, answerAfterMs);
        });
        // The server would keep it for a minute: only the client's idle timer closes it.
        server.keepAliveTimeout = 60_000;
        server.on('connection', (socket: Socket) => {
          socket.on('close', () => resolve(performance.now() - answered));
        });
        servers.push(server);
        server.listen(0, '127.0.0.1', async () => {
          const { port } = server.address() as { port: number };
          expect(await fetchText(get(`http://127.0.0.1:${port}/`))).toBe('ok');
        });
      });
      return closed;
    }

    it('closes a connection left idle in its pool for 4 s, and sooner when the server says so', async () => {
      const [idle, hinted] = await Promise.all([
        idleClose({}),
        // Node's agent closes a second before the server's own timeout, so that it is first.
        idleClose({ 'keep-alive': 'timeout=2' }),
      ]);
      expect(idle).toBeGreaterThan(3_800);
      expect(idle).toBeLessThan(6_000);
      expect(hinted).toBeGreaterThan(800);
      expect(hinted).toBeLessThan(2_500);
    }, 15_000);

    it('lets a request wait longer than the idle time for its answer, then times the idle anew', async () => {
      // The idle timer runs only while the connection waits in the pool: not during a request.
      const closed = await idleClose({}, 4_500);
      expect(closed).toBeGreaterThan(3_800);
    }, 20_000);

    it('reuses the connection after a small body is discarded', async () => {
      const served = await serve((_req, res) => res.end('x'.repeat(1000)));
      (await sender()(get(served.url), never)).discard();
      await tick(20);
      expect(await fetchText(get(served.url))).toHaveLength(1000);
      expect(served.connections()).toBe(1);
    });

    it('drops the connection of a large body that is discarded', async () => {
      let closed = false;
      const served = await serve((_req, res) => {
        res.on('close', () => {
          closed = true;
        });
        res.writeHead(200, { 'content-length': String(1 << 22) });
        res.write(Buffer.alloc(1 << 16));
      });
      (await sender()(get(served.url), never)).discard();
      await expect.poll(() => closed).toBe(true);
    });

    it('lets a finished process exit while the server keeps the connection open', async () => {
      const server = createServer((_req, res) => res.end('bye'));
      server.keepAliveTimeout = 60_000;
      const served = await serve(() => undefined, server);
      const child = await runChild(served.url);
      expect(child.output, child.stderr).toEqual({ status: 200, body: 'bye' });
      expect(child.exitCode).toBe(0);
      expect(served.connections()).toBe(1);
      // Node starts in about 50 ms; a socket keeping it alive would hold it for 4 s or more.
      expect(child.ms).toBeLessThan(2_000);
    });
  });

  describe('the request', () => {
    it('carries the method, path, query, headers and body as given', async () => {
      let seen: object = {};
      const served = await serve((req, res) => {
        let body = '';
        req.setEncoding('utf8');
        req.on('data', (chunk: string) => {
          body += chunk;
        });
        req.on('end', () => {
          seen = { method: req.method, url: req.url, headers: req.headers, body };
          res.end();
        });
      });
      const body = JSON.stringify({ value: 'é€😀' });
      const response = await sender()(
        {
          method: 'PATCH',
          url: `${served.url}/v1/vaults/a%2Fb?cursor=x%20y&limit=2#fragment`,
          headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
          body,
        },
        never,
      );
      await response.read(100);
      expect(seen).toEqual({
        method: 'PATCH',
        url: '/v1/vaults/a%2Fb?cursor=x%20y&limit=2',
        body,
        headers: {
          host: `127.0.0.1:${served.port}`,
          authorization: 'Bearer t',
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'accept-encoding':
            typeof zlib.createZstdDecompress === 'function'
              ? 'gzip, deflate, br, zstd'
              : 'gzip, deflate, br',
          connection: 'keep-alive',
        },
      });
    });

    it('keeps an Accept-Encoding the caller set, and sends no body without one', async () => {
      let seen: IncomingMessage['headers'] = {};
      const served = await serve((req, res) => {
        seen = req.headers;
        res.end();
      });
      await (await sender()(get(served.url, { 'accept-encoding': 'identity' }), never)).read(1);
      expect(seen['accept-encoding']).toBe('identity');
      expect(seen['content-length']).toBeUndefined();
      expect(seen['transfer-encoding']).toBeUndefined();
    });

    it('lets a wrapper of http.request and a diagnostics_channel subscriber add headers', async () => {
      const seen: IncomingMessage['headers'][] = [];
      const served = await serve((req, res) => {
        seen.push(req.headers);
        res.end();
      });
      const http = process.getBuiltinModule('node:http');
      const original = http.request;
      // As instrumentation and test tools do: a header added to the options' object.
      http.request = function request(this: unknown, ...args: Parameters<typeof original>) {
        const [options] = args as unknown as [{ headers: Record<string, string> }];
        options.headers['x-wrapper'] = 'wrapped';
        return original.apply(this, args);
      } as typeof original;
      try {
        await (await sender()(get(`${served.url}/a`, { authorization: 'Bearer t' }), never)).read(
          1,
        );
      } finally {
        http.request = original;
      }
      const addHeader = (message: unknown) => {
        (
          message as { request: { setHeader(name: string, value: string): void } }
        ).request.setHeader('x-subscriber', 'seen');
      };
      diagnostics.subscribe('http.client.request.created', addHeader);
      try {
        await (await sender()(get(`${served.url}/b`, { authorization: 'Bearer t' }), never)).read(
          1,
        );
      } finally {
        diagnostics.unsubscribe('http.client.request.created', addHeader);
      }
      // And as Node ships it, unwatched: the same request.
      await (await sender()(get(`${served.url}/c`, { authorization: 'Bearer t' }), never)).read(1);
      expect(seen.map((headers) => [headers['x-wrapper'], headers['x-subscriber']])).toEqual([
        ['wrapped', undefined],
        [undefined, 'seen'],
        [undefined, undefined],
      ]);
      for (const headers of seen) {
        expect(headers).toMatchObject({
          host: `127.0.0.1:${served.port}`,
          authorization: 'Bearer t',
          connection: 'keep-alive',
        });
        expect(headers['accept-encoding']).toMatch(/^gzip, deflate, br/);
      }
    });

    it('sends each request to its own origin when two alternate', async () => {
      const seen: string[] = [];
      const one = await serve((req, res) => {
        seen.push(`one ${req.headers.host} ${req.url}`);
        res.end();
      });
      const two = await serve((req, res) => {
        seen.push(`two ${req.headers.host} ${req.url}`);
        res.end();
      });
      // As the client sends them: the path and query it built beside the whole URL.
      const to = (served: Served, target: string): NodeHttpRequest => ({
        ...get(`${served.url}${target}`),
        target,
      });
      for (const request of [
        to(one, '/v1/a?x=1'),
        to(two, '/v1/b'),
        to(two, '/v1/c'),
        to(one, '/v1/d'),
        // An origin whose text starts with the first one's: its port and one more digit, no port.
        to({ ...one, url: `${one.url}0` }, '/v1/e'),
      ]) {
        const response = await rejectionOrResponse(sender()(request, never));
        if (response !== undefined) await response.read(1);
      }
      expect(seen).toEqual([
        `one 127.0.0.1:${one.port} /v1/a?x=1`,
        `two 127.0.0.1:${two.port} /v1/b`,
        `two 127.0.0.1:${two.port} /v1/c`,
        `one 127.0.0.1:${one.port} /v1/d`,
      ]);
    });

    it.each([
      ['transfer-encoding', 'chunked'],
      ['host', 'internal.example'],
      ['connection', 'upgrade'],
      ['upgrade', 'h2c'],
      ['proxy-authorization', 'Basic dXNlcjpwYXNz'],
    ])('never sends a %s header that reached it, connecting nowhere', async (name, value) => {
      const served = await serve((_req, res) => res.end('sent'));
      const request: NodeHttpRequest = {
        method: 'POST',
        url: served.url,
        headers: { [name]: value },
        body: '{}',
      };
      const error = await rejection(sender()(request, never));
      expect(error).toBeInstanceOf(TypeError);
      expect(String(error)).toContain(name);
      expect(String(error)).not.toContain(value);
      expect(served.connections()).toBe(0);
    });

    it('returns a redirect as it is, without following it', async () => {
      let requests = 0;
      const served = await serve((_req, res) => {
        requests += 1;
        res.writeHead(302, { location: '/elsewhere' }).end('moved');
      });
      const response = await sender()(get(`${served.url}/here`), never);
      expect(response.status).toBe(302);
      expect(response.headers.get('location')).toBe('/elsewhere');
      expect(text(await response.read(100))).toBe('moved');
      expect(requests).toBe(1);
    });

    it('gives the status text and every header, each Set-Cookie on its own', async () => {
      const served = await serve((_req, res) => {
        res.statusMessage = 'Created Here';
        res.setHeader('set-cookie', ['a=1; Path=/', 'b=2; Path=/']);
        res.setHeader('x-request-id', 'req_1');
        res.writeHead(201).end('{}');
      });
      const response = await sender()(get(served.url), never);
      expect(response.status).toBe(201);
      expect(response.statusText).toBe('Created Here');
      expect(response.headers).toBeInstanceOf(Headers);
      expect(response.headers.getSetCookie()).toEqual(['a=1; Path=/', 'b=2; Path=/']);
      expect(response.headers.get('x-request-id')).toBe('req_1');
      // A Response can be built from the head, as the transport does.
      expect(new Response(null, response).status).toBe(201);
      response.discard();
    });
  });

  describe('decoding', () => {
    const body = JSON.stringify({ data: 'secret value '.repeat(500) });
    const plain = Buffer.from(body);
    const encoded: Array<[string, string, Buffer]> = [
      ['gzip', 'gzip', zlib.gzipSync(plain)],
      ['x-gzip', 'x-gzip', zlib.gzipSync(plain)],
      ['a coding in capitals', 'GZIP', zlib.gzipSync(plain)],
      ['deflate (zlib-wrapped)', 'deflate', zlib.deflateSync(plain)],
      ['deflate sent raw', 'deflate', zlib.deflateRawSync(plain)],
      ['br', 'br', zlib.brotliCompressSync(plain)],
      ['identity', 'identity', plain],
      ['an empty Content-Encoding', '', plain],
    ];
    // zstd where this Node's zlib has it (22.15 and later).
    if (typeof zlib.zstdCompressSync === 'function') {
      encoded.push(['zstd', 'zstd', zlib.zstdCompressSync(plain)]);
    }

    it.each(encoded)('decodes %s', async (_what, coding, bytes) => {
      const served = await serve((_req, res) => {
        res.writeHead(200, { 'content-encoding': coding, 'content-length': bytes.length });
        res.end(bytes);
      });
      expect(await fetchText(get(served.url))).toBe(body);
    });

    it('decodes a body that arrives in many small chunks', async () => {
      const bytes = zlib.gzipSync(plain);
      const served = await serve((_req, res) => {
        res.writeHead(200, { 'content-encoding': 'gzip' });
        let offset = 0;
        const next = () => {
          if (offset >= bytes.length) return void res.end();
          res.write(bytes.subarray(offset, offset + 7));
          offset += 7;
          setImmediate(next);
        };
        next();
      });
      expect(await fetchText(get(served.url))).toBe(body);
    });

    it.each([
      ['an unknown coding', 'compress'],
      ['two codings stacked', 'gzip, br'],
      ['the same coding twice', 'gzip, gzip'],
    ])('refuses %s', async (_what, coding) => {
      const served = await serve((_req, res) => {
        res.writeHead(200, { 'content-encoding': coding }).end(zlib.gzipSync(plain));
      });
      const response = await sender()(get(served.url), never);
      const error = await rejection(response.read(1 << 20));
      expect(error).toBeInstanceOf(UnusableBody);
      expect((error as Error).message).toMatch(/cannot be decoded/);
    });

    it('rejects a corrupt body with the decoder error', async () => {
      const served = await serve((_req, res) => {
        res.writeHead(200, { 'content-encoding': 'gzip' }).end(Buffer.from('not gzip at all'));
      });
      const response = await sender()(get(served.url), never);
      expect(await failure(response.read(1 << 20), BodyCutOff)).toMatchObject({
        code: 'Z_DATA_ERROR',
      });
    });

    it('counts the limit in decoded bytes', async () => {
      const bytes = zlib.gzipSync(Buffer.alloc(100_000, 'a'));
      const served = await serve((_req, res) => {
        res.writeHead(200, { 'content-encoding': 'gzip' }).end(bytes);
      });
      expect(bytes.length).toBeLessThan(10_000);
      const response = await sender()(get(served.url), never);
      const error = await rejection(response.read(10_000));
      expect(error).toBeInstanceOf(UnusableBody);
      expect((error as Error).message).toBe('body is larger than 10000 bytes');
      expect(text(await (await sender()(get(served.url), never)).read(100_000)).length).toBe(
        100_000,
      );
    });

    it('stops a zip bomb at the limit, quickly', async () => {
      // 1 GiB of zeros as 1024 gzip members of 1 MiB each (Node decodes every member): about
      // 1 MiB on the wire.
      const member = zlib.gzipSync(Buffer.alloc(1 << 20), { level: 9 });
      const bomb = Buffer.concat(Array.from({ length: 1024 }, () => member));
      expect(bomb.length).toBeLessThan(2 << 20);
      let closed = false;
      const served = await serve((_req, res) => {
        res.on('close', () => {
          closed = true;
        });
        // Chunked, with no Content-Length that would refuse it before a byte is decoded.
        res.writeHead(200, { 'content-encoding': 'gzip' });
        res.write(bomb);
        res.end();
      });
      const started = performance.now();
      const response = await sender()(get(served.url), never);
      const error = await rejection(response.read(1 << 20));
      expect(error).toBeInstanceOf(UnusableBody);
      // Inflating all of it takes about 2 s here.
      expect(performance.now() - started).toBeLessThan(500);
      await expect.poll(() => closed).toBe(true);
    });

    it('refuses at once a body whose Content-Length is over the limit', async () => {
      const served = await serve((_req, res) => {
        // The head alone: the body never comes, so only the declared length can refuse it.
        res.writeHead(200, { 'content-length': '5000' }).flushHeaders();
      });
      const response = await sender()(get(served.url), never);
      expect(await rejection(response.read(4999))).toBeInstanceOf(UnusableBody);
    });

    it('reads no body for HEAD, whatever its Content-Length says', async () => {
      const served = await serve((_req, res) => {
        res.writeHead(200, { 'content-length': '5000', 'content-encoding': 'gzip' }).end();
      });
      const response = await sender()({ ...get(served.url), method: 'HEAD' }, never);
      expect(await response.read(10)).toHaveLength(0);
    });

    it('gives an empty body with a coding as empty', async () => {
      const served = await serve((_req, res) => {
        res.writeHead(200, { 'content-encoding': 'br', 'content-length': '0' }).end();
      });
      expect(await (await sender()(get(served.url), never)).read(10)).toHaveLength(0);
    });

    it('returns a plain Uint8Array that owns no more than the body', async () => {
      const served = await serve((_req, res) => res.end('abc'));
      const bytes = await (await sender()(get(served.url), never)).read(10);
      expect(Object.getPrototypeOf(bytes)).toBe(Uint8Array.prototype);
      expect(text(bytes.slice(0, 3))).toBe('abc');
    });
  });

  describe('abort', () => {
    it('rejects at once with the reason of a signal aborted already, connecting nowhere', async () => {
      const served = await serve((_req, res) => res.end());
      const reason = new Error('already');
      const error = await rejection(sender()(get(served.url), AbortSignal.abort(reason)));
      expect(error).toBe(reason);
      await tick(20);
      expect(served.connections()).toBe(0);
    });

    it('rejects with the reason while waiting for the head, and drops the connection', async () => {
      let closed = false;
      const served = await serve((req) => {
        req.socket.on('close', () => {
          closed = true;
        });
      });
      const controller = new AbortController();
      const sent = sender()(get(served.url), controller.signal);
      await expect.poll(() => served.connections()).toBe(1);
      const reason = { why: 'caller gave up' };
      controller.abort(reason);
      expect(await rejection(sent)).toBe(reason);
      await expect.poll(() => closed).toBe(true);
    });

    it('rejects the read with the reason while the body stalls', async () => {
      const served = await serve((_req, res) => {
        res.writeHead(200, { 'content-length': '100' }).write('partial');
      });
      const controller = new AbortController();
      const response = await sender()(get(served.url), controller.signal);
      const read = response.read(1000);
      await tick(20);
      controller.abort(new DOMException('timed out', 'TimeoutError'));
      const error = await rejection(read);
      expect(error).toBe(controller.signal.reason);
    });

    it('rejects the read with the reason when it fired between the head and the read', async () => {
      const served = await serve((_req, res) => res.end('done'));
      const controller = new AbortController();
      const response = await sender()(get(served.url), controller.signal);
      controller.abort('stop');
      expect(await rejection(response.read(100))).toBe('stop');
    });

    it('stops a stalled decoded body too', async () => {
      const served = await serve((_req, res) => {
        res.writeHead(200, { 'content-encoding': 'gzip' });
        res.write(zlib.gzipSync(Buffer.alloc(1000)).subarray(0, 10));
      });
      const controller = new AbortController();
      const response = await sender()(get(served.url), controller.signal);
      const read = response.read(1 << 20);
      await tick(20);
      controller.abort('late');
      expect(await rejection(read)).toBe('late');
    });
  });

  describe('no response', () => {
    it("rejects with Node's own ECONNREFUSED, address and port included", async () => {
      const served = await serve(() => undefined);
      await new Promise<void>((resolve) => servers.pop()?.close(() => resolve()));
      const error = await failure(sender()(get(served.url), never), NoResponse);
      expect(error).toMatchObject({
        code: 'ECONNREFUSED',
        address: '127.0.0.1',
        port: served.port,
      });
      expect(hasNetworkErrorCode(error)).toBe(true);
      expect(findSystemError(error)).toEqual({
        code: 'ECONNREFUSED',
        where: `127.0.0.1:${served.port}`,
      });
    });

    it("rejects with Node's own error for a host that does not resolve", async () => {
      const error = await failure(sender()(get('http://no-such-host.invalid/'), never), NoResponse);
      expect(['ENOTFOUND', 'EAI_AGAIN']).toContain((error as { code?: string }).code);
      expect(findSystemError(error)?.where).toBe('no-such-host.invalid');
      expect(hasNetworkErrorCode(error)).toBe(true);
    });

    it('rejects with ECONNRESET when the server drops the connection unanswered', async () => {
      const served = await serve((req) => req.socket.destroy());
      const error = await failure(sender()(get(served.url), never), NoResponse);
      expect(error).toMatchObject({ code: 'ECONNRESET' });
      expect(hasNetworkErrorCode(error)).toBe(true);
    });

    it('rejects an unsupported protocol', async () => {
      expect(await rejection(sender()(get('ftp://127.0.0.1/'), never))).toBeInstanceOf(TypeError);
    });

    // The server ends each connection just after its response, without `Connection: close`.
    // Once the FIN has arrived, Node's agent drops the socket from its pool and the next request
    // opens a new connection. A request sent before that (here: at once, on the same event
    // loop as the server) is written to the closing socket and fails with ECONNRESET ("socket
    // hang up"; EPIPE is possible too): a network error, which the caller's retry policy retries.
    it('meets a connection the server closed when idle with a new one or a network error', async () => {
      const served = await serve((req, res) => {
        res.end('fine', () => setImmediate(() => req.socket.end()));
      });
      expect(await fetchText(get(served.url))).toBe('fine');
      await tick(50);
      expect(await fetchText(get(served.url))).toBe('fine');
      expect(served.connections()).toBe(2);
      for (let round = 0; round < 5; round += 1) {
        try {
          expect(await fetchText(get(served.url))).toBe('fine');
        } catch (error) {
          expect(error).toBeInstanceOf(NoResponse);
          const cause = (error as Error).cause;
          expect(['ECONNRESET', 'EPIPE']).toContain((cause as { code?: string }).code);
          expect(hasNetworkErrorCode(cause)).toBe(true);
        }
      }
    });
  });

  describe('a body that lies about its length', () => {
    it('rejects a body cut off before its Content-Length', async () => {
      const served = await serveRaw((socket) => {
        socket.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly fifty bytes');
        setTimeout(() => socket.destroy(), 10);
      });
      const response = await sender()(get(served.url), never);
      const error = await rejection(response.read(1000));
      expect(error).toBeInstanceOf(Error);
      expect(hasNetworkErrorCode(error)).toBe(true);
    });

    it('rejects a chunked body that ends without its last chunk', async () => {
      const served = await serveRaw((socket) => {
        socket.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n');
        setTimeout(() => socket.end(), 10);
      });
      const response = await sender()(get(served.url), never);
      expect(await rejection(response.read(1000))).toBeInstanceOf(Error);
    });

    it('rejects a gzip body cut off mid-stream', async () => {
      const gz = zlib.gzipSync(Buffer.alloc(10_000, 'z'));
      const served = await serveRaw((socket) => {
        socket.write(
          `HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: ${gz.length}\r\n\r\n`,
        );
        socket.write(gz.subarray(0, gz.length >> 1));
        setTimeout(() => socket.destroy(), 10);
      });
      const response = await sender()(get(served.url), never);
      expect(await rejection(response.read(1 << 20))).toBeInstanceOf(Error);
    });

    it('never gives more than Content-Length when the server sends more', async () => {
      const served = await serveRaw((socket) => {
        socket.end('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhelloEXTRA BYTES');
      });
      for (let round = 0; round < 5; round += 1) {
        const response = await sender()(get(served.url), never);
        try {
          expect(text(await response.read(1000))).toBe('hello');
        } catch (error) {
          // Rejecting is allowed too; only a longer body is not.
          expect(error).toBeInstanceOf(Error);
          expect(String(error)).not.toContain('EXTRA');
        }
      }
    });
  });

  describe('HTTPS', () => {
    let pki: { ca: string; key: string; cert: string } | undefined;
    let skipReason = '';

    beforeAll(() => {
      try {
        execFileSync('openssl', ['version'], { stdio: 'ignore' });
      } catch {
        skipReason = 'openssl is not installed';
        return;
      }
      const dir = join(scratch, 'pki');
      mkdirSync(dir);
      const file = (name: string) => join(dir, name);
      // Relative names (run in `dir`) and no spaces in any argument: each command is one line.
      const run = (command: string) =>
        execFileSync('openssl', command.split(' '), { cwd: dir, stdio: 'pipe' });
      const ec = '-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes';
      run(
        `req -x509 ${ec} -keyout ca.key -out ca.pem -days 2 -subj /CN=node-http-test-CA ` +
          '-addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign',
      );
      run(`req ${ec} -keyout server.key -out server.csr -subj /CN=127.0.0.1`);
      writeFileSync(
        file('server.ext'),
        'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n',
      );
      run(
        'x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem ' +
          '-days 2 -extfile server.ext',
      );
      const read = (name: string) => readFileSync(file(name), 'utf8');
      pki = { ca: file('ca.pem'), key: read('server.key'), cert: read('server.pem') };
    });

    async function serveTls(): Promise<Served> {
      const { key, cert } = pki as NonNullable<typeof pki>;
      const server = createHttpsServer({ key, cert }, (_req, res) => res.end('over tls'));
      return listening(server, 'https', () => 0);
    }

    it('trusts a CA given in NODE_EXTRA_CA_CERTS', async (context) => {
      if (pki === undefined) return context.skip(skipReason);
      const served = await serveTls();
      const child = await runChild(served.url, { NODE_EXTRA_CA_CERTS: pki.ca });
      expect(child.output, child.stderr).toEqual({ status: 200, body: 'over tls' });
    });

    it('refuses a certificate no trusted CA signed', async (context) => {
      if (pki === undefined) return context.skip(skipReason);
      const served = await serveTls();
      const child = await runChild(served.url);
      expect(child.output, child.stderr).toHaveProperty('code');
      expect([
        'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
        'SELF_SIGNED_CERT_IN_CHAIN',
        'DEPTH_ZERO_SELF_SIGNED_CERT',
        'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
      ]).toContain(child.output.code);
    });
  });

  describe("the environment's proxy", () => {
    async function forwardProxy(): Promise<{ url: string; proxied: () => string[] }> {
      const proxied: string[] = [];
      const proxy = createServer((req, res) => {
        // A forward proxy gets the absolute URI of the target.
        proxied.push(`${req.method} ${req.url}`);
        const upstream = httpRequest(
          req.url as string,
          { method: req.method, headers: { ...req.headers, 'x-via': 'test-proxy' }, agent: false },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        upstream.on('error', () => res.writeHead(502).end());
        req.pipe(upstream);
      });
      proxy.on('connect', (req: IncomingMessage, socket: Socket) => {
        proxied.push(`CONNECT ${req.url}`);
        socket.destroy();
      });
      const served = await serve(() => undefined, proxy);
      return { url: served.url, proxied: () => proxied };
    }

    async function target(): Promise<Served> {
      return serve((req, res) => res.end(req.headers['x-via'] ?? 'direct'));
    }

    it('goes through HTTP_PROXY when NODE_USE_ENV_PROXY=1, as fetch does', async () => {
      const [proxy, served] = await Promise.all([forwardProxy(), target()]);
      const child = await runChild(`${served.url}/path?q=1`, {
        NODE_USE_ENV_PROXY: '1',
        HTTP_PROXY: proxy.url,
      });
      expect(child.output, child.stderr).toEqual({ status: 200, body: 'test-proxy' });
      expect(proxy.proxied()).toEqual([`GET ${served.url}/path?q=1`]);
    });

    it('goes direct to a host in NO_PROXY', async () => {
      const [proxy, served] = await Promise.all([forwardProxy(), target()]);
      const child = await runChild(served.url, {
        NODE_USE_ENV_PROXY: '1',
        HTTP_PROXY: proxy.url,
        NO_PROXY: '127.0.0.1',
      });
      expect(child.output, child.stderr).toEqual({ status: 200, body: 'direct' });
      expect(proxy.proxied()).toEqual([]);
    });

    it('goes direct without NODE_USE_ENV_PROXY, as fetch does', async () => {
      const [proxy, served] = await Promise.all([forwardProxy(), target()]);
      const child = await runChild(served.url, { HTTP_PROXY: proxy.url });
      expect(child.output, child.stderr).toEqual({ status: 200, body: 'direct' });
      expect(proxy.proxied()).toEqual([]);
    });
  });

  it('sends 64 requests at once to one origin', async () => {
    const served = await serve((req, res) => {
      setTimeout(() => res.end(req.url), 5);
    });
    const responses = await Promise.all(
      Array.from({ length: 64 }, async (_, index) => {
        const response: NodeHttpResponse = await sender()(get(`${served.url}/${index}`), never);
        return `${response.status} ${text(await response.read(100))}`;
      }),
    );
    expect(responses).toEqual(Array.from({ length: 64 }, (_, index) => `200 /${index}`));
    expect(served.connections()).toBeLessThanOrEqual(64);
  });
});
