/**
 * A namespace built on its own from its sub-path (`new Vaults(options)`), as an app that uses
 * nothing else does to keep the rest of the client out of its bundle: the same calls, checks and
 * errors as through `new SecretsVault()`, against the stateful mock.
 */

import {
  NotFoundError,
  RequestValidationError,
  Vaults as RootVaults,
  SecretsVault,
  SecretsVaultError,
} from '@secrets-vault/sdk';
import { Audit } from '@secrets-vault/sdk/audit';
import { Org } from '@secrets-vault/sdk/org';
import { Secrets } from '@secrets-vault/sdk/secrets';
import { Teams } from '@secrets-vault/sdk/teams';
import { Vaults } from '@secrets-vault/sdk/vaults';
import { beforeEach, describe, expect, it } from 'vitest';
import { createVaultMock } from '../../src/mock/index.js';
import { rejectionOf } from '../rejection.js';
import { mockOptions, useMockTransport } from './mock-transport.js';

const mock = createVaultMock(mockOptions);
useMockTransport(mock.handlers);
beforeEach(() => mock.reset());

const options = () => ({ baseUrl: mock.baseUrl, token: mock.principals.owner.token });

describe('a namespace on its own', () => {
  it('is the class the root exports', () => {
    expect(Vaults).toBe(RootVaults);
  });

  it('makes every call of its namespace, members included, against the service', async () => {
    const vaults = new Vaults(options());
    const created = await vaults.create({ name: 'alone' });
    expect(await vaults.get(created.id)).toEqual(created);
    const updated = await vaults.update(created.id, { color: '#3366FF' });
    expect(updated.color).toBe('#3366FF');
    const listed = await vaults.list().toArray();
    expect(listed.map((vault) => vault.id)).toContain(created.id);
    const members = await vaults.members.list(created.id).toArray();
    expect(members.length).toBeGreaterThan(0);
    await vaults.delete(created.id);
    expect(await rejectionOf(vaults.get(created.id))).toBeInstanceOf(NotFoundError);
  });

  it('sees what a whole client sees, each namespace with its own settings', async () => {
    const client = new SecretsVault(options());
    const vault = await client.vaults.create({ name: 'shared' });
    const secrets = new Secrets({ ...options(), maxRetries: 0 });
    await secrets.create(vault.id, { name: 'db', value: { password: 'alone-pw' } });
    const [secret] = await client.secrets.listValues(vault.id);
    expect(secret?.value).toEqual({ password: 'alone-pw' });
    expect((await secrets.load(vault.id)).db?.password).toBe('alone-pw');
    expect((await new Teams(options()).list().toArray()).length).toBeGreaterThanOrEqual(0);
    expect((await new Org(options()).get()).id).toBe((await client.org.get()).id);
    const entries = await new Audit(options()).list({ limit: 5 }).toArray({ max: 5 });
    expect(entries.length).toBeGreaterThan(0);
  });

  it('checks its options at construction and its input before sending, as the client does', async () => {
    let missing: unknown;
    try {
      new Vaults({ baseUrl: mock.baseUrl, token: '' });
    } catch (error) {
      missing = error;
    }
    expect(missing).toBeInstanceOf(SecretsVaultError);
    expect(String(missing)).toContain('SECRETS_VAULT_TOKEN');
    const error = await rejectionOf(new Vaults(options()).create({ name: 'x', color: 'blue' }));
    expect(error).toBeInstanceOf(RequestValidationError);
    expect(String(error)).toContain('color: must be a colour in the form #RRGGBB');
  });
});
