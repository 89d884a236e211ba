/**
 * A response the client discards unread (its status is none the service answers with) must not
 * keep its connection: a server that drips the body a byte at a time would otherwise hold a
 * socket of the client for as long as it likes. fetch drops such a body with its connection;
 * node:http must as well, within the attempt's `timeout` at the latest.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ResponseValidationError, SecretsVault } from '../../src/index.js';
import { rejectionOf } from '../rejection.js';
import { closeServers } from './scripted-server.js';

const TOKEN = 'sv_discard_token_5d2f8a0c';
const TIMEOUT_MS = 1_000;
// Machines running the suite are busy: generous, and only an upper bound.
const SLACK_MS = 4_000;

const servers: Server[] = [];
const timers: NodeJS.Timeout[] = [];
afterEach(async () => {
  for (const timer of timers.splice(0)) clearInterval(timer);
  await closeServers(servers);
});

interface DrippingServer {
  readonly url: string;
  /** Connections the server holds open now. */
  open(): number;
  /** Connections the server has accepted so far. */
  accepted(): number;
}

/**
 * Answers with `status`, a small Content-Length, and then one byte of the body every 100 ms,
 * never reaching the end: only the client closing the connection stops it.
 */
async function drippingServer(status: number): Promise<DrippingServer> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createServer((_request, response) => {
    response.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': '1000' });
    response.write('{');
    const timer = setInterval(() => response.write(' '), 100);
    timers.push(timer);
    response.on('close', () => clearInterval(timer));
  });
  server.on('connection', (socket) => {
    accepted += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, open: () => sockets.size, accepted: () => accepted };
}

describe('a response discarded for its status, whose body drips', () => {
  it.each([999, 600])(
    'fails the call with ResponseValidationError and loses its connection by the timeout (status %i)',
    async (status) => {
      const server = await drippingServer(status);
      const client = new SecretsVault({
        baseUrl: server.url,
        token: TOKEN,
        timeout: TIMEOUT_MS,
        maxRetries: 0,
      });
      const started = performance.now();
      const error = await rejectionOf(client.vaults.get('vlt_1'));
      expect(error).toBeInstanceOf(ResponseValidationError);
      expect((error as ResponseValidationError).status).toBe(status);
      expect(performance.now() - started).toBeLessThan(TIMEOUT_MS + SLACK_MS);
      expect(server.accepted()).toBe(1);
      // The server sees the client close the connection: it no longer holds a socket of ours.
      await expect
        .poll(() => server.open(), { timeout: TIMEOUT_MS + SLACK_MS, interval: 50 })
        .toBe(0);
    },
    15_000,
  );
});
