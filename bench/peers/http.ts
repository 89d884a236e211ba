/**
 * node:http by hand, the floor of Node: a keep-alive `http.Agent`, the body collected and
 * `JSON.parse`d, nothing checked. No retries and no timeout (node:http has neither by default).
 * Unlike `fetch`, it does not go through undici, so it shows what undici itself costs.
 */
import { randomUUID } from 'node:crypto';
import {
  Agent,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type RequestOptions,
  request,
} from 'node:http';
import { CREATE_PARAMS, PATHS, TOKEN } from '../fixtures.ts';
import type { Calls } from './calls.ts';

/**
 * Sends one request with node:http and collects the response's body as text; `finish` turns the
 * response and that text into the result. Shared with the ky-http contender (ky-http.ts), so
 * both send the same way; `finish` runs inside the try, so its throw rejects.
 */
export function sendHttp<T>(
  options: RequestOptions,
  body: string | undefined,
  finish: (response: IncomingMessage, text: string) => T,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const outgoing = request(options, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.once('error', reject);
      response.once('end', () => {
        try {
          resolve(finish(response, Buffer.concat(chunks).toString('utf8')));
        } catch (error) {
          reject(error);
        }
      });
    });
    outgoing.once('error', reject);
    outgoing.end(body);
  });
}

const parse = (_response: IncomingMessage, text: string): unknown => JSON.parse(text);

export function httpCalls(base: string): Calls {
  const { hostname, port } = new URL(base);
  // Node's global agent keeps connections alive too (since Node 19), but a user who wants that
  // said makes their own, as here; its other settings are Node's defaults (no socket limit).
  const agent = new Agent({ keepAlive: true });
  const headers = { Accept: 'application/json', Authorization: `Bearer ${TOKEN}` };

  const send = (method: string, path: string, extra?: OutgoingHttpHeaders, body?: string) =>
    sendHttp(
      {
        agent,
        hostname,
        port,
        method,
        path,
        headers: extra ? { ...headers, ...extra } : headers,
      },
      body,
      parse,
    );

  return {
    get: () => send('GET', PATHS.vault),
    list: () => send('GET', PATHS.page),
    values: () => send('GET', PATHS.values),
    create: () => {
      const body = JSON.stringify(CREATE_PARAMS);
      // A length rather than chunked encoding, as fetch sends a string body.
      return send(
        'POST',
        PATHS.create,
        {
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(body),
          'Idempotency-Key': randomUUID(),
        },
        body,
      );
    },
  };
}
