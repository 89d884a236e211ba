/**
 * What sends the bytes of one attempt, whatever it is: the runtime's (or the caller's) `fetch`
 * (fetch.ts) or, in Node, `node:http` (node-http.ts), behind one interface, reporting what went
 * wrong in one vocabulary: {@link NoResponse}, {@link BodyCutOff}, `UnusableBody` (whole-body.ts)
 * or the attempt's signal's reason. ky calls one of them as its `fetch` for each attempt of the
 * call loop (call.ts), which never asks which one sent the bytes.
 */

/** @internal One attempt as the SDK built it: lower-case header names, the body as JSON text. */
export interface HttpRequest {
  readonly method: string;
  /** An absolute http: or https: URL. */
  readonly url: string;
  /**
   * The URL's path and query as WHATWG URL would give them, where the builder knows them: a
   * sender need not parse the whole URL on every attempt.
   */
  readonly target?: string | undefined;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | undefined;
}

/**
 * @internal The head of a response; its body is read separately, so that an attempt can tell a
 * request that got no answer from an answer whose body was cut off.
 */
export interface HttpResponseHead {
  readonly status: number;
  /** The reason phrase, where the sender knows it (HTTP/1.1's `OK`); HTTP/2 has none. */
  readonly statusText?: string;
  readonly headers: Headers;
  /**
   * The Response of a successful call, as `withResponse()` gives it: the fetch's own (its body
   * used up by `read()`), or one made with this head, the URL and no body.
   */
  readonly response: Response;
  /**
   * Reads the whole body, decoded per its `Content-Encoding`, at most `maxBytes` of it.
   *
   * @throws {UnusableBody} when the body is (or says it is) larger than `maxBytes`, or cannot
   *   be decoded
   * @throws {BodyCutOff} when the body stopped before its end; the signal's reason when it fired
   */
  read(maxBytes: number): Promise<Uint8Array<ArrayBuffer>>;
  /** Drops the body unread. */
  discard(): void;
}

/**
 * @internal Sends one attempt. `original` is the Request that ky built for it, which a caller's
 * `fetch` receives as is; `signal` ends the attempt (ky's timeout, the caller's abort).
 *
 * @throws {NoResponse} when no response arrived for want of a network; the signal's reason when
 *   it fired; anything else a caller's `fetch` threw, as itself (its own bug, not a network's)
 */
export type HttpSend = (
  request: HttpRequest,
  signal: AbortSignal,
  original: Request,
) => Promise<HttpResponseHead>;

/** @internal No response arrived for an attempt: the network, a proxy or the server dropped it. */
export class NoResponse extends Error {
  override name = 'NoResponse';
  constructor(cause: unknown) {
    super('no response', { cause });
  }
}

/** @internal A response's head arrived, then its body stopped before its end. */
export class BodyCutOff extends Error {
  override name = 'BodyCutOff';
  constructor(cause: unknown) {
    super('the response body was cut off', { cause });
  }
}
