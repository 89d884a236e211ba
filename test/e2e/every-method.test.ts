/**
 * Every SDK method against the stateful mock, as a user calls them, reading the state back
 * through other methods; typed errors as the mock produces them; pagination over hundreds of
 * items.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  ConflictError,
  IdempotencyKeyReuseError,
  InvalidCursorError,
  NotFoundError,
  PermissionDeniedError,
  RequestValidationError,
  SecretsVault,
  UnprocessableEntityError,
} from '../../src/index.js';
import { createVaultMock } from '../../src/mock/index.js';
import { rejectionOf } from '../rejection.js';
import { mockOptions, useMockTransport } from './mock-transport.js';

// setupServer in Node, setupWorker in Chromium (vitest.browser.config.ts swaps the module).
const mock = createVaultMock(mockOptions);
useMockTransport(mock.handlers);
beforeEach(() => mock.reset());

const as = (token: string) => new SecretsVault({ baseUrl: mock.baseUrl, token, maxRetries: 0 });
const owner = () => as(mock.principals.owner.token);

describe('vaults and vault members', () => {
  it('creates, reads, lists, updates and deletes a vault', async () => {
    const client = owner();
    const team = await client.teams.create({ name: 'Platform' });
    const vault = await client.vaults.create({
      name: 'Payments',
      team_id: team.id,
      icon_index: 4,
      color: '#0ea5e9',
    });
    expect(vault).toMatchObject({
      name: 'Payments',
      team_id: team.id,
      icon_index: 4,
      color: '#0ea5e9',
      role: 'admin',
    });
    expect(await client.vaults.get(vault.id)).toEqual(vault);
    expect((await client.vaults.list()).data).toEqual([vault]);

    const updated = await client.vaults.update(vault.id, { name: 'Billing', team_id: null });
    expect(updated).toMatchObject({ id: vault.id, name: 'Billing', team_id: null, icon_index: 4 });
    await expect(client.vaults.delete(vault.id)).resolves.toBeUndefined();
    expect(await rejectionOf(client.vaults.get(vault.id))).toBeInstanceOf(NotFoundError);
  });

  it('adds, lists, re-roles and removes vault members', async () => {
    const client = owner();
    const { member } = mock.principals;
    const vault = await client.vaults.create({ name: 'Shared' });
    const added = await client.vaults.members.create(vault.id, {
      user_id: member.userId ?? '',
      role: 'member',
    });
    expect(added).toMatchObject({
      vault_id: vault.id,
      role: 'member',
      user: { id: member.userId, email: member.email },
    });

    const members = await client.vaults.members.list(vault.id).toArray();
    expect(members.map((entry) => entry.role).sort()).toEqual(['admin', 'member']);

    expect(await client.vaults.members.update(vault.id, added.id, { role: 'editor' })).toEqual({
      id: added.id,
      vault_id: vault.id,
      role: 'editor',
    });
    expect((await as(member.token).vaults.get(vault.id)).role).toBe('editor');

    await client.vaults.members.delete(vault.id, added.id);
    expect(await rejectionOf(as(member.token).vaults.get(vault.id))).toBeInstanceOf(NotFoundError);
  });
});

describe('secrets', () => {
  it('creates, lists, updates, reads, lists values and archives secrets', async () => {
    const client = owner();
    const vault = await client.vaults.create({ name: 'App' });
    const db = await client.secrets.create(vault.id, {
      name: 'db',
      value: { user: 'app', password: 'pw-1' },
      type: 'login',
    });
    expect(db).toMatchObject({ vault_id: vault.id, name: 'db', type: 'login', is_archived: false });
    expect('value' in db).toBe(false);
    const api = await client.secrets.create(vault.id, { name: 'api', value: { key: 'k-1' } });

    expect((await client.secrets.list(vault.id).toArray()).map((secret) => secret.name)).toEqual([
      'api',
      'db',
    ]);
    const renamed = await client.secrets.update(db.id, {
      name: 'database',
      value: { password: 'pw-2' },
    });
    expect(renamed.name).toBe('database');
    expect((await client.secrets.getValue(db.id)).value).toEqual({ password: 'pw-2' });

    const values = await client.secrets.listValues(vault.id);
    expect(Object.fromEntries(values.map((secret) => [secret.name, secret.value]))).toEqual({
      database: { password: 'pw-2' },
      api: { key: 'k-1' },
    });

    await client.secrets.delete(api.id);
    expect((await client.secrets.list(vault.id).toArray()).map((secret) => secret.id)).toEqual([
      db.id,
    ]);
    expect((await client.secrets.listValues(vault.id)).map((secret) => secret.id)).toEqual([db.id]);
    expect(await rejectionOf(client.secrets.getValue(api.id))).toBeInstanceOf(NotFoundError);
  });
});

describe('teams and team members', () => {
  it('creates, reads, lists, updates and deletes a team, and manages its members', async () => {
    const client = owner();
    const team = await client.teams.create({ name: 'Platform' });
    expect(await client.teams.get(team.id)).toEqual(team);
    expect((await client.teams.update(team.id, { color: '#22C55E', icon_index: 9 })).color).toBe(
      '#22C55E',
    );
    expect((await client.teams.list()).data.map((entry) => entry.id)).toEqual([team.id]);

    const member = await client.teams.members.create(team.id, {
      user_id: mock.principals.colleague.userId ?? '',
    });
    expect(member).toMatchObject({
      team_id: team.id,
      user: { id: mock.principals.colleague.userId },
    });
    expect((await client.teams.members.list(team.id).toArray()).map((entry) => entry.id)).toEqual([
      member.id,
    ]);
    await client.teams.members.delete(team.id, member.id);
    expect(await client.teams.members.list(team.id).toArray()).toEqual([]);

    await client.teams.delete(team.id);
    expect(await rejectionOf(client.teams.get(team.id))).toBeInstanceOf(NotFoundError);
  });
});

describe('organization', () => {
  it('reads the org, lists and changes members, and transfers ownership', async () => {
    const client = owner();
    const { owner: ada, member: grace } = mock.principals;
    expect(await client.org.get()).toMatchObject({ id: ada.orgId, name: 'Acme' });
    const members = await client.org.members.list().toArray();
    expect(members.map((member) => member.email).sort()).toEqual([
      'ada@acme.test',
      'grace@acme.test',
      'ken@acme.test',
    ]);

    expect((await client.org.members.update(grace.memberId ?? '', { role: 'admin' })).role).toBe(
      'admin',
    );
    expect((await client.org.members.update(grace.memberId ?? '', { role: 'owner' })).role).toBe(
      'owner',
    );
    const after = await client.org.members.list().toArray();
    expect(after.find((member) => member.id === ada.memberId)?.role).toBe('admin');
  });

  it('removes a member', async () => {
    const client = owner();
    await client.org.members.delete(mock.principals.colleague.memberId ?? '');
    expect(await rejectionOf(as(mock.principals.colleague.token).org.get())).toBeInstanceOf(
      AuthenticationError,
    );
  });

  it('creates and lists invitations', async () => {
    const client = owner();
    const invitation = await client.org.invitations.create({
      email: 'linus@acme.test',
      role: 'member',
    });
    expect(invitation).toMatchObject({
      invitee_email: 'linus@acme.test',
      role: 'member',
      status: 'pending',
    });
    expect((await client.org.invitations.list()).data).toEqual([invitation]);
  });
});

describe('audit', () => {
  it('lists what the calls did, filtered by action and resource', async () => {
    const client = owner();
    const vault = await client.vaults.create({ name: 'Audited' });
    const secret = await client.secrets.create(vault.id, { name: 's', value: { a: 'b' } });
    await client.secrets.getValue(secret.id);

    const all = await client.audit.list().toArray();
    expect(all.slice(0, 3).map((entry) => entry.action)).toEqual([
      'vault.secret_value.read',
      'vault.secret.create',
      'org.vault.create',
    ]);
    const reads = await client.audit.list({ action: 'vault.secret_value.read' }).toArray();
    expect(reads).toHaveLength(1);
    expect(reads[0]).toMatchObject({
      resource: `secret:${secret.id}`,
      user_name: 'Ada Lovelace',
      success: true,
    });
    const onSecret = await client.audit.list({ resource: `secret:${secret.id}` }).toArray();
    expect(onSecret.map((entry) => entry.action)).toEqual([
      'vault.secret_value.read',
      'vault.secret.create',
    ]);
  });
});

describe('typed errors from the mock', () => {
  it('maps each refusal to its class, with a request id', async () => {
    const client = owner();
    const vault = await client.vaults.create({ name: 'v' });
    const cases: Array<[Promise<unknown>, new (...args: never[]) => Error, string]> = [
      [rejectionOf(client.vaults.get('missing')), NotFoundError, 'not_found'],
      [
        rejectionOf(as(mock.principals.outsider.token).vaults.get(vault.id)),
        NotFoundError,
        'not_found',
      ],
      [
        rejectionOf(as(mock.principals.member.token).teams.create({ name: 't' })),
        PermissionDeniedError,
        'forbidden',
      ],
      [rejectionOf(as('sv_not_a_token').org.get()), AuthenticationError, 'unauthorized'],
      [
        rejectionOf(client.vaults.create({ name: 'x'.repeat(101) })),
        UnprocessableEntityError,
        'validation_error',
      ],
      [
        rejectionOf(
          client.org.members.update(mock.principals.owner.memberId ?? '', { role: 'member' }),
        ),
        ConflictError,
        'conflict',
      ],
    ];
    for (const [rejection, ErrorClass, code] of cases) {
      const error = await rejection;
      expect(error).toBeInstanceOf(ErrorClass);
      expect((error as { code: string }).code).toBe(code);
      expect((error as { requestId: string }).requestId).toMatch(/^req_/);
    }
  });

  it('surfaces an expired cursor as InvalidCursorError', async () => {
    const client = owner();
    for (let index = 0; index < 3; index += 1) await client.teams.create({ name: `t${index}` });
    const page = await client.teams.list({ limit: 1 });
    mock.clock.advance(15 * 60_000 + 1_000);
    expect(await rejectionOf(page.getNextPage())).toBeInstanceOf(InvalidCursorError);
    expect(await rejectionOf(client.teams.list({ cursor: page.nextCursor ?? '' }))).toBeInstanceOf(
      InvalidCursorError,
    );
  });

  it('refuses a reused idempotency key with a different body', async () => {
    const client = owner();
    await client.teams.create({ name: 'a' }, { idempotencyKey: 'reuse' });
    expect(
      await rejectionOf(client.teams.create({ name: 'b' }, { idempotencyKey: 'reuse' })),
    ).toBeInstanceOf(IdempotencyKeyReuseError);
  });

  it('sends nothing for input the client refuses', async () => {
    const client = owner();
    expect(await rejectionOf(client.vaults.create({ name: 'v', color: 'red' }))).toBeInstanceOf(
      RequestValidationError,
    );
    expect(await client.vaults.list().toArray()).toEqual([]);
  });
});

describe('idempotency and retries end to end', () => {
  it('replays a create with the same key and body', async () => {
    const client = owner();
    const first = await client.vaults
      .create({ name: 'v' }, { idempotencyKey: 'k1' })
      .withResponse();
    const second = await client.vaults
      .create({ name: 'v' }, { idempotencyKey: 'k1' })
      .withResponse();
    expect([first.replayed, second.replayed]).toEqual([false, true]);
    expect(second.data).toEqual(first.data);
    expect(await client.vaults.list().toArray()).toHaveLength(1);
  });

  it('recovers from a response lost after the commit without a duplicate', async () => {
    const client = new SecretsVault({
      baseUrl: mock.baseUrl,
      token: mock.principals.owner.token,
      maxRetries: 2,
    });
    mock.faults.inject(
      { method: 'POST', path: '/v1/vaults', times: 1 },
      { kind: 'network-error-after-commit' },
    );
    const { data, replayed } = await client.vaults.create({ name: 'once' }).withResponse();
    expect(replayed).toBe(true);
    expect((await client.vaults.list().toArray()).map((vault) => vault.id)).toEqual([data.id]);
  });

  it('retries a 503 and a 429 transparently', async () => {
    const client = new SecretsVault({
      baseUrl: mock.baseUrl,
      token: mock.principals.owner.token,
      maxRetries: 2,
    });
    const vault = await client.vaults.create({ name: 'v' });
    mock.faults.inject(
      { method: 'GET', path: '/v1/vaults/:vaultId', times: 1 },
      { kind: 'status', status: 503, retryAfter: 0 },
    );
    mock.faults.inject(
      { method: 'GET', path: '/v1/vaults/:vaultId', times: 1 },
      { kind: 'status', status: 429, retryAfter: 0 },
    );
    expect((await client.vaults.get(vault.id)).id).toBe(vault.id);
  });
});

describe('pagination over hundreds of items', () => {
  it('walks 250 secrets in pages of 100, every item once, newest first', async () => {
    const client = owner();
    const vault = await client.vaults.create({ name: 'big' });
    const created: string[] = [];
    for (let batch = 0; batch < 10; batch += 1) {
      const secrets = await Promise.all(
        Array.from({ length: 25 }, (_, index) =>
          client.secrets.create(vault.id, {
            name: `s${batch * 25 + index}`,
            value: { n: String(batch * 25 + index) },
          }),
        ),
      );
      created.push(...secrets.map((secret) => secret.id));
      mock.clock.advance(1_000);
    }

    const ids: string[] = [];
    for await (const secret of client.secrets.list(vault.id, { limit: 100 })) ids.push(secret.id);
    expect(ids).toHaveLength(250);
    expect(new Set(ids)).toEqual(new Set(created));
    expect(ids.slice(0, 25).sort()).toEqual(created.slice(225).sort());

    const sizes: number[] = [];
    for await (const page of client.secrets.list(vault.id, { limit: 100 }).pages())
      sizes.push(page.data.length);
    expect(sizes).toEqual([100, 100, 50]);
    expect(await client.secrets.list(vault.id, { limit: 100 }).toArray({ max: 120 })).toHaveLength(
      120,
    );

    const first = await client.secrets.list(vault.id, { limit: 100 });
    expect(first.nextCursor).not.toBeNull();
    expect((await first.getNextPage()).data).toHaveLength(100);

    const values = await client.secrets.listValues(vault.id);
    expect(values).toHaveLength(250);
    expect(values.every((secret) => secret.value.n === secret.name.slice(1))).toBe(true);
  });

  it('walks a long audit log and stops when the loop breaks', async () => {
    const client = owner();
    for (let index = 0; index < 120; index += 1) await client.org.get();
    let seen = 0;
    for await (const entry of client.audit.list({ limit: 7 })) {
      expect(entry.action).toBe('org.organization.read');
      seen += 1;
      if (seen === 30) break;
    }
    expect(seen).toBe(30);
    expect(
      await client.audit.list({ limit: 100, action: 'org.organization.read' }).toArray(),
    ).toHaveLength(120);
  });
});
