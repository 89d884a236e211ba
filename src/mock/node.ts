/**
 * `@secrets-vault/sdk/mock/node`: serves a mock over real HTTP on loopback, for demos, other
 * processes and browser tests. Node-only, and therefore kept out of `@secrets-vault/sdk/mock`.
 *
 * @packageDocumentation
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getResponse } from 'msw';
import type { VaultMock } from './index.js';
import { errorResponse, MockError } from './pipeline.js';

/** Options of {@link serveVaultMock}. */
export interface ServeOptions {
  /** The port to listen on. @default 0 (a free port) */
  readonly port?: number;
  /** The loopback address to listen on. @default '127.0.0.1' */
  readonly host?: string;
}

/** A mock being served over HTTP. */
export interface ServedVaultMock {
  /** The base URL to give the client, such as `http://127.0.0.1:53211`. */
  readonly url: string;
  /** Stops accepting connections and closes open ones. */
  close(): Promise<void>;
}

/**
 * Serves the mock's handlers over HTTP. A fault of kind `network-error` (or
 * `network-error-after-commit`) destroys the connection, as a real network would.
 *
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
  const server = createServer((incoming, outgoing) => {
    void respond(mock, incoming).then(
      async (response) => {
        if (response.type === 'error') {
          incoming.socket.destroy();
          return;
        }
        outgoing.writeHead(response.status, [...response.headers.entries()].flat());
        outgoing.end(Buffer.from(await response.arrayBuffer()));
      },
      () => incoming.socket.destroy(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

async function respond(mock: VaultMock, incoming: IncomingMessage): Promise<Response> {
  const chunks: Buffer[] = [];
  for await (const chunk of incoming) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (value === undefined || name === 'host' || name === 'connection') continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const method = incoming.method ?? 'GET';
  // The handlers answer on the mock's own base URL; requests arrive on this server's origin.
  const request = new Request(`${mock.baseUrl}${incoming.url ?? '/'}`, {
    method,
    headers,
    ...(method === 'GET' || method === 'HEAD' || body.byteLength === 0 ? {} : { body }),
  });
  return (
    (await getResponse(mock.handlers, request)) ??
    errorResponse(new MockError(404, 'not_found', 'No such route'))
  );
}
