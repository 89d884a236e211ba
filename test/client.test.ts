import { http } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SecretsVault, SecretsVaultError } from '../src/index.js';
import { BASE_URL, createClient, ok, organization, route, server, TOKEN } from './helpers.js';

function constructionError(build: () => unknown): SecretsVaultError {
  try {
    build();
  } catch (error) {
    if (error instanceof SecretsVaultError) return error;
    throw error;
  }
  throw new Error('expected the constructor to throw');
}

describe('new SecretsVault()', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('reads SECRETS_VAULT_BASE_URL and SECRETS_VAULT_TOKEN when no options are given', async () => {
    vi.stubEnv('SECRETS_VAULT_BASE_URL', BASE_URL);
    vi.stubEnv('SECRETS_VAULT_TOKEN', TOKEN);
    const seen = route('get', '/org', () => ok(organization()));
    await expect(new SecretsVault().org.get()).resolves.toEqual(organization());
    expect(seen[0]?.headers.get('authorization')).toBe(`Bearer ${TOKEN}`);
  });

  it('prefers explicit options over the environment', async () => {
    vi.stubEnv('SECRETS_VAULT_BASE_URL', 'https://elsewhere.invalid');
    vi.stubEnv('SECRETS_VAULT_TOKEN', 'env-token');
    const seen = route('get', '/org', () => ok(organization()));
    await new SecretsVault({ baseUrl: BASE_URL, token: TOKEN }).org.get();
    expect(seen[0]?.headers.get('authorization')).toBe(`Bearer ${TOKEN}`);
  });

  it('names the option and the environment variable when the token is missing', () => {
    vi.stubEnv('SECRETS_VAULT_TOKEN', '');
    const error = constructionError(() => new SecretsVault({ baseUrl: BASE_URL }));
    expect(error.message).toContain('`token`');
    expect(error.message).toContain('SECRETS_VAULT_TOKEN');
  });

  it('names the option and the environment variable when the base URL is missing', () => {
    vi.stubEnv('SECRETS_VAULT_BASE_URL', '');
    const error = constructionError(() => new SecretsVault({ token: TOKEN }));
    expect(error.message).toContain('`baseUrl`');
    expect(error.message).toContain('SECRETS_VAULT_BASE_URL');
  });

  it('refuses a base URL that is not absolute http(s)', () => {
    for (const baseUrl of [
      'vault.example.com',
      'ftp://vault.example.com',
      '/api',
      'https://x/?a=1',
    ]) {
      expect(() => new SecretsVault({ baseUrl, token: TOKEN })).toThrow(SecretsVaultError);
    }
  });

  it.each([
    ['https://vault.example.com/v1', 'https://vault.example.com'],
    ['https://gateway.test/secrets-api/v1/', 'https://gateway.test/secrets-api'],
  ])(
    'refuses the base URL %s, which already ends with /v1, saying what to use',
    (baseUrl, fixed) => {
      const error = constructionError(() => new SecretsVault({ baseUrl, token: TOKEN }));
      expect(error.message).toContain('must not end with /v1');
      expect(error.message).toContain(`use ${fixed}`);
    },
  );

  it('refuses a token that cannot be a header value, without quoting it', () => {
    for (const token of ['line\nbreak-token', 'has spaces in it', 'tökén-unicode']) {
      const error = constructionError(() => new SecretsVault({ baseUrl: BASE_URL, token }));
      expect(error.message).toContain('Invalid token');
      expect(error.message).not.toContain(token);
    }
  });

  it('refuses out-of-range timeout and maxRetries', () => {
    expect(() => createClient({ timeout: 0 })).toThrow(/timeout/);
    expect(() => createClient({ timeout: 2 ** 31 })).toThrow(/timeout/);
    expect(() => createClient({ maxRetries: -1 })).toThrow(/maxRetries/);
    expect(() => createClient({ maxRetries: 1.5 })).toThrow(/maxRetries/);
  });

  it('joins paths under /v1 of a base URL that has a path of its own', async () => {
    const seen: string[] = [];
    server.use(
      http.get('https://gateway.test/secrets-api/v1/org', ({ request }) => {
        seen.push(new URL(request.url).pathname);
        return ok(organization());
      }),
    );
    for (const baseUrl of [
      'https://gateway.test/secrets-api',
      'https://gateway.test/secrets-api/',
    ]) {
      await new SecretsVault({ baseUrl, token: TOKEN }).org.get();
    }
    expect(seen).toEqual(['/secrets-api/v1/org', '/secrets-api/v1/org']);
  });

  it('sends through a custom fetch', async () => {
    const calls: string[] = [];
    const client = createClient({
      fetch: async (input, init) => {
        calls.push(input instanceof Request ? input.url : String(input));
        return fetch(input, init);
      },
    });
    route('get', '/org', () => ok(organization()));
    await client.org.get();
    expect(calls).toEqual([`${BASE_URL}/v1/org`]);
  });

  it('adds client and per-call headers but never lets them replace Authorization', async () => {
    const seen = route('get', '/org', () => ok(organization()));
    const client = createClient({
      headers: { 'X-Team': 'payments', Authorization: 'Bearer other' },
    });
    await client.org.get({ headers: { 'X-Trace': 'abc', authorization: 'Bearer other' } });
    expect(seen[0]?.headers.get('x-team')).toBe('payments');
    expect(seen[0]?.headers.get('x-trace')).toBe('abc');
    expect(seen[0]?.headers.get('authorization')).toBe(`Bearer ${TOKEN}`);
  });

  it('rejects an out-of-range per-call timeout before sending', async () => {
    const seen = route('get', '/org', () => ok(organization()));
    await expect(createClient().org.get({ timeout: -5 })).rejects.toThrow(/timeout/);
    expect(seen).toHaveLength(0);
  });
});
