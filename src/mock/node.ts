/**
 * `@secrets-vault/sdk/mock/node`: serves a mock over real HTTP on loopback, for demos, other
 * processes and browser tests. Node-only, and therefore kept out of `@secrets-vault/sdk/mock`.
 *
 * @packageDocumentation
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isIP } from 'node:net';
import { getResponse } from 'msw';
import type { VaultMock } from './index.js';
import { errorResponse, MAX_BODY_BYTES, MockError } from './pipeline.js';

/** Options of {@link serveVaultMock}. */
export interface ServeOptions {
  /** The port to listen on. @default 0 (a free port) */
  readonly port?: number;
  /**
   * The loopback address to listen on: `127.0.0.1` (or any `127.x.y.z`), `::1` or `localhost`.
   * Any other address is refused unless `allowNonLoopbackHost` is set.
   * @default '127.0.0.1'
   */
  readonly host?: string;
  /**
   * Lets `host` name an address other machines can reach, such as `0.0.0.0`, and then answers
   * any `Host` header. The mock's tokens are public and it guards nothing: expose it only on a
   * network you trust, such as a container network for tests.
   * @default false
   */
  readonly allowNonLoopbackHost?: boolean;
}

/** A mock being served over HTTP. */
export interface ServedVaultMock {
  /** The base URL to give the client, such as `http://127.0.0.1:53211`. */
  readonly url: string;
  /** Stops accepting connections and closes open ones. */
  close(): Promise<void>;
}

// The Fetch API refuses to build a Request with these methods; they get an answer all the same.
const FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK']);

/**
 * Serves the mock's handlers over HTTP on loopback. A fault of kind `network-error` (or
 * `network-error-after-commit`) destroys the connection, as a real network would.
 *
 * Safe to leave running on a developer machine: it listens on loopback only, answers only
 * requests whose `Host` names the address it serves (so a web page cannot reach it through DNS
 * rebinding), reads at most 1 MB of a request body (answering 413 as soon as it knows a body is
 * larger), and never reads the body of a request without a token it knows (answering 401).
 *
 * @throws {Error} when `host` is not a loopback address and `allowNonLoopbackHost` is not set
 * @example
 * ```ts
 * const mock = createVaultMock();
 * const served = await serveVaultMock(mock);
 * const client = new SecretsVault({ baseUrl: served.url, token: mock.principals.owner.token });
 * // …
 * await served.close();
 * ```
 */
export async function serveVaultMock(
  mock: VaultMock,
  options: ServeOptions = {},
): Promise<ServedVaultMock> {
  const host = options.host ?? '127.0.0.1';
  const exposed = options.allowNonLoopbackHost === true;
  if (!exposed && !isLoopback(host)) {
    throw new Error(
      `serveVaultMock: host must be a loopback address (127.0.0.1, ::1 or localhost); pass allowNonLoopbackHost: true to listen on ${host}`,
    );
  }
  let allowedHosts: ReadonlySet<string> | undefined;
  const server = createServer((incoming, outgoing) => {
    void serve(mock, incoming, outgoing, exposed ? undefined : allowedHosts);
  });
  // What Node's parser refuses (an unknown method such as TRACK, a malformed request line, headers
  // too large) gets the envelope too, instead of Node's bare `400 Bad Request`.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable || error.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const tooLargeHeaders = error.code === 'HPE_HEADER_OVERFLOW';
    const answer = tooLargeHeaders
      ? new MockError(431, 'bad_request', 'Request headers are too large')
      : new MockError(400, 'bad_request', 'Malformed request');
    const body = JSON.stringify({
      statusCode: answer.status,
      errorCode: answer.errorCode,
      message: answer.message,
      data: null,
    });
    socket.end(
      [
        `HTTP/1.1 ${answer.status} ${tooLargeHeaders ? 'Request Header Fields Too Large' : 'Bad Request'}`,
        'Content-Type: application/json',
        `Content-Length: ${Buffer.byteLength(body)}`,
        `X-Request-Id: req_${crypto.randomUUID()}`,
        'Cache-Control: no-store',
        'Connection: close',
        '',
        body,
      ].join('\r\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const hostname = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  allowedHosts = new Set([`${hostname}:${address.port}`, `localhost:${address.port}`]);
  return {
    url: `http://${hostname}:${address.port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  if (isIP(bare) === 4) return bare.startsWith('127.');
  return isIP(bare) === 6 && (bare === '::1' || bare === '0:0:0:0:0:0:0:1');
}

async function serve(
  mock: VaultMock,
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  allowedHosts: ReadonlySet<string> | undefined,
): Promise<void> {
  const refuse = (error: MockError) => send(outgoing, errorResponse(error), true);
  // DNS rebinding: a page on attacker.example whose name now resolves to 127.0.0.1 sends
  // `Host: attacker.example:<port>`; only the served address (or localhost) is answered.
  const hostHeader = (incoming.headers.host ?? '').toLowerCase();
  if (allowedHosts !== undefined && !allowedHosts.has(hostHeader)) {
    return refuse(
      new MockError(421, 'misdirected_request', 'This server answers only on its own address'),
    );
  }
  const method = incoming.method ?? 'GET';
  if (FORBIDDEN_METHODS.has(method)) return refuse(noSuchRoute());
  const hasBody =
    incoming.headers['transfer-encoding'] !== undefined ||
    Number(incoming.headers['content-length'] ?? 0) > 0;
  if (hasBody) {
    // A body is read only for a caller the mock knows, and only up to the limit: an anonymous or
    // oversized upload is answered at once, and the connection closed rather than drained.
    if (!knowsToken(mock, incoming.headers.authorization)) {
      return refuse(new MockError(401, 'unauthorized', 'Missing or invalid bearer token'));
    }
    if (Number(incoming.headers['content-length'] ?? 0) > MAX_BODY_BYTES) return refuse(tooLarge());
  }
  let body: Buffer;
  try {
    const read = await readLimited(incoming, MAX_BODY_BYTES);
    if (read === 'too-large') return refuse(tooLarge());
    body = read;
  } catch {
    incoming.socket.destroy();
    return;
  }
  let response: Response;
  try {
    response = await respond(mock, incoming, method, body);
  } catch {
    response = errorResponse(new MockError(400, 'bad_request', 'Malformed request'));
  }
  if (response.type === 'error') {
    incoming.socket.destroy();
    return;
  }
  await send(outgoing, response, false);
}

function knowsToken(mock: VaultMock, header: string | undefined): boolean {
  const token = /^Bearer (\S+)$/.exec(header ?? '')?.[1];
  return (
    token !== undefined &&
    Object.values(mock.principals).some((principal) => principal.token === token)
  );
}

const noSuchRoute = () => new MockError(404, 'not_found', 'No such route');
const tooLarge = () =>
  new MockError(413, 'payload_too_large', `Request body must be at most ${MAX_BODY_BYTES} bytes`);

/** Reads the request body, or stops at `limit` bytes and says it was too large. */
async function readLimited(
  incoming: IncomingMessage,
  limit: number,
): Promise<Buffer | 'too-large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of incoming) {
    size += (chunk as Buffer).byteLength;
    if (size > limit) return 'too-large';
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

async function send(
  outgoing: ServerResponse,
  response: Response,
  closeAfter: boolean,
): Promise<void> {
  const headers = [...response.headers.entries()].flat();
  if (closeAfter) headers.push('Connection', 'close');
  outgoing.writeHead(response.status, headers);
  outgoing.end(Buffer.from(await response.arrayBuffer()));
  // Whatever the client still sends is not read: the connection ends with the answer.
  if (closeAfter) outgoing.once('finish', () => outgoing.socket?.destroySoon());
}

async function respond(
  mock: VaultMock,
  incoming: IncomingMessage,
  method: string,
  body: Buffer,
): Promise<Response> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (value === undefined || name === 'host' || name === 'connection') continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  // The handlers answer on the mock's own base URL; requests arrive on this server's origin.
  const request = new Request(`${mock.baseUrl}${incoming.url ?? '/'}`, {
    method,
    headers,
    ...(method === 'GET' || method === 'HEAD' || body.byteLength === 0
      ? {}
      : { body: new Uint8Array(body) }),
  });
  return (await getResponse(mock.handlers, request)) ?? errorResponse(noSuchRoute());
}
