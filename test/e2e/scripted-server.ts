/**
 * A real HTTP server on loopback that misbehaves on purpose: each test scripts what it answers,
 * and reads back every request it received. Used to prove what the client does against a
 * hostile server, proxy or network, over real sockets.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One request as the server received it. */
export interface ReceivedRequest {
  readonly method: string;
  /** Path and query exactly as sent. */
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

/** Answers the `index`-th request (0-based). */
export type Script = (
  request: ReceivedRequest,
  response: ServerResponse,
  index: number,
) => void | Promise<void>;

/** A scripted server and what it has seen. */
export interface ScriptedServer {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly port: number;
  readonly requests: ReceivedRequest[];
  close(): Promise<void>;
}

/** Starts a server on a free loopback port that answers every request with `script`. */
export async function serveScript(script: Script): Promise<ScriptedServer> {
  const requests: ReceivedRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer(async (incoming, outgoing) => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const request: ReceivedRequest = {
      method: incoming.method ?? 'GET',
      url: incoming.url ?? '/',
      headers: incoming.headers,
      body: Buffer.concat(chunks).toString('utf8'),
    };
    requests.push(request);
    try {
      await script(request, outgoing, requests.length - 1);
    } catch {
      outgoing.socket?.destroy();
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Writes a JSON body with the service's headers. */
export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    'X-Request-Id': `req_${crypto.randomUUID()}`,
    'Cache-Control': 'no-store',
    ...headers,
  });
  response.end(text);
}

/** A success envelope (with `next_cursor` when given). */
export function success(data: unknown, nextCursor?: string | null): Record<string, unknown> {
  return {
    statusCode: 200,
    errorCode: null,
    message: null,
    data,
    ...(nextCursor === undefined ? {} : { next_cursor: nextCursor }),
  };
}

/** Sends the status line, the headers and the first bytes of a body, then cuts the connection. */
export function cutBody(response: ServerResponse, status: number, fullBody: string): void {
  response.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(fullBody),
    'X-Request-Id': `req_${crypto.randomUUID()}`,
  });
  response.write(fullBody.slice(0, 10));
  setTimeout(() => response.socket?.destroy(), 20);
}

/** Closes every server of `servers` (emptying it), cutting the connections they still hold. */
export function closeServers(servers: Server[]): Promise<void> {
  return Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  ).then(() => undefined);
}

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A vault as the service sends it. */
export function vaultData(id = 'vlt_1'): Record<string, unknown> {
  return {
    id,
    org_id: 'org_1',
    name: 'Payments',
    icon_index: 0,
    color: '#6B7280',
    team_id: null,
    role: 'admin',
    created_at: '2026-01-01T00:00:00.000Z',
  };
}

/** A secret's metadata as the service sends it. */
export function secretData(id = 'sec_1'): Record<string, unknown> {
  return {
    id,
    vault_id: 'vlt_1',
    name: 'db',
    type: 'generic',
    expired_at: null,
    delete_after_expired: false,
    is_archived: false,
    created_at: '2026-01-01T00:00:00.000Z',
  };
}
