import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { APIConnectionError, InternalServerError, SecretsVault } from '@secrets-vault/sdk';
import { createVaultMock } from '@secrets-vault/sdk/mock';
import { http, passthrough } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

// Your application: loads its secrets at startup, then calls the service on each request.
async function startApp(client: SecretsVault, vaultId: string): Promise<Server> {
  const config = await client.secrets.load(vaultId); // waits out an outage: SECRETS_VAULT_WAIT
  const app = createServer(async (_request, response) => {
    try {
      const secrets = await client.secrets.list(vaultId).toArray({ max: 100 });
      const now = secrets.map((secret) => secret.name);
      // Names only: a secret's value never goes into a response.
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ atStartup: Object.keys(config), now }));
    } catch (error) {
      const outage = error instanceof APIConnectionError || error instanceof InternalServerError;
      response.writeHead(outage ? 503 : 500).end();
    }
  });
  app.listen(0, '127.0.0.1'); // a free port
  await once(app, 'listening');
  return app;
}

const mock = createVaultMock();
let appUrl = ''; // the origin of the app under test, once it listens
const server = setupServer(
  ...mock.handlers,
  // The test's own requests to the app go through for real; any other request that no handler
  // answers still fails the test.
  http.all(
    ({ request }) => new URL(request.url).origin === appUrl,
    () => passthrough(),
  ),
);

// The client the app is given in tests: one attempt per call, and 250 ms for it.
function testClient() {
  const token = mock.principals.owner.token;
  return new SecretsVault({ baseUrl: mock.baseUrl, token, maxRetries: 0, timeout: 250 });
}

describe('an HTTP server of your own that calls the SDK', () => {
  let app: Server;
  let vaultId: string;

  beforeAll(async () => {
    // Startup loads wait out an outage for 60 s whatever the client's maxRetries: not in tests.
    vi.stubEnv('SECRETS_VAULT_WAIT', '0');
    server.listen({ onUnhandledFrame: 'error' });
    const vault = await testClient().vaults.create({ name: 'checkout' });
    await testClient().secrets.create(vault.id, { name: 'db', value: { password: 'test-only' } });
    vaultId = vault.id;
    app = await startApp(testClient(), vaultId);
    appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
  });
  afterEach(() => mock.faults.clear()); // also lets go of held requests
  afterAll(async () => {
    app.close();
    await once(app, 'close');
    server.close();
    vi.unstubAllEnvs();
  });

  it('answers with the names of the secrets in its vault', async () => {
    const response = await fetch(`${appUrl}/secrets`);

    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ atStartup: ['db'], now: ['db'] });
  });

  it('answers 503 when the service fails, in one attempt', { timeout: 1_000 }, async () => {
    const fault = mock.faults.inject(
      { method: 'GET', path: '/v1/vaults/:vaultId/secrets' },
      { kind: 'status', status: 503 },
    );

    expect((await fetch(`${appUrl}/secrets`)).status).toBe(503);
    expect(fault.hits).toBe(1);
  });

  it('answers 503 when the service hangs, after 250 ms', { timeout: 1_000 }, async () => {
    mock.faults.inject({ method: 'GET', path: '/v1/vaults/:vaultId/secrets' }, { kind: 'hold' });

    expect((await fetch(`${appUrl}/secrets`)).status).toBe(503);
  });

  it('fails to start at once when the service is down', { timeout: 1_000 }, async () => {
    const fault = mock.faults.inject(
      { path: '/v1/vaults/:vaultId/secrets/values' },
      { kind: 'network-error' },
    );

    await expect(startApp(testClient(), vaultId)).rejects.toBeInstanceOf(APIConnectionError);
    expect(fault.hits).toBe(1);
  });
});
