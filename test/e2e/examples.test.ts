/**
 * Runs every example in examples/ against the mock served over HTTP on loopback, as a user
 * would run them, and checks what they print.
 */
import { format } from 'node:util';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { SecretsVault } from '../../src/index.js';
import { createVaultMock } from '../../src/mock/index.js';
import { type ServedVaultMock, serveVaultMock } from '../../src/mock/node.js';

const mock = createVaultMock();
let served: ServedVaultMock;

beforeAll(async () => {
  served = await serveVaultMock(mock);
});
afterAll(async () => {
  await served.close();
});
beforeEach(() => {
  mock.reset();
  vi.resetModules();
  vi.stubEnv('SECRETS_VAULT_BASE_URL', served.url);
  vi.stubEnv('SECRETS_VAULT_TOKEN', mock.principals.owner.token);
});
afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  process.exitCode = undefined;
});

/** Runs an example module once and returns what it printed. */
async function runExample(name: string): Promise<{ out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => out.push(format(...parts)));
  vi.spyOn(console, 'error').mockImplementation((...parts: unknown[]) =>
    err.push(format(...parts)),
  );
  await import(`../../examples/${name}.ts`);
  return { out: out.join('\n'), err: err.join('\n') };
}

describe('examples', () => {
  it('startup-job loads typed config, prints it redacted, and names its variables', async () => {
    const operator = new SecretsVault({ baseUrl: served.url, token: mock.principals.owner.token });
    const vault = await operator.vaults.create({ name: 'checkout' });
    await operator.secrets.create(vault.id, {
      name: 'database',
      value: { host: 'db.internal', username: 'checkout', password: 'pa55-word-xyz' },
    });
    await operator.secrets.create(vault.id, {
      name: 'stripe',
      type: 'api_key',
      value: { api_key: 'sk_demo_xyz' },
    });
    vi.stubEnv('VAULT_ID', vault.id);
    vi.stubEnv('SECRETS_VAULT_TOKEN', mock.principals.adminKey.token);

    const { out, err } = await runExample('startup-job');
    expect(err).toBe('');
    expect(process.exitCode ?? 0).toBe(0);
    expect(out).toContain(`Loaded config from vault ${vault.id}:`);
    expect(out).toContain("password: '[REDACTED]'");
    expect(out).toContain('Database user: checkout@db.internal');
    expect(out).toContain(
      'Variables for child processes: CHECKOUT_DATABASE_HOST, CHECKOUT_DATABASE_USERNAME, CHECKOUT_DATABASE_PASSWORD, CHECKOUT_STRIPE_API_KEY',
    );
    expect(out).not.toContain('pa55-word-xyz');
    expect(out).not.toContain('sk_demo_xyz');
  });

  it('startup-job exits 1 listing what the vault lacks when the secrets do not fit', async () => {
    const operator = new SecretsVault({ baseUrl: served.url, token: mock.principals.owner.token });
    const vault = await operator.vaults.create({ name: 'incomplete' });
    await operator.secrets.create(vault.id, { name: 'database', value: { password: 'short' } });
    vi.stubEnv('VAULT_ID', vault.id);
    const { err } = await runExample('startup-job');
    expect(process.exitCode).toBe(1);
    expect(err).toContain(
      'Secrets do not fit the config: database.host, database.username, database.password, stripe',
    );
    expect(err).not.toContain('short');
  });

  it('startup-job exits 1 with the error class and request id when the vault is unknown', async () => {
    vi.stubEnv('VAULT_ID', '00000000-0000-4000-8000-000000000000');
    const { err } = await runExample('startup-job');
    expect(process.exitCode).toBe(1);
    expect(err).toMatch(/NotFoundError 404 \(request req_[0-9a-f-]{36}\)/);
  });

  it('startup-job exits 1 naming VAULT_ID when it is not set', async () => {
    vi.stubEnv('VAULT_ID', '');
    const { err } = await runExample('startup-job');
    expect(process.exitCode).toBe(1);
    expect(err).toContain('VAULT_ID');
  });

  it('pagination walks every vault and the audit log page by page', async () => {
    const operator = new SecretsVault({ baseUrl: served.url, token: mock.principals.owner.token });
    for (let index = 0; index < 3; index += 1)
      await operator.vaults.create({ name: `vault ${index}` });
    const { out } = await runExample('pagination');
    expect(out).toContain('admin of vault 2');
    expect(out).toContain('3 vaults');
    expect(out).toMatch(/audit page: \d+ entries, more: false/);
    expect(out).toMatch(/Ada Lovelace org\.vault\.create/);
  });

  it('idempotent-create creates once and replays on the second run', async () => {
    const { out } = await runExample('idempotent-create');
    expect(out).toMatch(/run 1: vault \S+ \(created\)/);
    expect(out).toMatch(/run 2: vault \S+ \(replayed, not created again\)/);
    expect(out).toContain('vaults named Payments: 1');
  });

  it('error-handling maps a missing secret to undefined and shows a refused limit', async () => {
    const { out } = await runExample('error-handling');
    expect(out).toContain('missing secret: undefined');
    expect(out).toContain('refused: limit must be an integer from 1 to 100');
  });
});
