/**
 * The agent's HTTP server: the values of a vault answered from memory when a fresh entry exists
 * for the token that asks, fetched once for every caller waiting on the same entry otherwise,
 * served stale while the service is unavailable; every other request forwarded as it came.
 *
 * Who may read an entry: only a request that presents the token the service answered it for
 * (the key holds the token's digest). A refused token, a vault that is gone or access withdrawn
 * (401, 403, 404) drops that token's entry at once; an outage never does.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isUnavailableStatus } from '../../core/retry.js';
import { afterMs } from '../../core/timer.js';
import { MAX_BODY_BYTES } from '../../core/validation.js';
import { endToEndHeaders, headerOf, withoutHeader } from './headers.js';
import { UpstreamHealth } from './health.js';
import { type Upstream, type UpstreamAnswer, UpstreamFailure } from './upstream.js';
import { type CachedValues, entryKey, ValuesCache } from './values-cache.js';

/** @internal What the agent serves, and how long it keeps what it served. */
export interface AgentSettings {
  /** Where requests go. */
  readonly upstream: Upstream;
  /** How long an entry is served without asking the service. */
  readonly ttlMs: number;
  /** How old an entry may be and still be served while the service is unavailable. */
  readonly staleIfErrorMs: number;
  /** Where the log lines go (stderr). */
  readonly log: (line: string) => void;
}

/** @internal The header that says how the agent answered a values request. */
export const AGENT_HEADER = 'x-secrets-vault-agent';

/** @internal The most entries kept (token and vault pairs), least recently used out. */
export const MAX_ENTRIES = 10_000;

/** @internal The most bytes of values kept, all entries together, least recently used out. */
export const MAX_CACHED_BYTES = 256 * 1024 * 1024;

// The one route whose answers are kept. Only the exact path: with a query, a trailing slash or
// another method, the request is forwarded uncached, as one the agent does not understand.
const VALUES_PATH = /^\/v1\/vaults\/([^/?#]+)\/secrets\/values$/;
// A token as the SDK sends it: visible ASCII.
const BEARER = /^Bearer ([\x21-\x7e]+)$/;
// The statuses that withdraw an entry: the token is refused, or the vault is gone for it.
const VERDICTS = new Set([401, 403, 404]);
// A client that takes longer than this to send its request's head, or all of it, is cut off.
const HEADERS_TIMEOUT_MS = 20_000;
const REQUEST_TIMEOUT_MS = 30_000;
// What a kept entry is served with, of the service's own headers.
const KEPT_HEADERS = ['content-type', 'x-request-id', 'cache-control'];

/** An answer ready to write. */
interface Reply {
  readonly status: number;
  /** Flat list of names and values, `content-length` excepted. */
  readonly headers: readonly string[];
  readonly body: Buffer;
}

/** @internal The agent's server, listening once {@link AgentServer.listen} resolves. */
export class AgentServer {
  readonly #server: Server;
  readonly #upstream: Upstream;
  readonly #ttlMs: number;
  readonly #staleIfErrorMs: number;
  readonly #cache: ValuesCache;
  readonly #health: UpstreamHealth;
  // The refresh of each entry under way: every caller that misses the same entry meanwhile
  // waits for it, so a crowd of callers costs the service one request.
  readonly #refreshing = new Map<string, Promise<Reply>>();
  #stopping = false;

  constructor(settings: AgentSettings) {
    this.#upstream = settings.upstream;
    this.#ttlMs = settings.ttlMs;
    this.#staleIfErrorMs = settings.staleIfErrorMs;
    this.#cache = new ValuesCache({
      maxEntries: MAX_ENTRIES,
      maxBytes: MAX_CACHED_BYTES,
      keepMs: Math.max(settings.ttlMs, settings.staleIfErrorMs),
    });
    this.#health = new UpstreamHealth(settings.log);
    this.#server = createServer(
      { headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS },
      (req, res) => {
        this.#handle(req, res).catch(() => {
          // A bug of the agent's own must end one exchange, never the process.
          if (!res.headersSent) this.#send(res, failure(502, 'bad_gateway', 'The agent failed'));
          else res.destroy();
        });
      },
    );
  }

  /** Listens on `host` and `port` (0 picks one) and resolves to the address it listens on. */
  listen(host: string, port: number): Promise<AddressInfo> {
    return new Promise((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(port, host, () => {
        this.#server.off('error', reject);
        resolve(this.#server.address() as AddressInfo);
      });
    });
  }

  /**
   * Stops accepting connections, lets the requests under way finish (for `graceMs` at most, then
   * cuts them off), and forgets every entry.
   */
  close(graceMs: number): Promise<void> {
    this.#stopping = true;
    return new Promise((resolve) => {
      const cutOff = afterMs(graceMs, () => this.#server.closeAllConnections());
      this.#server.close(() => {
        cutOff();
        this.#cache.clear();
        this.#upstream.close();
        resolve();
      });
      this.#server.closeIdleConnections();
    });
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = req.url ?? '';
    // Only a path on this server: an absolute URL (a proxy's request) or `*` names none, and
    // the agent never sends anything elsewhere than to its service.
    if (!target.startsWith('/') || target.startsWith('//')) {
      this.#send(res, failure(400, 'bad_request', 'The request target must be a path'));
      return;
    }
    const vaultId = req.method === 'GET' ? VALUES_PATH.exec(target)?.[1] : undefined;
    const token = BEARER.exec(req.headers.authorization ?? '')?.[1];
    if (vaultId !== undefined && token !== undefined && !hasBody(req)) {
      this.#send(res, await this.#values(req, entryKey(token, vaultId)));
      return;
    }
    this.#send(res, await this.#forward(req, target));
  }

  /** A values request: from memory while fresh, else from the refresh every caller shares. */
  async #values(req: IncomingMessage, key: string): Promise<Reply> {
    const kept = this.#cache.get(key);
    if (kept !== undefined && ageOf(kept) < this.#ttlMs) return fromCache(kept, 'hit');
    let refresh = this.#refreshing.get(key);
    if (refresh === undefined) {
      refresh = this.#refresh(req, key).finally(() => this.#refreshing.delete(key));
      this.#refreshing.set(key, refresh);
    }
    return refresh;
  }

  /** Asks the service for the values of `key`'s entry, and keeps or drops that entry by its answer. */
  async #refresh(req: IncomingMessage, key: string): Promise<Reply> {
    // The body is kept as it came: the agent asks for it without a content coding, so that one
    // body serves every client, whichever codings each accepts.
    const headers = [
      ...withoutHeader(endToEndHeaders(req.rawHeaders), 'accept-encoding'),
      'accept-encoding',
      'identity',
    ];
    let answer: UpstreamAnswer;
    try {
      answer = await this.#upstream.send({ method: 'GET', path: req.url ?? '', headers });
    } catch (error) {
      return this.#staleOr(key, this.#failed(error));
    }
    const { status } = answer;
    if (status >= 200 && status <= 299) {
      if (!isValuesBody(answer)) {
        // A success the SDK could not read is no success: never kept, never served as values.
        return this.#staleOr(
          key,
          this.#failed(new UpstreamFailure('unusable', 'not-json', 'the answer is not JSON')),
        );
      }
      this.#health.available();
      const values: CachedValues = {
        status,
        headers: KEPT_HEADERS.flatMap((name) => {
          const value = headerOf(answer.headers, name);
          return value === undefined ? [] : [name, value];
        }),
        body: answer.body,
        receivedAt: performance.now(),
      };
      this.#cache.set(key, values);
      return asMiss(passedOn(answer));
    }
    const reply = asMiss(passedOn(answer));
    if (isUnavailableStatus(status)) {
      this.#health.unavailable(String(status));
      return this.#staleOr(key, reply);
    }
    this.#health.available();
    if (VERDICTS.has(status)) this.#cache.delete(key);
    return reply;
  }

  /** The entry of `key` served as stale when it is young enough; else `reply`. */
  #staleOr(key: string, reply: Reply): Reply {
    const kept = this.#cache.get(key);
    if (kept === undefined || ageOf(kept) > this.#staleIfErrorMs) return asMiss(reply);
    this.#health.servedStale();
    return fromCache(kept, 'stale');
  }

  /** Any other request: its body read (bounded), sent on as it came, the answer passed back. */
  async #forward(req: IncomingMessage, path: string): Promise<Reply> {
    let body: Buffer | undefined;
    if (hasBody(req)) {
      const read = await readBody(req, MAX_BODY_BYTES);
      if (read === 'too-large') {
        const refused = failure(
          413,
          'payload_too_large',
          `Request body must be at most ${MAX_BODY_BYTES} bytes`,
        );
        // The rest of the body is never read: the connection ends with the answer.
        return { ...refused, headers: [...refused.headers, 'connection', 'close'] };
      }
      body = read;
    }
    let answer: UpstreamAnswer;
    try {
      answer = await this.#upstream.send({
        method: req.method ?? 'GET',
        path,
        headers: endToEndHeaders(req.rawHeaders),
        body,
      });
    } catch (error) {
      return this.#failed(error);
    }
    if (isUnavailableStatus(answer.status)) this.#health.unavailable(String(answer.status));
    else this.#health.available();
    return passedOn(answer);
  }

  /** The reply to an exchange that failed, noted as the service being unavailable. */
  #failed(error: unknown): Reply {
    if (!(error instanceof UpstreamFailure)) throw error;
    this.#health.unavailable(error.code);
    switch (error.kind) {
      case 'no-response':
        return failure(503, 'service_unavailable', 'The service could not be reached');
      case 'timeout':
        return failure(503, 'service_unavailable', 'The service did not answer in time');
      case 'unusable':
        return failure(
          502,
          'bad_gateway',
          `The service's answer could not be used: ${error.message}`,
        );
    }
  }

  #send(res: ServerResponse, reply: Reply): void {
    const headers = [...reply.headers];
    if (!NO_BODY_STATUSES.has(reply.status)) {
      headers.push('content-length', String(reply.body.byteLength));
    }
    // While stopping, each connection ends with its answer.
    if (this.#stopping && headerOf(headers, 'connection') === undefined) {
      headers.push('connection', 'close');
    }
    try {
      res.writeHead(reply.status, headers);
    } catch {
      // A header of the service's that Node will not write: the answer cannot be passed on.
      const refused = failure(502, 'bad_gateway', "The service's answer could not be used");
      res.writeHead(refused.status, [
        ...refused.headers,
        'content-length',
        String(refused.body.byteLength),
      ]);
      res.end(refused.body);
      return;
    }
    res.end(reply.body);
  }
}

const NO_BODY_STATUSES = new Set([204, 304]);

/** The service's answer as it is passed on. */
function passedOn(answer: UpstreamAnswer): Reply {
  return { status: answer.status, headers: answer.headers, body: answer.body };
}

/** `reply` as the answer to a values request that asked the service (whatever it said of itself). */
function asMiss(reply: Reply): Reply {
  return {
    ...reply,
    headers: [...withoutHeader(reply.headers, AGENT_HEADER), AGENT_HEADER, 'miss'],
  };
}

/** A kept entry, served with how it was served and its age in seconds (RFC 9111 `Age`). */
function fromCache(values: CachedValues, served: 'hit' | 'stale'): Reply {
  const age = String(Math.floor(ageOf(values) / 1000));
  return {
    status: values.status,
    headers: [...values.headers, 'age', age, AGENT_HEADER, served],
    body: values.body,
  };
}

function ageOf(values: CachedValues): number {
  return performance.now() - values.receivedAt;
}

/** A failure in the service's envelope, as the service would send it. */
function failure(status: number, errorCode: string, message: string): Reply {
  const body = Buffer.from(JSON.stringify({ statusCode: status, errorCode, message, data: null }));
  return {
    status,
    headers: [
      'content-type',
      'application/json',
      'cache-control',
      'no-store',
      'x-request-id',
      `req_${randomUUID()}`,
    ],
    body,
  };
}

/** Whether a values answer is one the SDK reads: the envelope with `data` a list. */
function isValuesBody(answer: UpstreamAnswer): boolean {
  const coding = headerOf(answer.headers, 'content-encoding');
  if (coding !== undefined && coding.trim().toLowerCase() !== 'identity') return false;
  try {
    const parsed: unknown = JSON.parse(answer.body.toString('utf8'));
    return (
      typeof parsed === 'object' &&
      parsed !== null &&
      Array.isArray((parsed as { data?: unknown }).data)
    );
  } catch {
    return false;
  }
}

function hasBody(req: IncomingMessage): boolean {
  return (
    req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0
  );
}

/**
 * Reads a request's body, or stops past `limit` bytes. A body declared larger is refused before
 * a byte of it is read.
 */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too-large'> {
  if (Number(req.headers['content-length'] ?? 0) > limit) return Promise.resolve('too-large');
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > limit) {
        req.off('data', onData);
        // Nothing more is read: the answer closes the connection.
        req.pause();
        resolve('too-large');
      } else {
        chunks.push(chunk);
      }
    };
    let ended = false;
    req.on('data', onData);
    req.on('end', () => {
      ended = true;
      resolve(Buffer.concat(chunks, size));
    });
    req.on('error', reject);
    // A client gone before the end of its body: there is nothing to forward (a settled promise
    // ignores this).
    req.on('close', () => {
      if (!ended) reject(new Error('the request was cut off'));
    });
  });
}
