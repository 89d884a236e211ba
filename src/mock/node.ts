/**
 * `@secrets-vault/sdk/mock/node`: serves a mock over real HTTP on loopback, for demos, other
 * processes and browser tests. Node-only, and therefore kept out of `@secrets-vault/sdk/mock`.
 *
 * @packageDocumentation
 */

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
  STATUS_CODES,
} from 'node:http';
import { type AddressInfo, BlockList, isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import { getResponse } from 'msw';
import { MAX_CONTROL_BODY_BYTES, MockControl, type MockControlOptions } from './control.js';
import type { VaultMock } from './index.js';
import { errorResponse, MAX_BODY_BYTES, MockError } from './pipeline.js';

export type { MockControlOptions } from './control.js';

/** Options of {@link serveVaultMock}. */
export interface ServeOptions {
  /** The port to listen on. @default 0 (a free port) */
  readonly port?: number | undefined;
  /**
   * The loopback address to listen on: `127.0.0.1` (or any `127.x.y.z`), `::1` or `localhost`.
   * Any other address is refused unless `allowNonLoopbackHost` is set.
   * @default '127.0.0.1'
   */
  readonly host?: string | undefined;
  /**
   * Lets `host` name an address other machines can reach, such as `0.0.0.0`, and then answers
   * any `Host` header (the names other machines use for it cannot be known in advance).
   *
   * Off by default because the mock guards nothing: its tokens are public and fixed, so anyone
   * who can reach it can read and write everything in it. Turn it on only on a network you
   * trust, such as a container network for tests.
   * @default false
   * @example
   * ```ts
   * // Inside a test container, reachable from the other containers as http://mock:8080
   * await serveVaultMock(mock, { host: '0.0.0.0', port: 8080, allowNonLoopbackHost: true });
   * ```
   */
  readonly allowNonLoopbackHost?: boolean | undefined;
  /**
   * Serves a control endpoint at {@link ServedVaultMock.controlUrl}, for a test suite in another
   * process to inject faults, move the clock and reset the mock over HTTP (`true`, or options).
   * It answers only requests whose URL carries its token; any other gets the same 404 as a path
   * that does not exist. Its path, `/_mock/<token>`, is outside `/v1`, where every route of the
   * API is.
   * @default false
   * @example
   * ```ts
   * const served = await serveVaultMock(mock, { control: true });
   * await fetch(`${served.controlUrl}/faults`, {
   *   method: 'POST',
   *   body: JSON.stringify({ path: '/v1/vaults', times: 1, fault: { kind: 'status', status: 503 } }),
   * });
   * ```
   */
  readonly control?: boolean | MockControlOptions | undefined;
}

/** A mock being served over HTTP. */
export interface ServedVaultMock {
  /** The base URL to give the client, such as `http://127.0.0.1:53211`. */
  readonly url: string;
  /**
   * With the `control` option, the control endpoint's URL, token included, such as
   * `http://127.0.0.1:53211/_mock/<token>`: `POST …/faults`, `GET` and `DELETE …/faults/{id}`,
   * `POST …/clock`, `POST …/reset`. Undefined without it.
   */
  readonly controlUrl?: string;
  /** Stops accepting connections and closes open ones. */
  close(): Promise<void>;
}

// The Fetch API refuses to build a Request with these methods; they get an answer all the same.
const UNSERVED_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK']);

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/**
 * Serves the mock's handlers over HTTP on loopback. A fault of kind `network-error` (or
 * `network-error-after-commit`) destroys the connection, as a real network would.
 *
 * Safe to leave running on a developer machine: it listens on loopback only, answers only
 * requests whose `Host` names the address it serves (so a web page cannot reach it through DNS
 * rebinding), reads at most 1 MB of a request body (answering 413 as soon as it knows a body is
 * larger), and never reads the body of a request without a token it knows (answering 401). With
 * `control`, a request to the control endpoint needs the control token in its URL instead, and
 * one without it is answered 404 at once, its body unread.
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
  if (!exposed && !isLoopback(host)) throw nonLoopbackError(host);
  const control = controlOf(mock, options.control);

  // Empty (so nothing is answered) until the port is known; `undefined` answers every Host.
  let allowedHosts: ReadonlySet<string> | undefined = exposed ? undefined : new Set();
  const isAllowed = (authority: string | undefined) =>
    allowedHosts === undefined || allowedHosts.has((authority ?? '').toLowerCase());
  // Requests still being answered on each connection: a parse error after one of them must not
  // write its own answer into the middle of theirs.
  const inFlight = new WeakMap<Duplex, number>();
  const handle = (
    incoming: IncomingMessage,
    outgoing: ServerResponse,
    expectsContinue: boolean,
  ) => {
    const { socket } = incoming;
    inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
    serve(mock, control, incoming, outgoing, isAllowed, expectsContinue)
      .catch(() => socket.destroy())
      .finally(() => inFlight.set(socket, (inFlight.get(socket) ?? 1) - 1));
  };

  const server = createServer();
  server.on('request', (incoming, outgoing) => handle(incoming, outgoing, false));
  // Node would say `100 Continue` by itself, inviting the body before anything was checked;
  // the mock says it only to a request whose body it is going to read.
  server.on('checkContinue', (incoming, outgoing) => handle(incoming, outgoing, true));
  // Any other expectation is ignored (as HTTP allows) rather than answered with Node's bare 417.
  server.on('checkExpectation', (incoming, outgoing) => handle(incoming, outgoing, false));
  // Without a listener Node drops a CONNECT without a word; it is a method like any other here.
  server.on('connect', (incoming: IncomingMessage, socket: Duplex) => {
    void answerOnSocket(socket, isAllowed(incoming.headers.host) ? noSuchRoute() : misdirected());
  });
  // What Node's parser refuses (a method it does not know, a malformed request line, headers
  // too large) gets the envelope too, instead of Node's bare `400 Bad Request`.
  server.on('clientError', (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket) => {
    if (!socket.writable || error.code === 'ECONNRESET' || (inFlight.get(socket) ?? 0) > 0) {
      socket.destroy();
      return;
    }
    void answerOnSocket(socket, parseFailure(error, isAllowed));
  });

  await listen(server, options.port ?? 0, host.replace(/^\[(.*)\]$/, '$1'));
  const address = server.address() as AddressInfo;
  // `localhost` is whatever the resolver says; a hosts file could point it off the machine.
  if (!exposed && !isLoopback(address.address)) {
    await new Promise((resolve) => server.close(resolve));
    throw nonLoopbackError(`${host} (${address.address})`);
  }
  const hostname = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  if (!exposed) {
    const names = [hostname, 'localhost'];
    allowedHosts = new Set([
      ...names.map((name) => `${name}:${address.port}`),
      // Clients leave the default port out of `Host`.
      ...(address.port === 80 ? names : []),
    ]);
  }
  const url = `http://${hostname}:${address.port}`;
  return {
    url,
    ...(control === undefined ? {} : { controlUrl: `${url}${CONTROL_PREFIX}${control.token}` }),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function isLoopback(host: string): boolean {
  const bare = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (bare === 'localhost') return true;
  const family = isIP(bare);
  // BlockList compares parsed addresses, so `0:0:0:0:0:0:0:1` and `::ffff:127.0.0.1` count too.
  return family !== 0 && LOOPBACK.check(bare, family === 4 ? 'ipv4' : 'ipv6');
}

function nonLoopbackError(host: string): Error {
  return new Error(
    `serveVaultMock: refusing to listen on ${host}, which is not a loopback address ` +
      "(127.0.0.1, ::1 or localhost). The mock's tokens are public: pass " +
      'allowNonLoopbackHost: true only on a network you trust.',
  );
}

// Where the control endpoint is: outside `/v1`, so no route of the API can ever take it.
const CONTROL_PREFIX = '/_mock/';
const CONTROL_TOKEN = /^[A-Za-z0-9_-]{16,512}$/;

/** The control endpoint of one served mock, and how to tell its token. */
interface ServedControl {
  readonly token: string;
  readonly control: MockControl;
  /** Whether `candidate` is the token, in the same time whatever it is. */
  accepts(candidate: string): boolean;
}

function controlOf(
  mock: VaultMock,
  option: boolean | MockControlOptions | undefined,
): ServedControl | undefined {
  if (option === undefined || option === false) return undefined;
  const options = option === true ? {} : option;
  const token = options.token ?? randomBytes(32).toString('base64url');
  if (!CONTROL_TOKEN.test(token)) {
    throw new Error('serveVaultMock: control.token must be 16 to 512 letters, digits, `-` or `_`');
  }
  // Digests of equal length, so that the comparison takes the same time whatever is sent.
  const digest = (text: string) => createHash('sha256').update(text).digest();
  const expected = digest(token);
  return {
    token,
    control: new MockControl(mock, options.onReset),
    accepts: (candidate) => timingSafeEqual(digest(candidate), expected),
  };
}

const noSuchRoute = () => new MockError(404, 'not_found', 'No such route');
const misdirected = () =>
  new MockError(421, 'misdirected_request', 'This server answers only on its own address');
const unauthorized = () => new MockError(401, 'unauthorized', 'Missing or invalid bearer token');
const tooLarge = (limit = MAX_BODY_BYTES) =>
  new MockError(413, 'payload_too_large', `Request body must be at most ${limit} bytes`);
const malformed = () => new MockError(400, 'bad_request', 'Malformed request');

/** The answer to a request Node's parser refused, from the bytes it refused. */
function parseFailure(
  error: NodeJS.ErrnoException & { rawPacket?: Buffer },
  isAllowed: (authority: string | undefined) => boolean,
): MockError {
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return new MockError(431, 'bad_request', 'Request headers are too large');
  }
  // A well-formed request whose method Node does not know is an unknown method, not a malformed
  // request: it gets the same 404 as a method the mock does not serve.
  const head = error.rawPacket?.toString('latin1') ?? '';
  if (
    error.code === 'HPE_INVALID_METHOD' &&
    /^[!#$%&'*+.^_`|~0-9A-Za-z-]+ \S+ HTTP\/1\.[01]\r?\n/.test(head)
  ) {
    const host = /\r?\nhost:[ \t]*([^\r\n]*?)[ \t]*\r?\n/i.exec(head)?.[1];
    return isAllowed(host) ? noSuchRoute() : misdirected();
  }
  return malformed();
}

async function serve(
  mock: VaultMock,
  control: ServedControl | undefined,
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  isAllowed: (authority: string | undefined) => boolean,
  expectsContinue: boolean,
): Promise<void> {
  const refuse = (error: MockError) => send(outgoing, errorResponse(error), true);
  const target = requestTarget(incoming.url ?? '');
  // DNS rebinding: a page on attacker.example whose name now resolves to 127.0.0.1 sends
  // `Host: attacker.example:<port>`; only the served address (or localhost) is answered. An
  // absolute request target names the host itself, and then Host is ignored, as HTTP says.
  if (!isAllowed(target?.authority ?? incoming.headers.host)) return refuse(misdirected());
  const method = incoming.method ?? 'GET';
  if (target === undefined || UNSERVED_METHODS.has(method)) return refuse(noSuchRoute());
  // Before the check of bearer tokens below: a control request carries its token in the URL.
  if (control !== undefined && target.path.startsWith(CONTROL_PREFIX)) {
    return serveControl(control, incoming, outgoing, target.path, method, expectsContinue);
  }
  const declaredLength = Number(incoming.headers['content-length'] ?? 0);
  if (incoming.headers['transfer-encoding'] !== undefined || declaredLength > 0) {
    // A body is read only for a caller the mock knows, and only up to the limit: an anonymous or
    // oversized upload is answered at once, and the connection closed rather than drained.
    if (!knowsToken(mock, incoming.headers.authorization)) return refuse(unauthorized());
    if (declaredLength > MAX_BODY_BYTES) return refuse(tooLarge());
  }
  if (expectsContinue) outgoing.writeContinue();
  const body = await readLimited(incoming, MAX_BODY_BYTES);
  if (body === 'too-large') return refuse(tooLarge());
  if (body === 'aborted') {
    incoming.socket.destroy();
    return;
  }
  let response: Response;
  try {
    response = await respond(mock, incoming, target.path, method, body);
  } catch {
    response = errorResponse(malformed());
  }
  if (response.type === 'error') {
    incoming.socket.destroy();
    return;
  }
  await send(outgoing, response, false);
}

/**
 * Answers a request under the control prefix. A wrong or missing token gets what any unknown
 * path gets, at once, and its body is never read; a right one, a body of at most 64 KiB.
 */
async function serveControl(
  { accepts, control }: ServedControl,
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  path: string,
  method: string,
  expectsContinue: boolean,
): Promise<void> {
  const refuse = (error: MockError) => send(outgoing, errorResponse(error), true);
  const [, token = '', route = ''] =
    /^\/_mock\/([^/?#]*)([^?#]*)/.exec(path) ?? ([] as Array<string | undefined>);
  if (!accepts(token)) return refuse(noSuchRoute());
  const declaredLength = Number(incoming.headers['content-length'] ?? 0);
  if (declaredLength > MAX_CONTROL_BODY_BYTES) return refuse(tooLarge(MAX_CONTROL_BODY_BYTES));
  if (expectsContinue) outgoing.writeContinue();
  const body = await readLimited(incoming, MAX_CONTROL_BODY_BYTES);
  if (body === 'too-large') return refuse(tooLarge(MAX_CONTROL_BODY_BYTES));
  if (body === 'aborted') {
    incoming.socket.destroy();
    return;
  }
  await send(outgoing, await control.answer(method, route, body), false);
}

/**
 * The path (with query) and, for an absolute target such as a proxy sends, the authority it
 * names; `undefined` for targets that name no path on this server (`*`, `host:port`).
 */
function requestTarget(url: string): { path: string; authority?: string } | undefined {
  if (url.startsWith('/')) return { path: url };
  if (!/^https?:\/\//i.test(url)) return undefined;
  try {
    const absolute = new URL(url);
    return { path: `${absolute.pathname}${absolute.search}`, authority: absolute.host };
  } catch {
    return undefined;
  }
}

function knowsToken(mock: VaultMock, header: string | undefined): boolean {
  const token = /^Bearer (\S+)$/.exec(header ?? '')?.[1];
  return (
    token !== undefined &&
    Object.values(mock.principals).some((principal) => principal.token === token)
  );
}

/**
 * Reads the request body, or stops at `limit` bytes and says it was too large. Stopping pauses
 * the request, so nothing more is taken off the socket before the answer closes it.
 */
function readLimited(
  incoming: IncomingMessage,
  limit: number,
): Promise<Buffer | 'too-large' | 'aborted'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (result: Buffer | 'too-large' | 'aborted') => {
      incoming.off('data', onData).off('end', onEnd).off('error', onAbort).off('close', onAbort);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > limit) {
        incoming.pause();
        finish('too-large');
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => finish(Buffer.concat(chunks));
    const onAbort = () => finish('aborted');
    incoming.on('data', onData).on('end', onEnd).on('error', onAbort).on('close', onAbort);
  });
}

async function send(
  outgoing: ServerResponse,
  response: Response,
  closeAfter: boolean,
): Promise<void> {
  const headers = [...response.headers.entries()].flat();
  // Whatever the client still sends is not read: the connection ends with the answer.
  if (closeAfter) headers.push('Connection', 'close');
  const body = Buffer.from(await response.arrayBuffer());
  outgoing.writeHead(response.status, headers);
  outgoing.end(body);
}

/** Answers on a bare socket (no request object exists), then closes it. */
async function answerOnSocket(socket: Duplex, error: MockError): Promise<void> {
  const response = errorResponse(error);
  const body = Buffer.from(await response.arrayBuffer());
  const head = [`HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? ''}`];
  for (const [name, value] of response.headers) head.push(`${name}: ${value}`);
  head.push(`Content-Length: ${body.byteLength}`, 'Connection: close', '', '');
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(Buffer.concat([Buffer.from(head.join('\r\n'), 'latin1'), body]));
}

async function respond(
  mock: VaultMock,
  incoming: IncomingMessage,
  path: string,
  method: string,
  body: Buffer,
): Promise<Response> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (value === undefined || name === 'host' || name === 'connection') continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  // The handlers answer on the mock's own base URL; requests arrive on this server's origin.
  const request = new Request(`${mock.baseUrl}${path}`, {
    method,
    headers,
    ...(method === 'GET' || method === 'HEAD' || body.byteLength === 0
      ? {}
      : { body: new Uint8Array(body) }),
  });
  return (await getResponse(mock.handlers, request)) ?? errorResponse(noSuchRoute());
}
