/**
 * ky on node:http: the cheapest ky call there can be, the floor of any client whose every
 * request goes through ky (as the SDK's do). One `ky.create` instance with no retries and no
 * timeout, whose `fetch` sends ky's `Request` with node:http (a keep-alive agent, as http.ts)
 * and collects the body as text. It answers ky with a `Response` without a body, the text kept
 * aside for the call to `JSON.parse`, so no response body is wrapped in a stream: what remains
 * over http.ts is ky's own work (and the `Request` it builds, whose POST body is read back).
 */
import { randomUUID } from 'node:crypto';
import { Agent, type OutgoingHttpHeaders } from 'node:http';
import ky from 'ky';
import { CREATE_PARAMS, PATHS, TOKEN } from '../fixtures.ts';
import type { Calls } from './calls.ts';
import { sendHttp } from './http.ts';

export function kyHttpCalls(base: string): Calls {
  const agent = new Agent({ keepAlive: true });
  // Each body, by the bodiless Response ky hands back as it got it (concurrent calls each
  // find their own).
  const bodies = new WeakMap<Response, string>();
  const api = ky.create({
    retry: 0,
    timeout: false,
    fetch: async (input, init) => {
      // ky passes its own Request; anything else is made one, as fetch would.
      const request = input instanceof Request ? input : new Request(input, init);
      const { hostname, port, pathname, search } = new URL(request.url);
      const headers: OutgoingHttpHeaders = Object.fromEntries(request.headers);
      const body = request.body === null ? undefined : await request.text();
      // A length rather than chunked encoding, as http.ts and fetch send a string body.
      if (body !== undefined) headers['content-length'] = Buffer.byteLength(body);
      return sendHttp(
        {
          agent,
          hostname,
          port,
          method: request.method,
          path: pathname + search,
          headers,
          signal: request.signal,
        },
        body,
        (incoming, text) => {
          const responseHeaders = new Headers();
          const raw = incoming.rawHeaders;
          for (let index = 0; index + 1 < raw.length; index += 2) {
            responseHeaders.append(raw[index] as string, raw[index + 1] as string);
          }
          const response = new Response(null, {
            status: incoming.statusCode ?? 0,
            statusText: incoming.statusMessage ?? '',
            headers: responseHeaders,
          });
          bodies.set(response, text);
          return response;
        },
      );
    },
  });
  const json = async (pending: Promise<Response>): Promise<unknown> =>
    JSON.parse(bodies.get(await pending) ?? '');

  const headers = { Accept: 'application/json', Authorization: `Bearer ${TOKEN}` };
  const urls = {
    vault: `${base}${PATHS.vault}`,
    page: `${base}${PATHS.page}`,
    values: `${base}${PATHS.values}`,
    create: `${base}${PATHS.create}`,
  };
  return {
    get: () => json(api.get(urls.vault, { headers })),
    list: () => json(api.get(urls.page, { headers })),
    values: () => json(api.get(urls.values, { headers })),
    create: () =>
      json(
        api.post(urls.create, {
          headers: {
            ...headers,
            'Content-Type': 'application/json',
            'Idempotency-Key': randomUUID(),
          },
          json: CREATE_PARAMS,
        }),
      ),
  };
}
