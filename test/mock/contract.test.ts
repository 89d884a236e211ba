/**
 * The mock against the conventions of api-contract.md §4, §7 and §8 and the matching
 * contract decisions: envelope, headers, status and error codes, limits, cursors, idempotency
 * and fault injection. Real `fetch` only; no internals.
 */
import { describe, expect, it } from 'vitest';
import { api, create, data, useMock } from './api.js';

const mock = useMock();
const REQUEST_ID = /^req_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

async function seedVault(name = 'Payments'): Promise<string> {
  return create(mock, '/v1/vaults', { name });
}

describe('headers and envelope (§4)', () => {
  it('puts X-Request-Id (unique) and Cache-Control: no-store on every response, and no CORS header', async () => {
    const vaultId = await seedVault();
    const answers = [
      await api(mock, 'GET', '/v1/vaults'),
      await api(mock, 'GET', `/v1/vaults/${vaultId}`),
      await api(mock, 'DELETE', `/v1/vaults/${vaultId}`),
      await api(mock, 'GET', '/v1/nope'),
      await api(mock, 'GET', '/v1/org', { token: 'wrong' }),
      await api(mock, 'POST', '/v1/vaults', { raw: '[]' }),
      await api(mock, 'OPTIONS', '/v1/vaults', {
        headers: { Origin: 'https://app.test', 'Access-Control-Request-Method': 'GET' },
      }),
    ];
    const ids = answers.map((answer) => answer.headers.get('x-request-id'));
    for (const [index, answer] of answers.entries()) {
      expect(ids[index]).toMatch(REQUEST_ID);
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(
        [...answer.headers.keys()].filter((name) => name.startsWith('access-control-')),
      ).toEqual([]);
    }
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('answers an OPTIONS preflight 404 not_found', async () => {
    const answer = await api(mock, 'OPTIONS', '/v1/vaults', { token: null });
    expect(answer.status).toBe(404);
    expect(answer.body?.errorCode).toBe('not_found');
  });

  it('wraps a success as { statusCode, errorCode: null, message: null, data }', async () => {
    const answer = await api(mock, 'GET', '/v1/org');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      statusCode: 200,
      errorCode: null,
      message: null,
      data: expect.any(Object),
    });
  });

  it('wraps a failure as { statusCode, errorCode, message, data: null }', async () => {
    const answer = await api(mock, 'GET', '/v1/vaults/missing');
    expect(answer.body).toEqual({
      statusCode: 404,
      errorCode: 'not_found',
      message: expect.any(String),
      data: null,
    });
  });

  it('always has next_cursor beside data on lists, and none on the values endpoint', async () => {
    const vaultId = await seedVault();
    for (const path of [
      '/v1/vaults',
      `/v1/vaults/${vaultId}/members`,
      `/v1/vaults/${vaultId}/secrets`,
      '/v1/teams',
      '/v1/org/members',
      '/v1/org/invitations',
      '/v1/audit',
    ]) {
      const body = (await api(mock, 'GET', path)).body;
      expect(body && 'next_cursor' in body, path).toBe(true);
      expect(body?.next_cursor, path).toBeNull();
    }
    const values = await api(mock, 'GET', `/v1/vaults/${vaultId}/secrets/values`);
    expect(values.status).toBe(200);
    expect(values.body && 'next_cursor' in values.body).toBe(false);
  });
});

describe('statuses and error codes (§4, §7, decisions)', () => {
  it('answers 401 unauthorized without a token, with a non-Bearer scheme, or with an unknown token', async () => {
    for (const headers of [
      {},
      { Authorization: `Basic ${mock.principals.owner.token}` },
      { Authorization: 'Bearer nope' },
    ]) {
      const answer = await api(mock, 'GET', '/v1/vaults', { token: null, headers });
      expect(answer.status).toBe(401);
      expect(answer.body?.errorCode).toBe('unauthorized');
    }
  });

  it('answers 404 not_found for an unknown route or method', async () => {
    for (const [method, path] of [
      ['GET', '/v1/nope'],
      ['PUT', '/v1/vaults'],
      ['PATCH', '/v1/teams/x/members/y'],
      ['GET', '/v1'],
    ]) {
      const answer = await api(mock, method ?? 'GET', path ?? '/');
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(answer.body?.errorCode).toBe('not_found');
    }
  });

  it('answers 400 bad_request for an empty, non-JSON or non-object body', async () => {
    for (const raw of ['', '   ', 'not json', '[]', '"text"', '42', 'null']) {
      const answer = await api(mock, 'POST', '/v1/teams', { raw });
      expect(answer.status, JSON.stringify(raw)).toBe(400);
      expect(answer.body?.errorCode).toBe('bad_request');
    }
    const vaultId = await seedVault();
    expect((await api(mock, 'PATCH', `/v1/vaults/${vaultId}`, { raw: '[1]' })).status).toBe(400);
  });

  it('answers 413 payload_too_large for a body over 1 MB', async () => {
    const vaultId = await seedVault();
    const answer = await api(mock, 'POST', `/v1/vaults/${vaultId}/secrets`, {
      body: { name: 'big', value: { blob: 'x'.repeat(1_000_001) } },
    });
    expect(answer.status).toBe(413);
    expect(answer.body?.errorCode).toBe('payload_too_large');
  });

  it.each([
    ['/v1/vaults', { name: '' }],
    ['/v1/vaults', { name: '   ' }],
    ['/v1/vaults', { name: 'x'.repeat(101) }],
    ['/v1/vaults', { name: 'ok', icon_index: 32 }],
    ['/v1/vaults', { name: 'ok', icon_index: 1.5 }],
    ['/v1/vaults', { name: 'ok', color: 'red' }],
    ['/v1/teams', { name: 7 }],
    ['/v1/org/invitations', { email: 'not-an-email', role: 'member' }],
    ['/v1/org/invitations', { email: 'a@b.test', role: 'emperor' }],
  ])('answers 422 validation_error for POST %s %j', async (path, body) => {
    const answer = await api(mock, 'POST', path, { body });
    expect(answer.status).toBe(422);
    expect(answer.body?.errorCode).toBe('validation_error');
  });

  it.each([
    [{ name: 'n', value: { port: 5432 } }],
    [{ name: 'n', value: ['a'] }],
    [{ name: 'n', value: 'plain' }],
    [{ name: 'n', value: { a: 'b' }, type: 't'.repeat(33) }],
    [{ name: 'n', value: { a: 'b' }, expired_at: 'tomorrow' }],
    [{ name: 'n', value: { a: 'b' }, delete_after_expired: 'yes' }],
  ])('answers 422 validation_error for a secret %j', async (body) => {
    const vaultId = await seedVault();
    const answer = await api(mock, 'POST', `/v1/vaults/${vaultId}/secrets`, { body });
    expect(answer.status).toBe(422);
    expect(answer.body?.errorCode).toBe('validation_error');
  });

  it('creates vaults, secrets and teams with 201 and Location; members and invitations with 201 and no Location', async () => {
    const vault = await api(mock, 'POST', '/v1/vaults', { body: { name: 'v' } });
    const vaultId = data<{ id: string }>(vault).id;
    expect([vault.status, vault.headers.get('location')]).toEqual([201, `/v1/vaults/${vaultId}`]);
    const secret = await api(mock, 'POST', `/v1/vaults/${vaultId}/secrets`, {
      body: { name: 's', value: { a: 'b' } },
    });
    expect([secret.status, secret.headers.get('location')]).toEqual([
      201,
      `/v1/secrets/${data<{ id: string }>(secret).id}`,
    ]);
    const team = await api(mock, 'POST', '/v1/teams', { body: { name: 't' } });
    expect([team.status, team.headers.get('location')]).toEqual([
      201,
      `/v1/teams/${data<{ id: string }>(team).id}`,
    ]);
    const teamId = data<{ id: string }>(team).id;
    const { colleague } = mock.principals;
    for (const [path, body] of [
      [`/v1/vaults/${vaultId}/members`, { user_id: colleague.userId, role: 'member' }],
      [`/v1/teams/${teamId}/members`, { user_id: colleague.userId }],
      ['/v1/org/invitations', { email: 'new@acme.test', role: 'member' }],
    ] as const) {
      const answer = await api(mock, 'POST', path, { body });
      expect([answer.status, answer.headers.get('location')], path).toEqual([201, null]);
    }
  });

  it('answers 200 to GET and PATCH and 204 with an empty body to DELETE', async () => {
    const vaultId = await seedVault();
    expect((await api(mock, 'GET', `/v1/vaults/${vaultId}`)).status).toBe(200);
    expect(
      (await api(mock, 'PATCH', `/v1/vaults/${vaultId}`, { body: { name: 'x' } })).status,
    ).toBe(200);
    const deleted = await api(mock, 'DELETE', `/v1/vaults/${vaultId}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
  });

  it('keeps organizations apart: an outsider gets 404, never 403, and sees nothing', async () => {
    const vaultId = await seedVault();
    const secretId = await create(mock, `/v1/vaults/${vaultId}/secrets`, {
      name: 's',
      value: { a: 'b' },
    });
    const teamId = await create(mock, '/v1/teams', { name: 't' });
    const token = mock.principals.outsider.token;
    for (const [method, path] of [
      ['GET', `/v1/vaults/${vaultId}`],
      ['DELETE', `/v1/vaults/${vaultId}`],
      ['GET', `/v1/vaults/${vaultId}/members`],
      ['GET', `/v1/vaults/${vaultId}/secrets/values`],
      ['GET', `/v1/secrets/${secretId}/value`],
      ['DELETE', `/v1/secrets/${secretId}`],
      ['GET', `/v1/teams/${teamId}`],
      ['GET', `/v1/teams/${teamId}/members`],
      ['PATCH', `/v1/org/members/${mock.principals.member.memberId}`],
    ] as const) {
      const answer = await api(mock, method, path, {
        token,
        ...(method === 'PATCH' ? { body: { role: 'admin' } } : {}),
      });
      expect(answer.status, `${method} ${path}`).toBe(404);
    }
    for (const path of ['/v1/vaults', '/v1/teams']) {
      expect(data<unknown[]>(await api(mock, 'GET', path, { token }))).toEqual([]);
    }
    const members = data<Array<{ email: string }>>(
      await api(mock, 'GET', '/v1/org/members', { token }),
    );
    expect(members.map((member) => member.email)).toEqual([mock.principals.outsider.email]);
    expect(data<{ name: string }>(await api(mock, 'GET', '/v1/org', { token })).name).toBe(
      'Globex',
    );
  });
});

describe('pagination (§4, §8, decisions)', () => {
  async function seedTeams(count: number): Promise<string[]> {
    const ids: string[] = [];
    for (let index = 0; index < count; index += 1) {
      ids.push(await create(mock, '/v1/teams', { name: `team ${index}` }));
      if (index % 3 === 0) mock.clock.advance(1_000);
    }
    return ids;
  }

  it('lists newest first, by created_at then id, and defaults to 50 items', async () => {
    const ids = await seedTeams(60);
    const page = await api(mock, 'GET', '/v1/teams');
    expect(data<Array<{ id: string }>>(page).map((team) => team.id)).toEqual(
      [...ids].reverse().slice(0, 50),
    );
    expect(typeof page.body?.next_cursor).toBe('string');
  });

  it('accepts limit 1 and 100 and refuses anything else with 400 bad_request', async () => {
    await seedTeams(2);
    expect(data<unknown[]>(await api(mock, 'GET', '/v1/teams?limit=1'))).toHaveLength(1);
    expect(data<unknown[]>(await api(mock, 'GET', '/v1/teams?limit=100'))).toHaveLength(2);
    for (const limit of ['0', '101', 'abc', '1.5', '', '-1', '1e2']) {
      const answer = await api(mock, 'GET', `/v1/teams?limit=${limit}`);
      expect(answer.status, limit).toBe(400);
      expect(answer.body?.errorCode).toBe('bad_request');
    }
  });

  it('follows next_cursor through every item exactly once; cursors need encoding and still work', async () => {
    const ids = await seedTeams(23);
    const seen: string[] = [];
    let cursor: string | null | undefined = null;
    const cursors: string[] = [];
    do {
      const query: string =
        cursor === null ? '?limit=5' : `?limit=5&cursor=${encodeURIComponent(cursor)}`;
      const page = await api(mock, 'GET', `/v1/teams${query}`);
      expect(page.status).toBe(200);
      seen.push(...data<Array<{ id: string }>>(page).map((team) => team.id));
      cursor = page.body?.next_cursor;
      if (cursor) cursors.push(cursor);
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
    expect(cursors.some((value) => /[+/=]/.test(value))).toBe(true);
  });

  it('refuses a garbled cursor, and a cursor from another list, with 400 invalid_cursor', async () => {
    await seedTeams(3);
    const vaultA = await seedVault('A');
    const vaultB = await seedVault('B');
    for (let index = 0; index < 3; index += 1) {
      await create(mock, `/v1/vaults/${vaultA}/secrets`, { name: `s${index}`, value: { a: 'b' } });
    }
    const teamCursor = (await api(mock, 'GET', '/v1/teams?limit=1')).body?.next_cursor ?? '';
    const secretsCursor =
      (await api(mock, 'GET', `/v1/vaults/${vaultA}/secrets?limit=1`)).body?.next_cursor ?? '';
    for (const path of [
      '/v1/teams?cursor=garbage',
      `/v1/vaults?cursor=${encodeURIComponent(teamCursor)}`,
      `/v1/vaults/${vaultB}/secrets?cursor=${encodeURIComponent(secretsCursor)}`,
      `/v1/teams?cursor=${encodeURIComponent(`${teamCursor}x`)}`,
    ]) {
      const answer = await api(mock, 'GET', path);
      expect(answer.status, path).toBe(400);
      expect(answer.body?.errorCode).toBe('invalid_cursor');
    }
  });

  it('expires a cursor 15 minutes after it was issued, on the mock clock', async () => {
    await seedTeams(3);
    const cursor = encodeURIComponent(
      (await api(mock, 'GET', '/v1/teams?limit=1')).body?.next_cursor ?? '',
    );
    mock.clock.advance(14 * 60_000);
    expect((await api(mock, 'GET', `/v1/teams?limit=1&cursor=${cursor}`)).status).toBe(200);
    mock.clock.advance(60_000 + 1);
    const answer = await api(mock, 'GET', `/v1/teams?limit=1&cursor=${cursor}`);
    expect([answer.status, answer.body?.errorCode]).toEqual([400, 'invalid_cursor']);
  });
});

describe('idempotency (§4, §8, decisions)', () => {
  const key = (value: string) => ({ 'Idempotency-Key': value });

  it('replays the stored response with Idempotent-Replayed: true and creates nothing new', async () => {
    const first = await api(mock, 'POST', '/v1/vaults', {
      body: { name: 'v', color: '#112233' },
      headers: key('k1'),
    });
    const again = await api(mock, 'POST', '/v1/vaults', {
      body: { color: '#112233', name: 'v' },
      headers: key('k1'),
    });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(again.text).toBe(first.text);
    expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect(data<unknown[]>(await api(mock, 'GET', '/v1/vaults'))).toHaveLength(1);
  });

  it('refuses the same key with a different body: 422 idempotency_key_reuse', async () => {
    await api(mock, 'POST', '/v1/teams', { body: { name: 'a' }, headers: key('k2') });
    const answer = await api(mock, 'POST', '/v1/teams', {
      body: { name: 'b' },
      headers: key('k2'),
    });
    expect([answer.status, answer.body?.errorCode]).toEqual([422, 'idempotency_key_reuse']);
  });

  it('answers 409 idempotency_in_progress while the first request with the key still runs', async () => {
    const hold = mock.faults.inject(
      { method: 'POST', path: '/v1/vaults', times: 1 },
      { kind: 'hold' },
    );
    const first = api(mock, 'POST', '/v1/vaults', { body: { name: 'v' }, headers: key('k3') });
    await hold.held;
    const second = await api(mock, 'POST', '/v1/vaults', {
      body: { name: 'v' },
      headers: key('k3'),
    });
    expect([second.status, second.body?.errorCode]).toEqual([409, 'idempotency_in_progress']);
    hold.release();
    expect((await first).status).toBe(201);
    const third = await api(mock, 'POST', '/v1/vaults', {
      body: { name: 'v' },
      headers: key('k3'),
    });
    expect(third.headers.get('idempotent-replayed')).toBe('true');
  });

  it('stores nothing for a failed request, so the same key runs again', async () => {
    const failed = await api(mock, 'POST', '/v1/vaults', {
      body: { name: '' },
      headers: key('k4'),
    });
    expect(failed.status).toBe(422);
    const retried = await api(mock, 'POST', '/v1/vaults', {
      body: { name: 'fixed' },
      headers: key('k4'),
    });
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
  });

  it('scopes keys to principal, path and method', async () => {
    await api(mock, 'POST', '/v1/teams', { body: { name: 't' }, headers: key('k5') });
    const otherPrincipal = await api(mock, 'POST', '/v1/teams', {
      body: { name: 't' },
      headers: key('k5'),
      token: mock.principals.adminKey.token,
    });
    const otherPath = await api(mock, 'POST', '/v1/vaults', {
      body: { name: 't' },
      headers: key('k5'),
    });
    expect(otherPrincipal.headers.get('idempotent-replayed')).toBeNull();
    expect(otherPath.headers.get('idempotent-replayed')).toBeNull();
    expect(data<unknown[]>(await api(mock, 'GET', '/v1/teams'))).toHaveLength(2);
  });

  it('keeps a record 24 hours on the mock clock', async () => {
    await api(mock, 'POST', '/v1/teams', { body: { name: 't' }, headers: key('k6') });
    mock.clock.advance(24 * 3_600_000 - 1_000);
    expect(
      (
        await api(mock, 'POST', '/v1/teams', { body: { name: 't' }, headers: key('k6') })
      ).headers.get('idempotent-replayed'),
    ).toBe('true');
    mock.clock.advance(2_000);
    const after = await api(mock, 'POST', '/v1/teams', { body: { name: 't' }, headers: key('k6') });
    expect(after.headers.get('idempotent-replayed')).toBeNull();
    expect(data<unknown[]>(await api(mock, 'GET', '/v1/teams'))).toHaveLength(2);
  });

  it('de-duplicates nothing without the header', async () => {
    await api(mock, 'POST', '/v1/teams', { body: { name: 't' } });
    await api(mock, 'POST', '/v1/teams', { body: { name: 't' } });
    expect(data<unknown[]>(await api(mock, 'GET', '/v1/teams'))).toHaveLength(2);
  });

  it('refuses a key longer than 255 characters with 400 bad_request', async () => {
    const answer = await api(mock, 'POST', '/v1/teams', {
      body: { name: 't' },
      headers: key('k'.repeat(256)),
    });
    expect([answer.status, answer.body?.errorCode]).toEqual([400, 'bad_request']);
  });

  it('replays each of the six creating POSTs', async () => {
    const vaultId = await seedVault();
    const teamId = await create(mock, '/v1/teams', { name: 't' });
    const userId = mock.principals.colleague.userId;
    const creates: Array<[string, unknown]> = [
      ['/v1/vaults', { name: 'v2' }],
      [`/v1/vaults/${vaultId}/secrets`, { name: 's', value: { a: 'b' } }],
      ['/v1/teams', { name: 't2' }],
      [`/v1/vaults/${vaultId}/members`, { user_id: userId, role: 'member' }],
      [`/v1/teams/${teamId}/members`, { user_id: userId }],
      ['/v1/org/invitations', { email: 'x@acme.test', role: 'member' }],
    ];
    for (const [path, body] of creates) {
      const first = await api(mock, 'POST', path, { body, headers: key(`six-${path}`) });
      const again = await api(mock, 'POST', path, { body, headers: key(`six-${path}`) });
      expect(first.status, path).toBe(201);
      expect(again.headers.get('idempotent-replayed'), path).toBe('true');
      expect(data<{ id: string }>(again).id).toBe(data<{ id: string }>(first).id);
    }
  });
});

describe('fault injection', () => {
  const listVaults = async () => data<Array<{ id: string }>>(await api(mock, 'GET', '/v1/vaults'));

  it('drops the connection before the service acts: fetch fails and nothing is created', async () => {
    mock.faults.inject({ method: 'POST', path: '/v1/vaults', times: 1 }, { kind: 'network-error' });
    await expect(api(mock, 'POST', '/v1/vaults', { body: { name: 'v' } })).rejects.toThrow(
      TypeError,
    );
    expect(await listVaults()).toHaveLength(0);
  });

  it('drops the connection after the service committed: the resource exists and a keyed retry replays it', async () => {
    mock.faults.inject(
      { method: 'POST', path: '/v1/vaults', times: 1 },
      { kind: 'network-error-after-commit' },
    );
    const headers = { 'Idempotency-Key': 'lost-response' };
    await expect(api(mock, 'POST', '/v1/vaults', { body: { name: 'v' }, headers })).rejects.toThrow(
      TypeError,
    );
    expect(await listVaults()).toHaveLength(1);
    const retry = await api(mock, 'POST', '/v1/vaults', { body: { name: 'v' }, headers });
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await listVaults()).toHaveLength(1);
  });

  it('answers an injected status with its envelope and Retry-After', async () => {
    mock.faults.inject(
      { method: 'GET', path: '/v1/org', times: 1 },
      { kind: 'status', status: 429, retryAfter: 3 },
    );
    mock.faults.inject(
      { method: 'GET', path: '/v1/org', times: 1 },
      { kind: 'status', status: 503 },
    );
    const limited = await api(mock, 'GET', '/v1/org');
    expect([limited.status, limited.body?.errorCode, limited.headers.get('retry-after')]).toEqual([
      429,
      'rate_limited',
      '3',
    ]);
    const unavailable = await api(mock, 'GET', '/v1/org');
    expect([unavailable.status, unavailable.body?.errorCode]).toEqual([503, 'internal_error']);
    expect((await api(mock, 'GET', '/v1/org')).status).toBe(200);
  });

  it('fires once, N times, or until cleared, counting hits', async () => {
    const twice = mock.faults.inject(
      { path: '/v1/teams', times: 2 },
      { kind: 'status', status: 500 },
    );
    expect((await api(mock, 'GET', '/v1/teams')).status).toBe(500);
    expect((await api(mock, 'GET', '/v1/teams')).status).toBe(500);
    expect((await api(mock, 'GET', '/v1/teams')).status).toBe(200);
    expect(twice.hits).toBe(2);

    const forever = mock.faults.inject({ path: '/v1/teams' }, { kind: 'status', status: 502 });
    for (let index = 0; index < 4; index += 1)
      expect((await api(mock, 'GET', '/v1/teams')).status).toBe(502);
    forever.clear();
    expect((await api(mock, 'GET', '/v1/teams')).status).toBe(200);
    expect(forever.hits).toBe(4);
  });

  it('matches method and :param paths, and reset() clears faults', async () => {
    const vaultId = await seedVault();
    mock.faults.inject(
      { method: 'DELETE', path: '/v1/vaults/:vaultId' },
      { kind: 'status', status: 500 },
    );
    expect((await api(mock, 'GET', `/v1/vaults/${vaultId}`)).status).toBe(200);
    expect((await api(mock, 'DELETE', `/v1/vaults/${vaultId}`)).status).toBe(500);
    mock.reset();
    expect((await api(mock, 'GET', '/v1/vaults')).status).toBe(200);
    expect((await api(mock, 'DELETE', '/v1/vaults/whatever')).status).toBe(404);
  });

  it('delays an answer by at least the given time', async () => {
    mock.faults.inject({ path: '/v1/org', times: 1 }, { kind: 'delay', ms: 100 });
    const started = performance.now();
    expect((await api(mock, 'GET', '/v1/org')).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(95);
  });

  it('applies the first injected of several matching faults, one per request', async () => {
    mock.faults.inject({ path: '/v1/org', times: 1 }, { kind: 'status', status: 500 });
    mock.faults.inject({ path: '/v1/org', times: 1 }, { kind: 'status', status: 503 });
    const statuses = [];
    for (let index = 0; index < 3; index += 1)
      statuses.push((await api(mock, 'GET', '/v1/org')).status);
    expect(statuses).toEqual([500, 503, 200]);
  });
});

describe('the clock', () => {
  it('stamps created_at from the mock clock, in ISO 8601 UTC with milliseconds', async () => {
    mock.clock.set('2030-05-06T07:08:09.010Z');
    const answer = await api(mock, 'POST', '/v1/teams', { body: { name: 't' } });
    const createdAt = data<{ created_at: string }>(answer).created_at;
    expect(createdAt).toMatch(/^2030-05-06T07:08:09\.\d{3}Z$/);
  });
});
