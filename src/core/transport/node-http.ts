/**
 * Sending one attempt through `node:http` / `node:https` with keep-alive agents: in Node this
 * takes about two thirds of the time per request of the runtime's `fetch` (undici behind
 * WHATWG streams). The built-ins are reached through `process.getBuiltinModule`, on first use,
 * so that the client entry has no `node:` import and other runtimes never load them.
 *
 * What it keeps of `fetch`: the runtime's CA handling (`NODE_EXTRA_CA_CERTS`, `--use-system-ca`),
 * the environment's proxy when Node is told to use it (for exactly the requests fetch would send
 * through it), `Accept-Encoding` with the codings it decodes, redirects returned as they are
 * (`redirect: 'manual'`), a body discarded before it has arrived dropped with its connection, and
 * the runtime's own system errors (`ECONNREFUSED` with the address) when no response arrives.
 */
import type * as BufferModule from 'node:buffer';
import type * as DiagnosticsChannel from 'node:diagnostics_channel';
import type * as Http from 'node:http';
import type * as Https from 'node:https';
import type { Transform } from 'node:stream';
import type * as Zlib from 'node:zlib';
import { readEnv } from '../env.js';
import { SecretsVaultError } from '../errors.js';
import { isFramingHeader } from '../options.js';
import type { HttpRequest, HttpResponseHead, HttpSend } from './sender.js';
import { BodyCutOff, NoResponse } from './sender.js';
import { concatChunks, UnusableBody } from './whole-body.js';

/** @internal One attempt as the SDK built it (see http-client.ts). */
export type NodeHttpRequest = HttpRequest;

/**
 * @internal The head of a response (see http-client.ts). Either `read()` or `discard()` must be
 * called once, or the connection stays taken.
 */
export type NodeHttpResponse = HttpResponseHead;

/**
 * @internal Sends one attempt and resolves to the response head. Rejects with the signal's
 * reason when it fires, and with the runtime's own error (which carries `code`, and the address)
 * when no response arrives.
 */
export type NodeHttpSend = (
  request: NodeHttpRequest,
  signal: AbortSignal,
) => Promise<NodeHttpResponse>;

interface NodeProcess {
  readonly versions?: { readonly node?: string; readonly bun?: string };
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly execArgv?: readonly string[];
  readonly getBuiltinModule?: (id: string) => unknown;
}

type HttpModule = typeof Http;
type HttpsModule = typeof Https;
type ZlibModule = typeof Zlib;

interface Builtins {
  readonly http: HttpModule;
  readonly https: HttpsModule;
  readonly zlib: ZlibModule;
  readonly byteLength: (text: string) => number;
  /** The chunks of a body as one array, as concatChunks, copied without zero-filling first. */
  readonly concat: (chunks: readonly Uint8Array[], size: number) => Uint8Array<ArrayBuffer>;
  readonly acceptEncoding: string;
  /** Whether anyone watches node:http create or start a request (diagnostics_channel). */
  readonly watched: () => boolean;
}

interface Pool {
  /** The runtime's global agent this pool was built after: its proxy settings are ours. */
  readonly global: Http.Agent;
  /** What sends a request that goes direct. */
  readonly direct: Http.Agent;
  /** What sends a request through the environment's proxy; undefined when there is none. */
  readonly proxied: Http.Agent | undefined;
  /** Where `NO_PROXY` is read (the settings the global agent was given). */
  readonly env: Http.ProxyEnv;
  /** `NO_PROXY` as last read, and the hosts it names. */
  bypass: Bypass;
}

/** A `NO_PROXY` value, parsed as fetch parses it. */
interface Bypass {
  readonly value: string;
  readonly entries: ReadonlyArray<{ readonly hostname: string; readonly port: number }>;
}

// Idle sockets close after this: below the 5 s that Node's server (and many others) keep an idle
// connection, so that the client, not the server, ends it, and a request rarely meets a socket
// that the server is closing. A `Keep-Alive: timeout=N` hint shortens it (Node's agent reads it).
const IDLE_MS = 4_000;

// RFC 9659: an encoder must not use a zstd window over 8 MiB, and a decoder may refuse one; the
// library's default (128 MiB) would let one small response make the process allocate that much.
const ZSTD_WINDOW_LOG_MAX = 23;

const NO_BODY_STATUSES = new Set([204, 205, 304]);

function runtimeProcess(): NodeProcess | undefined {
  return (globalThis as { process?: NodeProcess }).process;
}

/**
 * Whether this runtime is Node itself: Bun and Deno imitate `process`, and their own fetch is
 * fast.
 */
function isNode(process: NodeProcess | undefined): process is NodeProcess {
  return (
    typeof process !== 'undefined' &&
    typeof process.versions?.node === 'string' &&
    process.versions.bun === undefined &&
    !('Deno' in globalThis) &&
    typeof process.getBuiltinModule === 'function' &&
    // Cloudflare's workerd offers `process` and `node:http` (over its fetch) with nodejs_compat.
    (globalThis as { navigator?: { userAgent?: unknown } }).navigator?.userAgent !==
      'Cloudflare-Workers'
  );
}

let builtins: Builtins | undefined;
let httpPool: Pool | undefined;
let httpsPool: Pool | undefined;

function load(process: NodeProcess): Builtins {
  if (builtins === undefined) {
    const get = process.getBuiltinModule as (id: string) => unknown;
    const zlib = get('node:zlib') as ZlibModule;
    const { Buffer } = get('node:buffer') as typeof BufferModule;
    const channels = get('node:diagnostics_channel') as typeof DiagnosticsChannel;
    const created = channels.channel('http.client.request.created');
    const started = channels.channel('http.client.request.start');
    builtins = {
      watched: () => created.hasSubscribers || started.hasSubscribers,
      http: get('node:http') as HttpModule,
      https: get('node:https') as HttpsModule,
      zlib,
      byteLength: (text) => Buffer.byteLength(text, 'utf8'),
      concat: (chunks, size) => {
        if (chunks.length === 1) return concatChunks(chunks, size);
        // Buffer.concat skips the zero-filling of a new Uint8Array, which cost as much as the
        // copy for a list of 500 values. Its bytes may sit in Node's shared pool: they are only
        // ever decoded to text (call.ts), never handed out.
        const joined = Buffer.concat(chunks, size);
        return new Uint8Array(joined.buffer as ArrayBuffer, joined.byteOffset, joined.byteLength);
      },
      // What fetch advertises, and brotli and zstd as well: every coding listed is decoded.
      acceptEncoding:
        typeof zlib.createZstdDecompress === 'function'
          ? 'gzip, deflate, br, zstd'
          : 'gzip, deflate, br',
    };
  }
  return builtins;
}

/**
 * The `proxyEnv` of a global agent: Node gives it one exactly when its clients (fetch too) use
 * the environment's proxy, whether by `NODE_USE_ENV_PROXY=1`, `--use-env-proxy` or
 * `http.setGlobalProxyFromEnv()`.
 */
function proxyEnvOf(agent: Http.Agent): Http.ProxyEnv | undefined {
  return (
    (agent as { options?: { proxyEnv?: Http.ProxyEnv | null } }).options?.proxyEnv ?? undefined
  );
}

/**
 * Whether this Node's agents cannot follow a proxy that fetch would use: Node 24.0 to 24.4 (and
 * 22 before its backport) read `NODE_USE_ENV_PROXY` in fetch only. The SDK then keeps to fetch,
 * since a request that bypasses the proxy the user set may not get through at all.
 */
function proxyUnsupported(process: NodeProcess, http: HttpModule): boolean {
  const options = (http.globalAgent as { options?: object }).options;
  // Where Node knows the option, its global agent always has the key (undefined when unused).
  if (options !== undefined && 'proxyEnv' in options) return false;
  const env = process.env ?? {};
  const requested =
    env.NODE_USE_ENV_PROXY === '1' ||
    (process.execArgv ?? []).includes('--use-env-proxy') ||
    (env.NODE_OPTIONS ?? '').includes('--use-env-proxy');
  return (
    requested &&
    [env.HTTP_PROXY, env.http_proxy, env.HTTPS_PROXY, env.https_proxy].some(
      (value) => value !== undefined && value !== '',
    )
  );
}

/**
 * The agent for one request: direct, or through the environment's proxy when fetch would take
 * it there. The pool of a protocol is built again when the runtime's global agent has been
 * replaced (`http.setGlobalProxyFromEnv()` does that), so that a proxy set at run time is
 * followed as fetch follows it.
 */
function agentFor(target: Origin, http: HttpModule, https: HttpsModule): Http.Agent {
  const { secure } = target;
  const global = secure ? https.globalAgent : http.globalAgent;
  let pool = secure ? httpsPool : httpPool;
  if (pool === undefined || pool.global !== global) {
    pool = makePool(global, secure, http, https);
    if (secure) httpsPool = pool;
    else httpPool = pool;
  }
  if (pool.proxied === undefined) return pool.direct;
  const port = Number.parseInt(target.port, 10) || (secure ? 443 : 80);
  return goesThroughProxy(pool, target.hostname, port) ? pool.proxied : pool.direct;
}

function makePool(global: Http.Agent, secure: boolean, http: HttpModule, https: HttpsModule): Pool {
  const options: Http.AgentOptions = {
    keepAlive: true,
    // As fetch: no queueing behind a per-origin cap; 64 calls at once get 64 connections.
    maxSockets: Number.POSITIVE_INFINITY,
  };
  // Node's agent unrefs a socket when it becomes idle and refs it again when a request takes
  // it: an idle connection never keeps a finished process alive.
  const make = (extra: Http.AgentOptions = {}) =>
    closeWhenIdle(
      secure ? new https.Agent({ ...options, ...extra }) : new http.Agent({ ...options, ...extra }),
    );
  const env = proxyEnvOf(global) ?? {};
  const proxy = proxyUrlOf(env, secure);
  return {
    global,
    direct: make(),
    // Node's agent is given the one proxy fetch would use and no NO_PROXY: which requests go
    // through it is decided here, as fetch decides, since Node reads the same variables
    // otherwise (an empty `http_proxy` does not hide `HTTP_PROXY` for it, `NO_PROXY=localhost`
    // leaves out `foo.localhost`, `*.localhost` leaves out `localhost`).
    proxied:
      proxy === undefined
        ? undefined
        : make({ proxyEnv: secure ? { https_proxy: proxy } : { http_proxy: proxy } }),
    env,
    bypass: parseNoProxy(''),
  };
}

/** The part of a pooled socket this module touches: its idle timer. */
interface PooledSocket {
  setTimeout(ms: number): unknown;
  readonly _httpMessage?: { readonly res?: { readonly headers: Http.IncomingHttpHeaders } } | null;
}

/**
 * Makes `agent` close a socket that has stayed idle in its pool for {@link IDLE_MS} (less when
 * the server's `Keep-Alive: timeout=N` says so, as Node's agent reads it), with the timer armed
 * only while the socket is idle. Node's own `timeout` option keeps it armed during requests too,
 * where it does nothing for the SDK but costs a timer refresh on every read and write and a few
 * listeners per request: at 64 calls at once, that was the largest share of the client's CPU
 * time over ky's floor, most of it in the garbage collector.
 */
function closeWhenIdle<A extends Http.Agent>(agent: A): A {
  // What Node's agent calls when a socket goes back to its pool, and when a request takes it.
  const pool = agent as unknown as {
    keepSocketAlive(socket: PooledSocket): boolean;
    reuseSocket(socket: PooledSocket, request: unknown): void;
    readonly agentKeepAliveTimeoutBuffer?: number;
  };
  const { keepSocketAlive, reuseSocket } = pool;
  pool.keepSocketAlive = function keepIdleSocket(socket) {
    const kept = keepSocketAlive.call(this, socket);
    if (kept) socket.setTimeout(idleMsOf(socket, pool.agentKeepAliveTimeoutBuffer));
    return kept;
  };
  pool.reuseSocket = function reuseIdleSocket(socket, request) {
    socket.setTimeout(0);
    reuseSocket.call(this, socket, request);
  };
  return agent;
}

/** How long `socket` may stay idle: IDLE_MS, or less when the server's hint says so. */
function idleMsOf(socket: PooledSocket, buffer = 1000): number {
  const hint = socket._httpMessage?.res?.headers['keep-alive'];
  const seconds = typeof hint === 'string' ? /^timeout=(\d+)/.exec(hint)?.[1] : undefined;
  if (seconds === undefined) return IDLE_MS;
  // Node's agent ends its timer `buffer` ms before the server's, so that it is the one to close.
  const ms = Number.parseInt(seconds, 10) * 1000 - buffer;
  return ms > 0 && ms < IDLE_MS ? ms : IDLE_MS;
}

/**
 * The proxy Node's fetch (undici's `EnvHttpProxyAgent`) takes for a protocol: the lower-case
 * variable when it is set at all, even to an empty string (which means none), else the upper-case
 * one; for https, the http proxy when no https one is set.
 */
function proxyUrlOf(env: Http.ProxyEnv, secure: boolean): string | undefined {
  const http = env.http_proxy ?? env.HTTP_PROXY;
  const proxy = secure ? (env.https_proxy ?? env.HTTPS_PROXY) || http : http;
  return proxy === undefined || proxy === '' ? undefined : proxy;
}

/**
 * Whether a request to `hostname:port` goes through the proxy, as fetch decides: `NO_PROXY` (the
 * lower-case one when set at all) lists hosts split at commas and spaces, each maybe with a port
 * and a leading `.` or `*.`, and names the host and every host under it; `*` alone names all.
 * Read again when it changes, as fetch reads it at each request.
 */
function goesThroughProxy(pool: Pool, hostname: string, port: number): boolean {
  const value = pool.env.no_proxy ?? pool.env.NO_PROXY ?? '';
  if (value !== pool.bypass.value) pool.bypass = parseNoProxy(value);
  const { entries } = pool.bypass;
  if (entries.length === 0) return true;
  if (value === '*') return false;
  for (const entry of entries) {
    if (entry.port !== 0 && entry.port !== port) continue;
    if (hostname === entry.hostname || hostname.endsWith(`.${entry.hostname}`)) return false;
  }
  return true;
}

function parseNoProxy(value: string): Bypass {
  const entries: Array<{ hostname: string; port: number }> = [];
  for (const entry of value.split(/[,\s]/)) {
    if (entry === '') continue;
    const withPort = /^(.+):(\d+)$/.exec(entry);
    entries.push({
      hostname: (withPort?.[1] ?? entry).replace(/^\*?\./, '').toLowerCase(),
      port: withPort ? Number.parseInt(withPort[2] as string, 10) : 0,
    });
  }
  return { value, entries };
}

// Node's own fetch, as the runtime defined it (it loads undici on first use): a function that a
// test tool or a tracer put in its place before this module loaded is not it.
const runtimeFetch = (() => {
  const fetch = (globalThis as { fetch?: unknown }).fetch;
  return typeof fetch === 'function' && /internal\/deps\/undici/.test(String(fetch))
    ? fetch
    : undefined;
})();

/**
 * @internal What sends requests when the caller gave no `fetch`: node:http in Node (about two
 * thirds of the cost of Node's fetch per request), `viaFetch` everywhere else.
 * `SECRETS_VAULT_TRANSPORT` picks one in Node (`fetch` or `http`); unset, a `globalThis.fetch` that a test tool put in
 * place of Node's own (a stub, a spy, a recorder) gets the requests, as it would in any other
 * runtime.
 *
 * @throws {SecretsVaultError} for another value of `SECRETS_VAULT_TRANSPORT`
 */
export function runtimeSender(viaFetch: HttpSend): HttpSend {
  const setting = readEnv('SECRETS_VAULT_TRANSPORT');
  if (setting !== undefined && setting !== 'fetch' && setting !== 'http') {
    throw new SecretsVaultError('Invalid SECRETS_VAULT_TRANSPORT: must be fetch or http');
  }
  const viaNode = setting === 'fetch' ? undefined : nodeHttpSender();
  if (viaNode === undefined) return viaFetch;
  if (setting === 'http') return viaNode;
  return (request, signal, original) =>
    runtimeFetch !== undefined && globalThis.fetch === runtimeFetch
      ? viaNode(request, signal)
      : viaFetch(request, signal, original);
}

// What node:http failed with before a response: a network failure, whatever its code says (a
// refused connection, a reset, a name that does not resolve, a certificate that does not verify).
const failures = new WeakSet<object>();

let decided = false;
let sender: NodeHttpSend | undefined;

/**
 * @internal The sender when this runtime is Node itself (not Bun, not Deno, not a worker or a
 * browser), else undefined; also undefined when Node is told to use the environment's proxy and
 * its agents cannot (fetch then does it). The same function every call.
 */
export function nodeHttpSender(): NodeHttpSend | undefined {
  if (!decided) {
    decided = true;
    const process = runtimeProcess();
    if (isNode(process) && !proxyUnsupported(process, load(process).http)) sender = send;
  }
  return sender;
}

/** What a request's URL says of where it goes, parsed once per origin (see {@link originOf}). */
interface Origin {
  /** The URL up to its path: `http://host:port`, as the URL's text spells it. */
  readonly text: string;
  readonly secure: boolean;
  readonly protocol: 'http:' | 'https:';
  /** As WHATWG URL gives it: lower-case, an IPv6 literal in brackets. */
  readonly hostname: string;
  /** `hostname:port`, the port only when not the protocol's default: the `Host` header. */
  readonly host: string;
  readonly port: string;
}

// A client sends every request to one origin: its URL is parsed once, not on every attempt.
let lastOrigin: Origin | undefined;

/**
 * Where `url` goes and its path and query, as WHATWG URL parses them. Only the origin's text is
 * compared with the last one's; `target` is the path and query the SDK built, already in the form
 * the parser would give (percent-encoded, with no dot segments), so the parser runs once per
 * origin.
 *
 * @throws {TypeError} for a URL that does not parse or is not http(s)
 */
function originOf(url: string, target: string | undefined): { origin: Origin; path: string } {
  const cached = lastOrigin;
  if (
    cached !== undefined &&
    target !== undefined &&
    url.startsWith(cached.text) &&
    url.charCodeAt(cached.text.length) === 47 /* '/' */
  ) {
    return { origin: cached, path: target };
  }
  const parsed = new URL(url);
  const { protocol } = parsed;
  if (protocol !== 'http:' && protocol !== 'https:') {
    throw new TypeError(`Unsupported protocol ${protocol}`);
  }
  const origin: Origin = {
    text: url.slice(0, url.indexOf('/', url.indexOf('//') + 2)),
    secure: protocol === 'https:',
    protocol,
    hostname: parsed.hostname,
    host: parsed.host,
    port: parsed.port,
  };
  // Only an origin whose text is exactly its serialization is kept, so a text match above means
  // the same host and port (`HTTP://Host:80` and the like are parsed each time).
  if (origin.text === parsed.origin) lastOrigin = origin;
  return { origin, path: parsed.pathname + parsed.search };
}

// Whether each `request` function seen is Node's own (its source, once per function).
const ownRequest = new WeakMap<object, boolean>();

/** Whether `request` is node:http's (or node:https's) own, not a wrapper of it. */
function isNodesOwn(request: unknown): boolean {
  if (typeof request !== 'function') return false;
  let own = ownRequest.get(request);
  if (own === undefined) {
    const source = Function.prototype.toString.call(request);
    own =
      /^function request\((?:url, options, cb|\.\.\.args)\) \{/.test(source) &&
      /\bClientRequest\b/.test(source);
    ownRequest.set(request, own);
  }
  return own;
}

function send(request: NodeHttpRequest, signal: AbortSignal): Promise<NodeHttpResponse> {
  if (signal.aborted) return Promise.reject(signal.reason);
  // Loaded by nodeHttpSender(), the only way to this function.
  const { http, https, byteLength, acceptEncoding, watched } = builtins as Builtins;
  let origin: Origin;
  let path: string;
  let agent: Http.Agent;
  try {
    ({ origin, path } = originOf(request.url, request.target));
    // Throws for a proxy URL Node refuses (ERR_PROXY_INVALID_CONFIG).
    agent = agentFor(origin, http, https);
  } catch (error) {
    return Promise.reject(error);
  }
  const { secure, hostname } = origin;
  const module = secure ? https : http;
  // Every header is in the options, so that node:http writes them at once. As a flat list, it
  // writes them as they are (checking each name and value) without setting them one by one
  // first; only where nothing else can touch them: a direct request through node:http as Node
  // ships it, watched by no one. A proxy's headers, a wrapper of http.request (instrumentation,
  // test tools) and a diagnostics_channel subscriber all expect them as an object.
  const asList =
    agent === (secure ? httpsPool : httpPool)?.direct && isNodesOwn(module.request) && !watched();
  const list: string[] = [];
  const object: Record<string, string> = {};
  const add = (name: string, value: string) => {
    if (asList) list.push(name, value);
    else object[name] = value;
  };
  // The SDK refuses these in every headers option; a header that still got here would change how
  // the request is framed or where it goes.
  for (const name in request.headers) {
    if (isFramingHeader(name)) {
      return Promise.reject(new TypeError(`The ${name} header is the transport's own to set`));
    }
    add(name, request.headers[name] as string);
  }
  add('host', origin.host);
  if (request.headers['accept-encoding'] === undefined) add('accept-encoding', acceptEncoding);
  const { body } = request;
  if (body !== undefined) add('content-length', String(byteLength(body)));
  const options: Http.RequestOptions = {
    method: request.method,
    protocol: origin.protocol,
    // Node wants an IPv6 literal without its brackets (and puts them back in `Host`).
    hostname: hostname.startsWith('[') ? hostname.slice(1, -1) : hostname,
    port: origin.port,
    path,
    headers: asList ? list : object,
    agent,
  };
  return new Promise((resolve, reject) => {
    // Throws, before anything is sent, for a header value Node refuses (a line break, say).
    const req = module.request(options);
    const exchange = new Exchange(req, signal, request, resolve, reject);
    signal.addEventListener('abort', exchange, { once: true });
    req.on('error', (error: Error) => exchange.failed(error));
    req.on('response', (res: Http.IncomingMessage) => exchange.responded(res));
    try {
      if (body === undefined) req.end();
      else req.end(body, 'utf8');
    } catch (error) {
      // A header Node refuses: the SDK checks every header first, so this would be a bug of its
      // own, and no network failure.
      exchange.refused(error as Error);
    }
  });
}

/**
 * One request and its response: the signal's listener for the whole of it (connect, head, body),
 * and the one place a failure of either side ends up, whoever waits on it at that moment.
 */
class Exchange implements EventListenerObject {
  readonly #req: Http.ClientRequest;
  readonly #signal: AbortSignal;
  readonly #method: string;
  readonly #url: string;
  #resolve: ((response: NodeHttpResponse) => void) | undefined;
  // Rejects what waits on the exchange now: the send until the head arrives, then the read.
  #reject: ((reason: unknown) => void) | undefined;
  // The first failure, for a read that starts after it.
  #failure: { readonly error: unknown } | undefined;
  #listening = true;
  #res: Http.IncomingMessage | undefined;
  #used = false;

  constructor(
    req: Http.ClientRequest,
    signal: AbortSignal,
    request: NodeHttpRequest,
    resolve: (response: NodeHttpResponse) => void,
    reject: (reason: unknown) => void,
  ) {
    this.#req = req;
    this.#signal = signal;
    this.#method = request.method;
    this.#url = request.url;
    this.#resolve = resolve;
    this.#reject = reject;
  }

  /** The signal fired. */
  handleEvent(): void {
    this.#fail(this.#signal.reason);
  }

  failed(error: Error): void {
    // A parse error after a complete body is about bytes past its end (a server that sent more
    // than its Content-Length): the body itself is whole, and the socket is gone already.
    if (this.#res?.complete === true) return;
    failures.add(error);
    this.#fail(error);
  }

  /** The request could not be written: not the network's failure. */
  refused(error: Error): void {
    this.#fail(error);
  }

  responded(res: Http.IncomingMessage): void {
    this.#res = res;
    // Without a listener, an error of a body nobody reads would be thrown as uncaught.
    res.on('error', (error: Error) => this.#fail(error));
    const resolve = this.#resolve;
    if (resolve === undefined) return;
    let response: NodeResponse;
    try {
      response = new NodeResponse(
        this,
        this.#url,
        res.statusCode ?? 0,
        res.statusMessage ?? '',
        res.rawHeaders,
      );
    } catch (error) {
      // A header (or reason phrase) that fetch would refuse.
      this.#fail(error);
      return;
    }
    this.#resolve = undefined;
    this.#reject = undefined;
    resolve(response);
  }

  read(maxBytes: number): Promise<Uint8Array<ArrayBuffer>> {
    const res = this.#res as Http.IncomingMessage;
    if (this.#used) return Promise.reject(new TypeError('The body has already been used'));
    this.#used = true;
    if (this.#signal.aborted) return this.#refuse(this.#signal.reason);
    if (this.#failure !== undefined) return Promise.reject(this.#failure.error);
    // Destroyed before the read began (and without an error to tell): its bytes are gone.
    if (res.destroyed) return this.#refuse(cutOff());
    // What the encoded body declares is a floor of the decoded size (bar a few header bytes).
    if (Number(res.headers['content-length']) > maxBytes && this.#mayHaveBody(res)) {
      return this.#refuse(tooLarge(maxBytes));
    }
    const coding = codingOf(res.headers['content-encoding'], builtins as Builtins);
    return new Promise((resolve, reject) => {
      const chunks: Uint8Array[] = [];
      let size = 0;
      let received = false;
      // Made on the first byte: an empty body needs none, and deflate's framing shows there.
      let decoder: Transform | null | undefined;
      this.#reject = (reason) => {
        decoder?.destroy();
        reject(reason);
      };
      const done = () => {
        if (this.#reject === undefined) return;
        this.#reject = undefined;
        this.#release();
        resolve((builtins as Builtins).concat(chunks, size));
      };
      const collect = (chunk: Uint8Array) => {
        if (this.#reject === undefined) return;
        size += chunk.byteLength;
        // Checked per decoded chunk: a bomb stops here, never inflated past the limit.
        if (size > maxBytes) this.#fail(tooLarge(maxBytes));
        else chunks.push(chunk);
      };
      res.on('data', (chunk: Uint8Array) => {
        if (this.#reject === undefined) return;
        if (decoder === undefined) {
          if (coding === undefined) {
            const header = String(res.headers['content-encoding']);
            this.#fail(
              new UnusableBody(`Content-Encoding "${header.slice(0, 64)}" cannot be decoded`),
            );
            return;
          }
          decoder = coding === 'identity' ? null : makeDecoder(coding, chunk);
          if (decoder !== null) {
            decoder.on('data', collect);
            decoder.on('end', done);
            decoder.on('error', (error: Error) => this.#fail(error));
            decoder.on('drain', () => res.resume());
          }
        }
        if (decoder === null) collect(chunk);
        else if (!decoder.write(chunk)) res.pause();
      });
      res.on('end', () => {
        received = true;
        if (decoder) decoder.end();
        else done();
      });
      res.on('close', () => {
        // Node reports a cut body as an error first; this covers a close that does not.
        if (!received) this.#fail(cutOff());
      });
    });
  }

  discard(): void {
    if (this.#used) return;
    this.#used = true;
    this.#release();
    const res = this.#res as Http.IncomingMessage;
    // A body that has arrived whole is read out of the buffer, and the socket goes back to the
    // pool. One still arriving is dropped with its connection, as fetch drops a cancelled body:
    // nothing bounds a drain once the attempt is over, and a server that sends a byte now and
    // then would hold the socket for as long as it likes.
    if (res.complete) res.resume();
    else this.#req.destroy();
  }

  #mayHaveBody(res: Http.IncomingMessage): boolean {
    const status = res.statusCode ?? 0;
    return this.#method !== 'HEAD' && status >= 200 && !NO_BODY_STATUSES.has(status);
  }

  #refuse(error: unknown): Promise<never> {
    this.#fail(error);
    return Promise.reject(this.#inVocabulary(error));
  }

  /**
   * `error` as every sender reports a failure: the signal's reason and an unusable body as they
   * are; before the response, a network's failure as {@link NoResponse} (anything else, such as
   * a request that could not be written, as itself); after it, a body cut off.
   */
  #inVocabulary(error: unknown): unknown {
    if (error === this.#signal.reason || error instanceof UnusableBody) return error;
    if (error instanceof NoResponse || error instanceof BodyCutOff) return error;
    if (this.#res === undefined)
      return failures.has(error as object) ? new NoResponse(error) : error;
    return new BodyCutOff(error);
  }

  #fail(failure: unknown): void {
    const error = this.#inVocabulary(failure);
    if (this.#failure === undefined) this.#failure = { error };
    const reject = this.#reject;
    this.#resolve = undefined;
    this.#reject = undefined;
    this.#release();
    this.#req.destroy();
    reject?.(error);
  }

  #release(): void {
    if (this.#listening) {
      this.#listening = false;
      this.#signal.removeEventListener('abort', this);
    }
  }
}

class NodeResponse implements NodeHttpResponse {
  readonly status: number;
  readonly statusText: string;
  readonly headers: Headers;
  readonly #exchange: Exchange;
  readonly #url: string;
  readonly #response: Response | undefined;

  /** @throws {TypeError} for a header or reason phrase that fetch would refuse */
  constructor(
    exchange: Exchange,
    url: string,
    status: number,
    statusText: string,
    rawHeaders: readonly string[],
  ) {
    this.#exchange = exchange;
    this.#url = url;
    this.status = status;
    this.statusText = statusText;
    // A status a Response can have gets its Response now, and the head its headers: one Headers
    // filled once, not a Headers copied into a Response afterwards. Any other status is refused
    // by the call loop, which only reads the headers.
    if (status >= 200 && status <= 599) {
      const response = new Response(null, { status, statusText });
      // A constructed Response has no URL; a fetched one answers its request's.
      Object.defineProperty(response, 'url', { value: url });
      this.#response = response;
      this.headers = response.headers;
    } else {
      this.headers = new Headers();
    }
    for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
      this.headers.append(rawHeaders[index] as string, rawHeaders[index + 1] as string);
    }
  }

  /**
   * A Response of this head, without a body (the attempt reads it), answering the URL: what
   * `withResponse()` gives.
   */
  get response(): Response {
    if (this.#response !== undefined) return this.#response;
    const response = new Response(null, this);
    Object.defineProperty(response, 'url', { value: this.#url });
    return response;
  }

  read(maxBytes: number): Promise<Uint8Array<ArrayBuffer>> {
    return this.#exchange.read(maxBytes);
  }

  discard(): void {
    this.#exchange.discard();
  }
}

type Coding = 'identity' | 'gzip' | 'deflate' | 'br' | 'zstd';

/** The one coding a body has; undefined for one this cannot decode, or for several stacked. */
function codingOf(header: string | undefined, { zlib }: Builtins): Coding | undefined {
  if (header === undefined) return 'identity';
  switch (header.trim().toLowerCase()) {
    case '':
    case 'identity':
      return 'identity';
    case 'gzip':
    case 'x-gzip':
      return 'gzip';
    case 'deflate':
      return 'deflate';
    case 'br':
      return 'br';
    case 'zstd':
      return typeof zlib.createZstdDecompress === 'function' ? 'zstd' : undefined;
    default:
      return undefined;
  }
}

function makeDecoder(coding: Exclude<Coding, 'identity'>, first: Uint8Array): Transform {
  const { zlib } = builtins as Builtins;
  switch (coding) {
    case 'gzip':
      return zlib.createGunzip();
    case 'deflate':
      // `deflate` means zlib-wrapped, yet some servers send it raw (as undici, tell them apart
      // by the compression method in the low nibble of the zlib header's first byte).
      return ((first[0] ?? 0) & 0x0f) === 0x08 ? zlib.createInflate() : zlib.createInflateRaw();
    case 'br':
      return zlib.createBrotliDecompress();
    case 'zstd':
      return zlib.createZstdDecompress({
        params: { [zlib.constants.ZSTD_d_windowLogMax]: ZSTD_WINDOW_LOG_MAX },
      });
  }
}

function tooLarge(maxBytes: number): UnusableBody {
  return new UnusableBody(`body is larger than ${maxBytes} bytes`);
}

/** What Node's own client reports for a body cut off, for a close that came without it. */
function cutOff(): Error {
  return Object.assign(new Error('aborted'), { code: 'ECONNRESET' });
}
