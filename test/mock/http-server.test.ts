/**
 * The mock served over real HTTP on loopback (`@secrets-vault/sdk/mock/node`): the same
 * handlers, real sockets, and network faults that really drop the connection.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SecretsVault } from '../../src/index.js';
import { createVaultMock } from '../../src/mock/index.js';
import { type ServedVaultMock, serveVaultMock } from '../../src/mock/node.js';

const mock = createVaultMock();
let served: ServedVaultMock;

beforeAll(async () => {
  served = await serveVaultMock(mock);
});
beforeEach(() => mock.reset());
afterAll(async () => {
  await served.close();
});

const auth = () => ({ Authorization: `Bearer ${mock.principals.owner.token}` });

describe('serveVaultMock', () => {
  it('listens on a free loopback port', () => {
    expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('answers the contract over HTTP, with the envelope and headers', async () => {
    const created = await fetch(`${served.url}/v1/teams`, {
      method: 'POST',
      headers: { ...auth(), 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'over http' }),
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('x-request-id')).toMatch(/^req_/);
    expect(created.headers.get('cache-control')).toBe('no-store');
    const body = (await created.json()) as { data: { name: string } };
    expect(body.data.name).toBe('over http');
  });

  it('answers unknown paths and preflights 404 without CORS headers', async () => {
    for (const [method, path] of [
      ['GET', '/favicon.ico'],
      ['OPTIONS', '/v1/vaults'],
    ] as const) {
      const answer = await fetch(`${served.url}${path}`, {
        method,
        headers: { Origin: 'https://elsewhere.test' },
      });
      expect(answer.status).toBe(404);
      expect([...answer.headers.keys()].some((name) => name.startsWith('access-control-'))).toBe(
        false,
      );
      expect(((await answer.json()) as { errorCode: string }).errorCode).toBe('not_found');
    }
  });

  it('drops the connection for a network-error fault, and serves normally afterwards', async () => {
    mock.faults.inject({ method: 'GET', path: '/v1/org', times: 1 }, { kind: 'network-error' });
    await expect(fetch(`${served.url}/v1/org`, { headers: auth() })).rejects.toThrow(TypeError);
    expect((await fetch(`${served.url}/v1/org`, { headers: auth() })).status).toBe(200);
  });

  it('lets the SDK recover from a response lost after the commit, over real sockets', async () => {
    const client = new SecretsVault({ baseUrl: served.url, token: mock.principals.owner.token });
    mock.faults.inject(
      { method: 'POST', path: '/v1/vaults', times: 1 },
      { kind: 'network-error-after-commit' },
    );
    const { data, replayed } = await client.vaults.create({ name: 'once' }).withResponse();
    expect(replayed).toBe(true);
    expect((await client.vaults.list().toArray()).map((vault) => vault.id)).toEqual([data.id]);
  });
});
