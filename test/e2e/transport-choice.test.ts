/**
 * What sends the bytes in Node: node:http by default; Node's fetch when SECRETS_VAULT_TRANSPORT
 * says so, or when a test tool has put its own `globalThis.fetch` in place of Node's (it expects
 * to see every request, as it would in any other runtime); always the caller's `fetch` option
 * when one is given. Told apart on the wire: Node's fetch (undici) sends `Sec-Fetch-Mode`, which
 * node:http never sends.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SecretsVault, SecretsVaultError } from '../../src/index.js';
import {
  type ScriptedServer,
  sendJson,
  serveScript,
  success,
  vaultData,
} from './scripted-server.js';

let server: ScriptedServer | undefined;

afterEach(async () => {
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
  await server?.close();
  server = undefined;
});

/** Makes one call to a fresh server and tells which transport sent it. */
async function sentThrough(options: { fetch?: typeof fetch } = {}): Promise<'http' | 'fetch'> {
  server = await serveScript((_request, response) => sendJson(response, 200, success(vaultData())));
  const client = new SecretsVault({ baseUrl: server.url, token: 'sv_token', ...options });
  expect((await client.vaults.get('vlt_1')).id).toBe('vlt_1');
  const [request] = server.requests;
  return request?.headers['sec-fetch-mode'] === undefined ? 'http' : 'fetch';
}

describe('the transport in Node', () => {
  it('sends through node:http by default', async () => {
    vi.stubEnv('SECRETS_VAULT_TRANSPORT', undefined);
    expect(await sentThrough()).toBe('http');
  });

  it('sends through Node fetch with SECRETS_VAULT_TRANSPORT=fetch', async () => {
    vi.stubEnv('SECRETS_VAULT_TRANSPORT', 'fetch');
    expect(await sentThrough()).toBe('fetch');
  });

  it('sends through a globalThis.fetch that a test tool put in place, by default', async () => {
    vi.stubEnv('SECRETS_VAULT_TRANSPORT', undefined);
    const nodeFetch = globalThis.fetch;
    const spy = vi.fn((input: RequestInfo | URL, init?: RequestInit) => nodeFetch(input, init));
    vi.stubGlobal('fetch', spy);
    expect(await sentThrough()).toBe('fetch');
    expect(spy).toHaveBeenCalledTimes(1);
  });

  it('keeps to node:http with SECRETS_VAULT_TRANSPORT=http, whatever globalThis.fetch is', async () => {
    vi.stubEnv('SECRETS_VAULT_TRANSPORT', 'http');
    const spy = vi.fn(globalThis.fetch);
    vi.stubGlobal('fetch', spy);
    expect(await sentThrough()).toBe('http');
    expect(spy).not.toHaveBeenCalled();
  });

  it('always sends through the caller’s fetch option', async () => {
    vi.stubEnv('SECRETS_VAULT_TRANSPORT', 'http');
    const nodeFetch = globalThis.fetch;
    const own = vi.fn((input: RequestInfo | URL, init?: RequestInit) => nodeFetch(input, init));
    expect(await sentThrough({ fetch: own })).toBe('fetch');
    expect(own).toHaveBeenCalledTimes(1);
  });

  it('refuses another value of SECRETS_VAULT_TRANSPORT at construction, naming it', () => {
    vi.stubEnv('SECRETS_VAULT_TRANSPORT', 'undici');
    expect(() => new SecretsVault({ baseUrl: 'https://vault.test', token: 'sv_token' })).toThrow(
      new SecretsVaultError('Invalid SECRETS_VAULT_TRANSPORT: must be fetch or http'),
    );
  });
});
