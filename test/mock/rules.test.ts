/**
 * The mock against the rules of api-contract.md §2, §3 and §5 and of contract-decisions.md:
 * the role tables, ownership transfer and the last owner, invitations, soft delete and expiry,
 * cascades, and the audit log. Real `fetch` only.
 */
import { describe, expect, it } from 'vitest';
import { api, create, data, useMock } from './api.js';

const mock = useMock();

interface Vault {
  id: string;
  role: string;
  team_id: string | null;
  icon_index: number;
  color: string;
  name: string;
}
interface Member {
  id: string;
  role: string;
  user: { id: string };
  email?: string;
}
interface Secret {
  id: string;
  name: string;
  type: string;
  expired_at: string | null;
  delete_after_expired: boolean;
  is_archived: boolean;
  value?: Record<string, string>;
}
interface AuditEntry {
  action: string;
  resource: string;
  type: string;
  success: boolean;
  user_name: string;
  ip_address: string;
  time: string;
}

/** A vault owned by Ada with Grace as `member` and Ken as `editor`. */
async function sharedVault() {
  const { member, colleague } = mock.principals;
  const vaultId = await create(mock, '/v1/vaults', { name: 'shared' });
  await create(mock, `/v1/vaults/${vaultId}/members`, { user_id: member.userId, role: 'member' });
  await create(mock, `/v1/vaults/${vaultId}/members`, {
    user_id: colleague.userId,
    role: 'editor',
  });
  const secretId = await create(mock, `/v1/vaults/${vaultId}/secrets`, {
    name: 's',
    value: { k: 'v' },
  });
  return { vaultId, secretId };
}

const statusOf = async (token: string, method: string, path: string, body?: unknown) =>
  (await api(mock, method, path, { token, ...(body === undefined ? {} : { body }) })).status;

describe('vault roles (decisions: member < editor < admin)', () => {
  it('lets a vault member read, but not write secrets or manage the vault', async () => {
    const { vaultId, secretId } = await sharedVault();
    const token = mock.principals.member.token;
    expect(await statusOf(token, 'GET', `/v1/vaults/${vaultId}`)).toBe(200);
    expect(await statusOf(token, 'GET', `/v1/vaults/${vaultId}/secrets`)).toBe(200);
    expect(await statusOf(token, 'GET', `/v1/secrets/${secretId}/value`)).toBe(200);
    expect(await statusOf(token, 'GET', `/v1/vaults/${vaultId}/secrets/values`)).toBe(200);
    expect(await statusOf(token, 'GET', `/v1/vaults/${vaultId}/members`)).toBe(200);
    expect(
      await statusOf(token, 'POST', `/v1/vaults/${vaultId}/secrets`, { name: 'x', value: {} }),
    ).toBe(403);
    expect(await statusOf(token, 'PATCH', `/v1/secrets/${secretId}`, { name: 'x' })).toBe(403);
    expect(await statusOf(token, 'DELETE', `/v1/secrets/${secretId}`)).toBe(403);
    expect(await statusOf(token, 'PATCH', `/v1/vaults/${vaultId}`, { name: 'x' })).toBe(403);
  });

  it('lets an editor write secrets but not manage the vault or its members', async () => {
    const { vaultId, secretId } = await sharedVault();
    const token = mock.principals.colleague.token;
    expect(
      await statusOf(token, 'POST', `/v1/vaults/${vaultId}/secrets`, {
        name: 'x',
        value: { a: 'b' },
      }),
    ).toBe(201);
    expect(await statusOf(token, 'PATCH', `/v1/secrets/${secretId}`, { name: 'renamed' })).toBe(
      200,
    );
    expect(await statusOf(token, 'PATCH', `/v1/vaults/${vaultId}`, { name: 'x' })).toBe(403);
    expect(await statusOf(token, 'DELETE', `/v1/vaults/${vaultId}`)).toBe(403);
    expect(
      await statusOf(token, 'POST', `/v1/vaults/${vaultId}/members`, {
        user_id: mock.principals.owner.userId,
        role: 'member',
      }),
    ).toBe(403);
    expect(await statusOf(token, 'DELETE', `/v1/secrets/${secretId}`)).toBe(204);
  });

  it('lets a vault admin manage the vault and its members', async () => {
    const { vaultId } = await sharedVault();
    const members = data<Member[]>(await api(mock, 'GET', `/v1/vaults/${vaultId}/members`));
    const grace = members.find((member) => member.user.id === mock.principals.member.userId);
    const changed = await api(mock, 'PATCH', `/v1/vaults/${vaultId}/members/${grace?.id}`, {
      body: { role: 'admin' },
    });
    expect(changed.status).toBe(200);
    expect(data(changed)).toEqual({ id: grace?.id, vault_id: vaultId, role: 'admin' });
    const token = mock.principals.member.token;
    expect(data<Vault>(await api(mock, 'GET', `/v1/vaults/${vaultId}`, { token })).role).toBe(
      'admin',
    );
    expect(await statusOf(token, 'PATCH', `/v1/vaults/${vaultId}`, { name: 'by grace' })).toBe(200);
    expect(await statusOf(token, 'DELETE', `/v1/vaults/${vaultId}/members/${grace?.id}`)).toBe(204);
  });

  it("reports the caller's own role on a vault; org owners and admins see every vault as admin", async () => {
    const { vaultId } = await sharedVault();
    const roleOf = async (token: string) =>
      data<Vault>(await api(mock, 'GET', `/v1/vaults/${vaultId}`, { token })).role;
    const { owner, adminKey, member, colleague } = mock.principals;
    expect(await roleOf(owner.token)).toBe('admin');
    expect(await roleOf(adminKey.token)).toBe('admin');
    expect(await roleOf(member.token)).toBe('member');
    expect(await roleOf(colleague.token)).toBe('editor');
  });

  it('hides a vault from a member without a role on it: absent from the list, 404 on get', async () => {
    const vaultId = await create(mock, '/v1/vaults', { name: 'private' });
    const token = mock.principals.member.token;
    expect(data<Vault[]>(await api(mock, 'GET', '/v1/vaults', { token }))).toEqual([]);
    expect(await statusOf(token, 'GET', `/v1/vaults/${vaultId}`)).toBe(404);
  });

  it('makes the creator of a vault its admin member', async () => {
    const created = await api(mock, 'POST', '/v1/vaults', {
      body: { name: 'mine' },
      token: mock.principals.member.token,
    });
    const vault = data<Vault>(created);
    expect(vault.role).toBe('admin');
    const members = data<Member[]>(await api(mock, 'GET', `/v1/vaults/${vault.id}/members`));
    expect(members.map((member) => [member.user.id, member.role])).toEqual([
      [mock.principals.member.userId, 'admin'],
    ]);
  });

  it('refuses a role outside admin, editor, member with 422', async () => {
    const vaultId = await create(mock, '/v1/vaults', { name: 'v' });
    const answer = await api(mock, 'POST', `/v1/vaults/${vaultId}/members`, {
      body: { user_id: mock.principals.member.userId, role: 'owner' },
    });
    expect([answer.status, answer.body?.errorCode]).toEqual([422, 'validation_error']);
  });
});

describe('organization roles (decisions: member < admin < owner)', () => {
  it('lets a member read the org, its members and teams, and create a vault', async () => {
    const teamId = await create(mock, '/v1/teams', { name: 't' });
    const token = mock.principals.member.token;
    for (const path of [
      '/v1/org',
      '/v1/org/members',
      '/v1/teams',
      `/v1/teams/${teamId}`,
      `/v1/teams/${teamId}/members`,
    ]) {
      expect(await statusOf(token, 'GET', path), path).toBe(200);
    }
    expect(await statusOf(token, 'POST', '/v1/vaults', { name: 'v' })).toBe(201);
  });

  it('keeps team management, invitations, member changes and the audit log to admins', async () => {
    const teamId = await create(mock, '/v1/teams', { name: 't' });
    const { member, colleague, adminKey } = mock.principals;
    const attempts: Array<[string, string, unknown?]> = [
      ['POST', '/v1/teams', { name: 'x' }],
      ['PATCH', `/v1/teams/${teamId}`, { name: 'x' }],
      ['POST', `/v1/teams/${teamId}/members`, { user_id: colleague.userId }],
      ['GET', '/v1/org/invitations'],
      ['POST', '/v1/org/invitations', { email: 'a@acme.test', role: 'member' }],
      ['PATCH', `/v1/org/members/${colleague.memberId}`, { role: 'admin' }],
      ['DELETE', `/v1/org/members/${colleague.memberId}`],
      ['GET', '/v1/audit'],
      ['DELETE', `/v1/teams/${teamId}`],
    ];
    for (const [method, path, body] of attempts) {
      const answer = await api(mock, method, path, {
        token: member.token,
        ...(body === undefined ? {} : { body }),
      });
      expect([answer.status, answer.body?.errorCode], `${method} ${path}`).toEqual([
        403,
        'forbidden',
      ]);
    }
    for (const [method, path, body] of attempts) {
      const status = await statusOf(adminKey.token, method, path, body);
      expect(status, `${method} ${path}`).toBeLessThan(300);
    }
  });

  it('lets nobody grant a role above their own', async () => {
    const answer = await api(mock, 'PATCH', `/v1/org/members/${mock.principals.member.memberId}`, {
      token: mock.principals.adminKey.token,
      body: { role: 'owner' },
    });
    expect([answer.status, answer.body?.errorCode]).toEqual([403, 'forbidden']);
    const invite = await api(mock, 'POST', '/v1/org/invitations', {
      token: mock.principals.adminKey.token,
      body: { email: 'admin@acme.test', role: 'admin' },
    });
    expect(invite.status).toBe(201);
  });

  it('transfers ownership when an owner makes another member owner', async () => {
    const { owner, member } = mock.principals;
    const answer = await api(mock, 'PATCH', `/v1/org/members/${member.memberId}`, {
      body: { role: 'owner' },
    });
    expect(answer.status).toBe(200);
    expect(data<Member>(answer)).toMatchObject({
      id: member.memberId,
      role: 'owner',
      email: member.email,
    });
    const members = data<Member[]>(await api(mock, 'GET', '/v1/org/members'));
    expect(members.find((entry) => entry.id === owner.memberId)?.role).toBe('admin');
  });

  it('never demotes or removes the last owner (409), and keeps admins off the owner (403)', async () => {
    const { owner, adminKey } = mock.principals;
    const demote = await api(mock, 'PATCH', `/v1/org/members/${owner.memberId}`, {
      body: { role: 'admin' },
    });
    expect([demote.status, demote.body?.errorCode]).toEqual([409, 'conflict']);
    const remove = await api(mock, 'DELETE', `/v1/org/members/${owner.memberId}`);
    expect([remove.status, remove.body?.errorCode]).toEqual([409, 'conflict']);
    expect(await statusOf(adminKey.token, 'DELETE', `/v1/org/members/${owner.memberId}`)).toBe(403);
  });

  it('revokes a removed member: their token then gets 401 and they leave the member list', async () => {
    const { member } = mock.principals;
    expect(
      await statusOf(mock.principals.owner.token, 'DELETE', `/v1/org/members/${member.memberId}`),
    ).toBe(204);
    expect(await statusOf(member.token, 'GET', '/v1/org')).toBe(401);
    const members = data<Member[]>(await api(mock, 'GET', '/v1/org/members'));
    expect(members.map((entry) => entry.id)).not.toContain(member.memberId);
  });
});

describe('invitations', () => {
  it('never grants owner by invitation: 422 validation_error, even for the owner', async () => {
    const answer = await api(mock, 'POST', '/v1/org/invitations', {
      body: { email: 'boss@acme.test', role: 'owner' },
    });
    expect([answer.status, answer.body?.errorCode]).toEqual([422, 'validation_error']);
  });

  it('creates pending invitations that expire exactly 7 days later', async () => {
    // The mock's clock runs with real time, so a handler that read it twice would drift by a
    // millisecond now and then: many invitations make such a drift show up.
    const created: Array<{ id: string; status: string; created_at: string; expires_at: string }> =
      [];
    for (let index = 0; index < 200; index += 1) {
      const answer = await api(mock, 'POST', '/v1/org/invitations', {
        body: { email: `new${index}@acme.test`, role: 'member' },
      });
      created.push(data(answer));
    }
    for (const invitation of created) {
      expect(invitation.status).toBe('pending');
      expect(Date.parse(invitation.expires_at) - Date.parse(invitation.created_at)).toBe(
        7 * 24 * 3_600_000,
      );
    }
    mock.clock.advance(7 * 24 * 3_600_000 + 1_000);
    const listed = data<Array<{ id: string; status: string }>>(
      await api(mock, 'GET', '/v1/org/invitations?limit=100'),
    );
    expect(listed.every((invitation) => invitation.status === 'expired')).toBe(true);
  });
});

describe('secrets (§2, §3)', () => {
  it('archives on DELETE: gone from listings, values and the value endpoint; others stay', async () => {
    const vaultId = await create(mock, '/v1/vaults', { name: 'v' });
    const keep = await create(mock, `/v1/vaults/${vaultId}/secrets`, {
      name: 'keep',
      value: { a: '1' },
    });
    const drop = await create(mock, `/v1/vaults/${vaultId}/secrets`, {
      name: 'drop',
      value: { b: '2' },
    });
    expect((await api(mock, 'DELETE', `/v1/secrets/${drop}`)).status).toBe(204);
    const listed = data<Secret[]>(await api(mock, 'GET', `/v1/vaults/${vaultId}/secrets`));
    expect(listed.map((secret) => secret.id)).toEqual([keep]);
    const values = data<Secret[]>(await api(mock, 'GET', `/v1/vaults/${vaultId}/secrets/values`));
    expect(values.map((secret) => secret.id)).toEqual([keep]);
    expect((await api(mock, 'GET', `/v1/secrets/${drop}/value`)).status).toBe(404);
  });

  it('replaces the whole value on PATCH (no merge), and keeps it when only the name changes', async () => {
    const vaultId = await create(mock, '/v1/vaults', { name: 'v' });
    const id = await create(mock, `/v1/vaults/${vaultId}/secrets`, {
      name: 's',
      value: { a: '1', b: '2' },
    });
    await api(mock, 'PATCH', `/v1/secrets/${id}`, { body: { value: { c: '3' } } });
    expect(data<Secret>(await api(mock, 'GET', `/v1/secrets/${id}/value`)).value).toEqual({
      c: '3',
    });
    const renamed = await api(mock, 'PATCH', `/v1/secrets/${id}`, { body: { name: 'renamed' } });
    expect(data<Secret>(renamed).name).toBe('renamed');
    expect(data<Secret>(await api(mock, 'GET', `/v1/secrets/${id}/value`)).value).toEqual({
      c: '3',
    });
  });

  it('returns the value only from the two value endpoints', async () => {
    const vaultId = await create(mock, '/v1/vaults', { name: 'v' });
    const created = await api(mock, 'POST', `/v1/vaults/${vaultId}/secrets`, {
      body: { name: 's', value: { a: '1' } },
    });
    const id = data<Secret>(created).id;
    const metadataAnswers = [
      created,
      await api(mock, 'PATCH', `/v1/secrets/${id}`, { body: { value: { a: '2' } } }),
      await api(mock, 'GET', `/v1/vaults/${vaultId}/secrets`),
    ];
    for (const answer of metadataAnswers) expect(answer.text).not.toContain('"value"');
    expect(data<Secret>(await api(mock, 'GET', `/v1/secrets/${id}/value`)).value).toEqual({
      a: '2',
    });
    expect(
      data<Secret[]>(await api(mock, 'GET', `/v1/vaults/${vaultId}/secrets/values`))[0]?.value,
    ).toEqual({ a: '2' });
  });

  it('returns every live secret of a vault from the values endpoint in one call', async () => {
    const vaultId = await create(mock, '/v1/vaults', { name: 'v' });
    for (let index = 0; index < 120; index += 1) {
      await create(mock, `/v1/vaults/${vaultId}/secrets`, {
        name: `s${index}`,
        value: { n: String(index) },
      });
    }
    const values = await api(mock, 'GET', `/v1/vaults/${vaultId}/secrets/values`);
    expect(data<Secret[]>(values)).toHaveLength(120);
  });

  it('fills defaults: type generic, no expiry; vaults icon 0 and colour #6B7280', async () => {
    const vault = data<Vault>(await api(mock, 'POST', '/v1/vaults', { body: { name: 'v' } }));
    expect([vault.icon_index, vault.color, vault.team_id]).toEqual([0, '#6B7280', null]);
    const secret = data<Secret>(
      await api(mock, 'POST', `/v1/vaults/${vault.id}/secrets`, { body: { name: 's', value: {} } }),
    );
    expect(secret).toMatchObject({
      type: 'generic',
      expired_at: null,
      delete_after_expired: false,
      is_archived: false,
    });
  });

  it('archives a secret when its expiry passes with delete_after_expired, and keeps it otherwise', async () => {
    const vaultId = await create(mock, '/v1/vaults', { name: 'v' });
    const expiry = new Date(mock.clock.now() + 60_000).toISOString();
    const doomed = await create(mock, `/v1/vaults/${vaultId}/secrets`, {
      name: 'doomed',
      value: { a: '1' },
      expired_at: expiry,
      delete_after_expired: true,
    });
    const kept = await create(mock, `/v1/vaults/${vaultId}/secrets`, {
      name: 'kept',
      value: { a: '1' },
      expired_at: expiry,
      delete_after_expired: false,
    });
    const liveIds = async () =>
      data<Secret[]>(await api(mock, 'GET', `/v1/vaults/${vaultId}/secrets/values`)).map(
        (secret) => secret.id,
      );
    expect((await liveIds()).sort()).toEqual([doomed, kept].sort());
    mock.clock.advance(61_000);
    expect(await liveIds()).toEqual([kept]);
    expect((await api(mock, 'GET', `/v1/secrets/${doomed}/value`)).status).toBe(404);
  });
});

describe('cascades and updates', () => {
  it('keeps omitted fields on a vault PATCH; team_id null leaves the team; a foreign team is 422', async () => {
    const teamId = await create(mock, '/v1/teams', { name: 't' });
    const vaultId = await create(mock, '/v1/vaults', {
      name: 'v',
      team_id: teamId,
      icon_index: 5,
      color: '#ABCDEF',
    });
    const renamed = data<Vault>(
      await api(mock, 'PATCH', `/v1/vaults/${vaultId}`, { body: { name: 'w' } }),
    );
    expect(renamed).toMatchObject({ name: 'w', team_id: teamId, icon_index: 5, color: '#ABCDEF' });
    expect(
      data<Vault>(await api(mock, 'PATCH', `/v1/vaults/${vaultId}`, { body: { team_id: null } }))
        .team_id,
    ).toBeNull();
    const foreignTeam = await create(
      mock,
      '/v1/teams',
      { name: 'g' },
      mock.principals.outsider.token,
    );
    const answer = await api(mock, 'PATCH', `/v1/vaults/${vaultId}`, {
      body: { team_id: foreignTeam },
    });
    expect([answer.status, answer.body?.errorCode]).toEqual([422, 'validation_error']);
  });

  it('sets team_id to null on the vaults of a deleted team', async () => {
    const teamId = await create(mock, '/v1/teams', { name: 't' });
    const vaultId = await create(mock, '/v1/vaults', { name: 'v', team_id: teamId });
    expect((await api(mock, 'DELETE', `/v1/teams/${teamId}`)).status).toBe(204);
    expect(data<Vault>(await api(mock, 'GET', `/v1/vaults/${vaultId}`)).team_id).toBeNull();
  });

  it('removes the members and secrets of a deleted vault', async () => {
    const { vaultId, secretId } = await sharedVault();
    expect((await api(mock, 'DELETE', `/v1/vaults/${vaultId}`)).status).toBe(204);
    expect((await api(mock, 'GET', `/v1/secrets/${secretId}/value`)).status).toBe(404);
    expect((await api(mock, 'GET', `/v1/vaults/${vaultId}/members`)).status).toBe(404);
  });

  it('adds, refuses duplicates and strangers, and removes team members; there is no PATCH', async () => {
    const teamId = await create(mock, '/v1/teams', { name: 't' });
    const path = `/v1/teams/${teamId}/members`;
    const added = await api(mock, 'POST', path, {
      body: { user_id: mock.principals.member.userId },
    });
    expect(added.status).toBe(201);
    expect(Object.keys(data(added)).sort()).toEqual(['created_at', 'id', 'team_id', 'user']);
    const duplicate = await api(mock, 'POST', path, {
      body: { user_id: mock.principals.member.userId },
    });
    expect([duplicate.status, duplicate.body?.errorCode]).toEqual([409, 'conflict']);
    expect(
      (await api(mock, 'POST', path, { body: { user_id: mock.principals.outsider.userId } }))
        .status,
    ).toBe(404);
    const memberId = data<{ id: string }>(added).id;
    expect((await api(mock, 'PATCH', `${path}/${memberId}`, { body: { role: 'x' } })).status).toBe(
      404,
    );
    expect((await api(mock, 'DELETE', `${path}/${memberId}`)).status).toBe(204);
    expect(data<unknown[]>(await api(mock, 'GET', path))).toEqual([]);
  });
});

describe('audit log (decisions: "Audit entries")', () => {
  it('records creates, value reads and refused attempts, newest first, with who and from where', async () => {
    const vaultId = await create(mock, '/v1/vaults', { name: 'v' });
    const secretId = await create(mock, `/v1/vaults/${vaultId}/secrets`, {
      name: 's',
      value: { a: '1' },
    });
    await api(mock, 'GET', `/v1/secrets/${secretId}/value`);
    await api(mock, 'POST', '/v1/teams', {
      token: mock.principals.member.token,
      body: { name: 'nope' },
    });
    await api(mock, 'GET', '/v1/org', { token: 'bad-token' });

    const entries = data<AuditEntry[]>(await api(mock, 'GET', '/v1/audit'));
    expect(entries.slice(0, 4).map((entry) => entry.action)).toEqual([
      'org.team.create',
      'vault.secret_value.read',
      'vault.secret.create',
      'org.vault.create',
    ]);
    expect(entries[0]).toMatchObject({ success: false, user_name: 'Grace Hopper', type: 'write' });
    expect(entries[1]).toMatchObject({
      resource: `secret:${secretId}`,
      type: 'read',
      success: true,
      user_name: 'Ada Lovelace',
    });
    expect(entries[2]).toMatchObject({
      resource: `secret:${secretId}`,
      type: 'write',
      success: true,
    });
    expect(
      entries.every((entry) => typeof entry.ip_address === 'string' && entry.ip_address !== ''),
    ).toBe(true);
    expect(entries.map((entry) => entry.time)).toEqual(
      [...entries.map((entry) => entry.time)].sort().reverse(),
    );
    expect(entries.some((entry) => entry.action === 'org.organization.read')).toBe(false);
  });

  it('filters by action and resource exactly', async () => {
    const vaultId = await create(mock, '/v1/vaults', { name: 'v' });
    const secretId = await create(mock, `/v1/vaults/${vaultId}/secrets`, {
      name: 's',
      value: { a: '1' },
    });
    await api(mock, 'GET', `/v1/secrets/${secretId}/value`);
    const byAction = data<AuditEntry[]>(
      await api(mock, 'GET', '/v1/audit?action=vault.secret_value.read'),
    );
    expect(byAction.map((entry) => entry.action)).toEqual(['vault.secret_value.read']);
    const byResource = data<AuditEntry[]>(
      await api(mock, 'GET', `/v1/audit?resource=${encodeURIComponent(`secret:${secretId}`)}`),
    );
    expect(byResource.map((entry) => entry.action)).toEqual([
      'vault.secret_value.read',
      'vault.secret.create',
    ]);
    expect(data<AuditEntry[]>(await api(mock, 'GET', '/v1/audit?action=vault.secret'))).toEqual([]);
  });

  it("keeps each organization's log to itself", async () => {
    await create(mock, '/v1/vaults', { name: 'v' });
    const outsiderLog = data<AuditEntry[]>(
      await api(mock, 'GET', '/v1/audit', { token: mock.principals.outsider.token }),
    );
    expect(outsiderLog.some((entry) => entry.user_name === 'Ada Lovelace')).toBe(false);
  });
});
