/**
 * The benchmark's loopback service: node:http on 127.0.0.1, a port of the system's choosing,
 * fixed bodies serialized once at start. It runs in its own process (started by run.ts with
 * `fork`), so the client under test never shares a CPU thread or a heap with it; it reports
 * its URL to the parent over IPC and exits when the parent goes away.
 *
 * Routes (all under /v1, all requiring `Authorization: Bearer <TOKEN>`, or `token <TOKEN>`, the
 * scheme Octokit sends for a token that is not a JWT; every other header is ignored, so the
 * peers in bench/peers/ can send theirs):
 *   GET  /vaults/{id}                 one vault
 *   GET  /vaults/{id}/secrets         a page of 100 secrets; for ONE_PAGE_VAULT_ID without a
 *                                     cursor `next_cursor` is null, otherwise (ENDLESS_VAULT_ID,
 *                                     or any cursor) the next cursor counts up forever
 *   GET  /vaults/{id}/secrets/values  500 secrets with their values (not paginated)
 *   POST /vaults/{id}/secrets         201 and the created secret's metadata
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  buildBodies,
  ENDLESS_VAULT_ID,
  failureBody,
  ONE_PAGE_VAULT_ID,
  TOKEN,
} from './fixtures.ts';

const bodies = buildBodies();
const AUTHORIZATIONS = new Set([`Bearer ${TOKEN}`, `token ${TOKEN}`]);
const VAULT_PATH = /^\/v1\/vaults\/([^/?]+)(\/secrets(\/values)?)?$/;
let requests = 0;

function send(response: ServerResponse, status: number, body: string, extra: string[] = []): void {
  requests += 1;
  response.writeHead(status, [
    'Content-Type',
    'application/json',
    'Content-Length',
    String(Buffer.byteLength(body)),
    'Cache-Control',
    'no-store',
    'X-Request-Id',
    `req_${requests}`,
    ...extra,
  ]);
  response.end(body);
}

function cursorOf(query: string): string | null {
  for (const pair of query.split('&')) {
    if (pair.startsWith('cursor=')) return decodeURIComponent(pair.slice('cursor='.length));
  }
  return null;
}

function handle(request: IncomingMessage, response: ServerResponse): void {
  const url = request.url ?? '/';
  const mark = url.indexOf('?');
  const path = mark === -1 ? url : url.slice(0, mark);
  const query = mark === -1 ? '' : url.slice(mark + 1);
  if (!AUTHORIZATIONS.has(request.headers.authorization ?? '')) {
    send(response, 401, failureBody(401, 'unauthorized', 'Missing or invalid token'));
    return;
  }
  const match = VAULT_PATH.exec(path);
  if (match === null) {
    send(response, 404, failureBody(404, 'not_found', 'No such route'));
    return;
  }
  const [, vaultId, secrets, values] = match;
  if (request.method === 'GET' && secrets === undefined) {
    send(response, 200, bodies.vault);
  } else if (request.method === 'GET' && values !== undefined) {
    send(response, 200, bodies.values);
  } else if (request.method === 'GET') {
    const cursor = cursorOf(query);
    if (cursor === null && vaultId === ONE_PAGE_VAULT_ID) {
      send(response, 200, bodies.onePage);
    } else if (cursor !== null || vaultId === ENDLESS_VAULT_ID) {
      const next = cursor === null ? 1 : Number(cursor.slice(1)) + 1;
      send(response, 200, `${bodies.endlessHead}c${next}${bodies.endlessTail}`);
    } else {
      send(response, 404, failureBody(404, 'not_found', 'Vault not found'));
    }
  } else if (request.method === 'POST' && values === undefined) {
    // The body is read to its end (as a real service would) before the answer, and not parsed:
    // stripe-node form-encodes it (its v1 encoding), the others send JSON.
    request.resume();
    request.on('end', () =>
      send(response, 201, bodies.created, ['Location', '/v1/secrets/sec_9999']),
    );
  } else {
    send(response, 405, failureBody(405, 'method_not_allowed', 'Method not allowed'));
  }
}

const server = createServer({ keepAliveTimeout: 60_000 }, handle);
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  if (process.send) process.send({ url });
  else console.log(url);
});
// Started by run.ts: stop with it, even if it dies without saying so.
process.on('disconnect', () => process.exit(0));
