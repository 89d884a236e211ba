import { NotFoundError, PermissionDeniedError, SecretsVault } from '@secrets-vault/sdk';
import { createVaultMock } from '@secrets-vault/sdk/mock';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

// Your code under test: reads a service's config from a vault.
async function loadConfig(client: SecretsVault, vaultId: string) {
  const secrets = await client.secrets.listValues(vaultId);
  return Object.fromEntries(secrets.map((secret) => [secret.name, secret.value]));
}

const mock = createVaultMock();
const server = setupServer(...mock.handlers);

beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterEach(() => mock.reset()); // every test starts from the same seeded state
afterAll(() => server.close());

const clientFor = (token: string) =>
  new SecretsVault({ baseUrl: mock.baseUrl, token, maxRetries: 0 });

describe('loadConfig', () => {
  it('returns every secret of the vault by name', async () => {
    const owner = clientFor(mock.principals.owner.token);
    const vault = await owner.vaults.create({ name: 'checkout' });
    await owner.secrets.create(vault.id, { name: 'db', value: { password: 'test-only' } });

    await expect(loadConfig(owner, vault.id)).resolves.toEqual({ db: { password: 'test-only' } });
  });

  it('fails with NotFoundError for a user of another organization', async () => {
    const owner = clientFor(mock.principals.owner.token);
    const vault = await owner.vaults.create({ name: 'checkout' });

    const outsider = clientFor(mock.principals.outsider.token);
    await expect(loadConfig(outsider, vault.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('surfaces a forbidden write as PermissionDeniedError', async () => {
    const member = clientFor(mock.principals.member.token);
    await expect(member.teams.create({ name: 'platform' })).rejects.toBeInstanceOf(
      PermissionDeniedError,
    );
  });

  it('survives a dropped connection after the server committed a create', async () => {
    const owner = new SecretsVault({ baseUrl: mock.baseUrl, token: mock.principals.owner.token });
    mock.faults.inject(
      { method: 'POST', path: '/v1/vaults', times: 1 },
      { kind: 'network-error-after-commit' },
    );

    await owner.vaults.create({ name: 'checkout' }); // retried with the same Idempotency-Key

    expect(await owner.vaults.list().toArray()).toHaveLength(1);
  });
});
