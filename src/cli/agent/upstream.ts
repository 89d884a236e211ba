/**
 * The agent's side of the service: one request sent as it was built, its whole answer read,
 * bounded in size and in time, and redirects returned as they are, never followed. Every way an
 * exchange can fail ends here as one {@link UpstreamFailure}, with the system error code as
 * data: the server above decides what the client gets.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import { afterMs } from '../../core/timer.js';
import { MAX_RESPONSE_BYTES } from '../../core/transport/body.js';
import { endToEndHeaders } from './headers.js';

/** @internal One request for the service: the path under its base URL, as the client sent it. */
export interface UpstreamRequest {
  readonly method: string;
  /** The path and query, such as `/v1/vaults?limit=20`, joined under the base URL's path. */
  readonly path: string;
  /** End-to-end headers as a flat list of names and values; `host` is set here. */
  readonly headers: readonly string[];
  readonly body?: Uint8Array | undefined;
}

/** @internal The service's whole answer. */
export interface UpstreamAnswer {
  readonly status: number;
  /** Its end-to-end headers, as a flat list (every repeat kept), `content-length` excepted. */
  readonly headers: readonly string[];
  readonly body: Buffer;
}

/**
 * @internal How an exchange failed: `no-response` (no connection, or the connection dropped
 * before an answer began), `timeout` (no whole answer within the timeout), `unusable` (an answer
 * that is no HTTP this agent can pass on: malformed, too large, cut off).
 */
export type UpstreamFailureKind = 'no-response' | 'timeout' | 'unusable';

/** @internal An exchange with the service that gave no answer to pass on. */
export class UpstreamFailure extends Error {
  override name = 'UpstreamFailure';
  readonly kind: UpstreamFailureKind;
  /** What it failed on, fit for a log line: a system error code (`ECONNREFUSED`) or a word. */
  readonly code: string;

  constructor(kind: UpstreamFailureKind, code: string, message: string) {
    super(message);
    this.kind = kind;
    this.code = code;
  }
}

// Idle connections to the service close after this: below the 5 s many servers keep one, so the
// agent rather than the service ends it, and a request rarely meets a socket being closed.
const IDLE_MS = 4_000;

/** @internal Sends requests to the service at one base URL, over a pool of kept-alive connections. */
export class Upstream {
  readonly #url: URL;
  readonly #basePath: string;
  readonly #timeoutMs: number;
  readonly #maxBytes: number;
  readonly #agent: http.Agent;

  /**
   * @param baseUrl the service's base URL, already checked (http or https, no query)
   * @param timeoutMs how long one exchange may take, from connecting to the answer's last byte
   * @param maxBytes the largest answer body read
   */
  constructor(baseUrl: string, timeoutMs: number, maxBytes = MAX_RESPONSE_BYTES) {
    this.#url = new URL(baseUrl);
    this.#basePath = this.#url.pathname.replace(/\/+$/, '');
    this.#timeoutMs = timeoutMs;
    this.#maxBytes = maxBytes;
    const options: http.AgentOptions = { keepAlive: true, timeout: IDLE_MS };
    this.#agent =
      this.#url.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
  }

  /**
   * Sends `request` and resolves to the whole answer, whatever its status.
   *
   * @throws {UpstreamFailure} when no whole, usable answer arrived within the timeout
   */
  send(request: UpstreamRequest): Promise<UpstreamAnswer> {
    const url = this.#url;
    const module = url.protocol === 'https:' ? https : http;
    const headers = [...request.headers, 'host', url.host];
    if (request.body !== undefined) headers.push('content-length', String(request.body.byteLength));
    return new Promise((resolve, reject) => {
      let settled = false;
      let req: http.ClientRequest | undefined;
      const settle = (outcome: UpstreamAnswer | UpstreamFailure) => {
        if (settled) return;
        settled = true;
        cancelTimeout();
        if (outcome instanceof UpstreamFailure) {
          req?.destroy();
          reject(outcome);
        } else {
          resolve(outcome);
        }
      };
      // One deadline for the whole exchange: a service that answers its head at once and then
      // drips the body a byte at a time fails it all the same.
      const cancelTimeout = afterMs(this.#timeoutMs, () =>
        settle(new UpstreamFailure('timeout', 'timeout', `no answer within ${this.#timeoutMs} ms`)),
      );
      try {
        req = module.request({
          method: request.method,
          protocol: url.protocol,
          // Node wants an IPv6 literal without its brackets.
          hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
          port: url.port,
          path: `${this.#basePath}${request.path}`,
          headers,
          agent: this.#agent,
        });
      } catch (error) {
        // A path or header Node refuses to write: nothing was sent.
        settle(new UpstreamFailure('unusable', codeOf(error), 'the request could not be sent'));
        return;
      }
      req.on('error', (error) => settle(failureOf(error)));
      req.on('response', (res) => this.#read(res, request.method, settle));
      req.end(request.body);
    });
  }

  /** Reads the answer's body, at most the bound, then settles with the whole answer. */
  #read(
    res: http.IncomingMessage,
    method: string,
    settle: (outcome: UpstreamAnswer | UpstreamFailure) => void,
  ): void {
    const status = res.statusCode ?? 0;
    if (status < 200 || status > 599) {
      settle(new UpstreamFailure('unusable', 'status', `the service answered status ${status}`));
      return;
    }
    const tooLarge = () =>
      new UpstreamFailure('unusable', 'too-large', `body larger than ${this.#maxBytes} bytes`);
    // What it declares is refused before a byte of it is read.
    if (method !== 'HEAD' && Number(res.headers['content-length']) > this.#maxBytes) {
      settle(tooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let ended = false;
    res.on('data', (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > this.#maxBytes) settle(tooLarge());
      else chunks.push(chunk);
    });
    res.on('end', () => {
      ended = true;
      settle({
        status,
        headers: endToEndHeaders(res.rawHeaders),
        body: Buffer.concat(chunks, size),
      });
    });
    const cutOff = () =>
      settle(new UpstreamFailure('unusable', 'cut-off', 'the answer was cut off'));
    res.on('error', cutOff);
    res.on('close', () => {
      if (!ended) cutOff();
    });
  }

  /** Closes every connection to the service. */
  close(): void {
    this.#agent.destroy();
  }
}

/** A failure of the request before any answer: refused, reset, or an answer Node could not parse. */
function failureOf(error: unknown): UpstreamFailure {
  const code = codeOf(error);
  // Node's parser refused the answer's head (headers past the limit, malformed lines): the
  // service did answer, with something no client can use.
  if (code.startsWith('HPE_')) {
    return new UpstreamFailure('unusable', code, 'the answer was malformed');
  }
  return new UpstreamFailure('no-response', code, 'no answer');
}

/** The system error code of `error`, else its class: a word fit for a log line, never a message. */
function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^[\w.-]{1,64}$/.test(code)) return code;
  return error instanceof Error ? error.name : 'error';
}
