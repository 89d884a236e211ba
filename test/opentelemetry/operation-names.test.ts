/**
 * Every public method reports its operation under the name the user calls it by: the namespace
 * path and the method (`vaults.members.create`). The methods are found by walking the client, so
 * a method added without a name (or under another one) fails here.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { Telemetry } from '../../src/core/telemetry.js';
import { SecretsVault } from '../../src/index.js';
import { createVaultMock } from '../../src/mock/index.js';
import { APIResource } from '../../src/resources/shared.js';
import { mockOptions, useMockTransport } from '../e2e/mock-transport.js';

const mock = createVaultMock(mockOptions);
useMockTransport(mock.handlers);
beforeEach(() => mock.reset());

/** A telemetry that keeps the name of every operation started, and sends nothing. */
function recordingTelemetry(): { telemetry: Telemetry; names: string[] } {
  const names: string[] = [];
  const telemetry: Telemetry = {
    startOperation(operation) {
      names.push(operation.name);
      return {
        startAttempt: () => ({ headers: {}, run: (send) => send(), end: () => undefined }),
        end: () => undefined,
      };
    },
  };
  return { telemetry, names };
}

/** The call path of every method of the client: `vaults.get`, `vaults.members.create`, … */
function publicMethods(namespace: object, prefix: string): string[] {
  const paths: string[] = [];
  for (const name of Object.getOwnPropertyNames(Object.getPrototypeOf(namespace))) {
    if (name === 'constructor') continue;
    if (typeof (namespace as Record<string, unknown>)[name] === 'function') {
      paths.push(`${prefix}${name}`);
    }
  }
  for (const [name, value] of Object.entries(namespace)) {
    if (value instanceof APIResource) paths.push(...publicMethods(value, `${prefix}${name}.`));
  }
  return paths;
}

const owner = () =>
  new SecretsVault({ baseUrl: mock.baseUrl, token: mock.principals.owner.token, maxRetries: 0 });

/** What each call needs, made through the client before the call under test. */
async function fixtures() {
  const client = owner();
  const { colleague } = mock.principals;
  const vault = await client.vaults.create({ name: 'Payments' });
  const secret = await client.secrets.create(vault.id, {
    name: 'database',
    value: { password: 'operation-names-only' },
  });
  const vaultMember = await client.vaults.members.create(vault.id, {
    user_id: colleague.userId ?? '',
    role: 'member',
  });
  const team = await client.teams.create({ name: 'Platform' });
  const teamMember = await client.teams.members.create(team.id, {
    user_id: colleague.userId ?? '',
  });
  return { vault, secret, vaultMember, team, teamMember, orgMemberId: colleague.memberId ?? '' };
}
type Fixtures = Awaited<ReturnType<typeof fixtures>>;

/** One call of each public method, keyed by its call path. */
const calls: Record<string, (client: SecretsVault, made: Fixtures) => Promise<unknown>> = {
  'vaults.list': (client) => client.vaults.list(),
  'vaults.create': (client) => client.vaults.create({ name: 'Billing' }),
  'vaults.get': (client, { vault }) => client.vaults.get(vault.id),
  'vaults.update': (client, { vault }) => client.vaults.update(vault.id, { name: 'Billing' }),
  'vaults.delete': (client, { vault }) => client.vaults.delete(vault.id),
  'vaults.members.list': (client, { vault }) => client.vaults.members.list(vault.id),
  'vaults.members.create': (client, { vault }) =>
    client.vaults.members.create(vault.id, {
      user_id: mock.principals.member.userId ?? '',
      role: 'editor',
    }),
  'vaults.members.update': (client, { vault, vaultMember }) =>
    client.vaults.members.update(vault.id, vaultMember.id, { role: 'admin' }),
  'vaults.members.delete': (client, { vault, vaultMember }) =>
    client.vaults.members.delete(vault.id, vaultMember.id),
  'secrets.list': (client, { vault }) => client.secrets.list(vault.id),
  'secrets.create': (client, { vault }) =>
    client.secrets.create(vault.id, { name: 'stripe', value: { api_key: 'sk_test_only' } }),
  'secrets.update': (client, { secret }) => client.secrets.update(secret.id, { name: 'db' }),
  'secrets.delete': (client, { secret }) => client.secrets.delete(secret.id),
  'secrets.getValue': (client, { secret }) => client.secrets.getValue(secret.id),
  'secrets.listValues': (client, { vault }) => client.secrets.listValues(vault.id),
  'secrets.load': (client, { vault }) => client.secrets.load(vault.id),
  'secrets.resolveReferences': (client, { vault }) =>
    client.secrets.resolveReferences({
      DATABASE_PASSWORD: `vault://${vault.id}/database/password`,
    }),
  'teams.list': (client) => client.teams.list(),
  'teams.create': (client) => client.teams.create({ name: 'Data' }),
  'teams.get': (client, { team }) => client.teams.get(team.id),
  'teams.update': (client, { team }) => client.teams.update(team.id, { name: 'Data' }),
  'teams.delete': (client, { team }) => client.teams.delete(team.id),
  'teams.members.list': (client, { team }) => client.teams.members.list(team.id),
  'teams.members.create': (client, { team }) =>
    client.teams.members.create(team.id, { user_id: mock.principals.member.userId ?? '' }),
  'teams.members.delete': (client, { team, teamMember }) =>
    client.teams.members.delete(team.id, teamMember.id),
  'org.get': (client) => client.org.get(),
  'org.members.list': (client) => client.org.members.list(),
  'org.members.update': (client, { orgMemberId }) =>
    client.org.members.update(orgMemberId, { role: 'admin' }),
  'org.members.delete': (client, { orgMemberId }) => client.org.members.delete(orgMemberId),
  'org.invitations.list': (client) => client.org.invitations.list(),
  'org.invitations.create': (client) =>
    client.org.invitations.create({ email: 'ada@example.com', role: 'member' }),
  'audit.list': (client) => client.audit.list(),
};

describe('operation names', () => {
  it('has a call below for every public method of the client', () => {
    expect(publicMethods(owner(), '').sort()).toEqual(Object.keys(calls).sort());
  });

  for (const [path, call] of Object.entries(calls)) {
    it(`reports ${path} as one operation named "${path}"`, async () => {
      const made = await fixtures();
      const { telemetry, names } = recordingTelemetry();
      const client = new SecretsVault({
        baseUrl: mock.baseUrl,
        token: mock.principals.owner.token,
        maxRetries: 0,
        telemetry,
      });
      await call(client, made);
      expect(names).toEqual([path]);
    });
  }
});
