/**
 * The `headers` option cannot set what frames or routes a request (its length, its chunking, its
 * connection, its host, its proxy): the transport owns those, and a caller's value could make a
 * server or a proxy on the way read two requests where one was sent. The client refuses them at
 * construction, a call refuses them before anything is sent, on node:http and on fetch alike.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { RequestValidationError, SecretsVault, SecretsVaultError } from '../../src/index.js';
import { rejectionOf } from '../rejection.js';
import { closeServers, sendJson, success, vaultData } from './scripted-server.js';

const TOKEN = 'sv_framing_token_3b7c9e1d';

// Each header with a value that would do harm if it went out as given, in the case a caller
// might write it.
const FRAMING: ReadonlyArray<readonly [string, string]> = [
  ['Host', 'internal.example'],
  ['Content-Length', '0'],
  ['Transfer-Encoding', 'chunked'],
  ['transfer-encoding', 'gzip, chunked'],
  ['Connection', 'upgrade'],
  ['Keep-Alive', 'timeout=600'],
  ['Upgrade', 'h2c'],
  ['TE', 'trailers'],
  ['Trailer', 'X-Smuggled'],
  ['Expect', '100-continue'],
  ['Proxy-Authorization', 'Basic dXNlcjpwYXNz'],
  ['PROXY-CONNECTION', 'keep-alive'],
  ['proxy-anything', 'forwarded-for-internal'],
];

interface CountingServer {
  readonly url: string;
  /** Connections accepted so far: a request that was never sent opens none. */
  connections(): number;
}

const servers: Server[] = [];
afterEach(async () => {
  await closeServers(servers);
});

/** A loopback server that answers every request with a vault and counts its connections. */
async function countingServer(): Promise<CountingServer> {
  let connections = 0;
  const server = createServer((_request, response) =>
    sendJson(response, 200, success(vaultData())),
  );
  server.on('connection', () => {
    connections += 1;
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, connections: () => connections };
}

/** What `build` throws. */
function thrownBy(build: () => void): unknown {
  try {
    build();
  } catch (error) {
    return error;
  }
  throw new Error('expected it to throw');
}

describe('a header that frames or routes the request', () => {
  it.each(FRAMING)('is refused in the client’s headers at construction: %s', (name, value) => {
    const error = thrownBy(
      () =>
        new SecretsVault({
          baseUrl: 'https://vault.example.com',
          token: TOKEN,
          headers: { [name]: value },
        }),
    );
    expect(error).toBeInstanceOf(SecretsVaultError);
    const { message } = error as SecretsVaultError;
    expect(message).toContain(`\`headers.${name}\``);
    expect(message).toContain("the transport's own");
    // The value may be a credential (Proxy-Authorization): it is never quoted.
    expect(message).not.toContain(value);
  });

  it.each(FRAMING)(
    'is refused in a call’s headers before anything is sent: %s',
    async (name, value) => {
      const server = await countingServer();
      const client = new SecretsVault({ baseUrl: server.url, token: TOKEN, maxRetries: 0 });
      const error = await rejectionOf(client.vaults.get('vlt_1', { headers: { [name]: value } }));
      expect(error).toBeInstanceOf(RequestValidationError);
      const { issues, message } = error as RequestValidationError;
      expect(issues).toEqual([{ path: ['headers', name], message: expect.any(String) }]);
      expect(message).toContain(`headers.${name}:`);
      expect(message).toContain('it frames and routes the request');
      expect(message).not.toContain(value);
      expect(server.connections()).toBe(0);
    },
  );
});
