import { http } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { InternalServerError, SecretsVault, SecretsVaultError } from '../src/index.js';
import { BASE_URL, createClient, fail, ok, organization, route, server, TOKEN } from './helpers.js';

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
    expect(() => createClient({ maxRetries: Number.NaN })).toThrow(/maxRetries/);
    expect(() => createClient({ maxRetries: Number.NEGATIVE_INFINITY })).toThrow(/maxRetries/);
  });

  it('accepts any whole number of retries, and Infinity', () => {
    for (const maxRetries of [0, 10, 11, 1_000, Number.POSITIVE_INFINITY]) {
      expect(() => createClient({ maxRetries })).not.toThrow();
    }
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

describe('environment knobs', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  /** A client configured by the environment alone, and the attempts the service saw. */
  function fromEnvironment(env: Record<string, string>) {
    vi.stubEnv('SECRETS_VAULT_BASE_URL', BASE_URL);
    vi.stubEnv('SECRETS_VAULT_TOKEN', TOKEN);
    for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
    return new SecretsVault();
  }

  it('takes maxRetries from SECRETS_VAULT_MAX_RETRIES', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const seen = route('get', '/org', () => fail(503, 'unavailable'));
    const client = fromEnvironment({ SECRETS_VAULT_MAX_RETRIES: '4' });
    await expect(client.org.get()).rejects.toBeInstanceOf(InternalServerError);
    expect(seen).toHaveLength(5);
  });

  it('takes Infinity from SECRETS_VAULT_MAX_RETRIES', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const seen = route('get', '/org', (call) =>
      call < 30 ? fail(503, 'unavailable') : ok(organization()),
    );
    const client = fromEnvironment({ SECRETS_VAULT_MAX_RETRIES: 'Infinity' });
    await expect(client.org.get()).resolves.toEqual(organization());
    expect(seen).toHaveLength(31);
  });

  it('takes the attempt timeout from SECRETS_VAULT_TIMEOUT, in milliseconds or with a unit', async () => {
    route('get', '/org', async () => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      return ok(organization());
    });
    const inMilliseconds = fromEnvironment({
      SECRETS_VAULT_TIMEOUT: '50',
      SECRETS_VAULT_MAX_RETRIES: '0',
    });
    await expect(inMilliseconds.org.get()).rejects.toThrow(/timeout \(50 ms\)/);
    const withUnit = fromEnvironment({
      SECRETS_VAULT_TIMEOUT: '0.05s',
      SECRETS_VAULT_MAX_RETRIES: '0',
    });
    await expect(withUnit.org.get()).rejects.toThrow(/timeout \(50 ms\)/);
  });

  it.each([
    ['SECRETS_VAULT_MAX_RETRIES', ['-1', '1.5', 'three', '2 retries', '0x10', 'inf']],
    ['SECRETS_VAULT_TIMEOUT', ['0', '-5', '10 seconds', '1e3', 'Infinity', '3000000000']],
    ['SECRETS_VAULT_WAIT', ['-1', 'soon', '1d', '5 s']],
  ])('refuses a malformed %s at construction, naming it', (name, values) => {
    for (const value of values) {
      const error = constructionError(() => fromEnvironment({ [name]: value }));
      expect(error.message).toContain(name);
      expect(error.message).not.toContain(`'${value}'`);
    }
  });

  it('lets an option passed in code win over the environment, even a malformed one', async () => {
    const seen = route('get', '/org', () => fail(503, 'unavailable'));
    vi.stubEnv('SECRETS_VAULT_MAX_RETRIES', 'many');
    vi.stubEnv('SECRETS_VAULT_TIMEOUT', 'long');
    const client = new SecretsVault({
      baseUrl: BASE_URL,
      token: TOKEN,
      maxRetries: 0,
      timeout: 1_000,
    });
    await expect(client.org.get()).rejects.toBeInstanceOf(InternalServerError);
    expect(seen).toHaveLength(1);
  });
});
