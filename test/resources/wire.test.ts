/**
 * Every method of every resource, as the server sees it and as the caller gets it: method,
 * percent-encoded path under /v1, query, headers, JSON body, Idempotency-Key, and the value.
 */
import { describe, expect, it } from 'vitest';
import { type APIPromise, RequestValidationError, type SecretsVault } from '../../src/index.js';
import {
  auditEntry,
  createClient,
  invitation,
  noContent,
  ok,
  organization,
  orgMember,
  route,
  type SeenRequest,
  secret,
  TOKEN,
  team,
  teamMember,
  vault,
  vaultMember,
} from '../helpers.js';
import { SUCCESS_ANSWERS } from './resource-helpers.js';

type Method = 'get' | 'post' | 'patch' | 'delete';

interface Case {
  /** The call as a user writes it. */
  readonly call: string;
  readonly run: (
    client: SecretsVault,
    options?: { idempotencyKey: string },
  ) => PromiseLike<unknown>;
  readonly method: Method;
  /** MSW pattern under /v1. */
  readonly pattern: string;
  /** The path the server must see, still percent-encoded. */
  readonly rawPath: string;
  readonly body?: unknown;
  readonly idempotent: boolean;
  /** What the server answers: `data` (or nothing for 204), and 201 for creates. */
  readonly answer?: { data: unknown; status?: 200 | 201; list?: boolean };
  /** What the caller gets. */
  readonly expected: unknown;
}

const secretWithValue = { ...secret(), value: { username: 'app', password: 'pw-123456' } };
const ID = 'a/b?x';
const ENCODED = 'a%2Fb%3Fx';

const cases: Case[] = [
  {
    call: 'vaults.list',
    run: (c) => c.vaults.list(),
    method: 'get',
    pattern: '/vaults',
    rawPath: '/v1/vaults',
    idempotent: false,
    answer: { data: [vault()], list: true },
    expected: [vault()],
  },
  {
    call: 'vaults.create',
    run: (c, o) =>
      c.vaults.create({ name: 'Payments', team_id: null, icon_index: 2, color: '#A1b2C3' }, o),
    method: 'post',
    pattern: '/vaults',
    rawPath: '/v1/vaults',
    body: { name: 'Payments', team_id: null, icon_index: 2, color: '#A1b2C3' },
    idempotent: true,
    answer: { data: vault(), status: 201 },
    expected: vault(),
  },
  {
    call: 'vaults.get',
    run: (c, o) => c.vaults.get(ID, o),
    method: 'get',
    pattern: '/vaults/:id',
    rawPath: `/v1/vaults/${ENCODED}`,
    idempotent: false,
    answer: { data: vault() },
    expected: vault(),
  },
  {
    call: 'vaults.update',
    run: (c, o) => c.vaults.update(ID, { name: 'Renamed', team_id: null }, o),
    method: 'patch',
    pattern: '/vaults/:id',
    rawPath: `/v1/vaults/${ENCODED}`,
    body: { name: 'Renamed', team_id: null },
    idempotent: false,
    answer: { data: vault({ name: 'Renamed' }) },
    expected: vault({ name: 'Renamed' }),
  },
  {
    call: 'vaults.delete',
    run: (c, o) => c.vaults.delete(ID, o),
    method: 'delete',
    pattern: '/vaults/:id',
    rawPath: `/v1/vaults/${ENCODED}`,
    idempotent: false,
    expected: undefined,
  },
  {
    call: 'vaults.members.list',
    run: (c) => c.vaults.members.list(ID),
    method: 'get',
    pattern: '/vaults/:id/members',
    rawPath: `/v1/vaults/${ENCODED}/members`,
    idempotent: false,
    answer: { data: [vaultMember()], list: true },
    expected: [vaultMember()],
  },
  {
    call: 'vaults.members.create',
    run: (c, o) => c.vaults.members.create(ID, { user_id: 'usr_1', role: 'editor' }, o),
    method: 'post',
    pattern: '/vaults/:id/members',
    rawPath: `/v1/vaults/${ENCODED}/members`,
    body: { user_id: 'usr_1', role: 'editor' },
    idempotent: true,
    answer: { data: vaultMember(), status: 201 },
    expected: vaultMember(),
  },
  {
    call: 'vaults.members.update',
    run: (c, o) => c.vaults.members.update(ID, 'm/1', { role: 'admin' }, o),
    method: 'patch',
    pattern: '/vaults/:id/members/:memberId',
    rawPath: `/v1/vaults/${ENCODED}/members/m%2F1`,
    body: { role: 'admin' },
    idempotent: false,
    answer: { data: { id: 'vm_1', vault_id: 'vlt_1', role: 'admin' } },
    expected: { id: 'vm_1', vault_id: 'vlt_1', role: 'admin' },
  },
  {
    call: 'vaults.members.delete',
    run: (c, o) => c.vaults.members.delete(ID, 'm/1', o),
    method: 'delete',
    pattern: '/vaults/:id/members/:memberId',
    rawPath: `/v1/vaults/${ENCODED}/members/m%2F1`,
    idempotent: false,
    expected: undefined,
  },
  {
    call: 'secrets.list',
    run: (c) => c.secrets.list(ID),
    method: 'get',
    pattern: '/vaults/:id/secrets',
    rawPath: `/v1/vaults/${ENCODED}/secrets`,
    idempotent: false,
    answer: { data: [secret()], list: true },
    expected: [secret()],
  },
  {
    call: 'secrets.create',
    run: (c, o) =>
      c.secrets.create(
        ID,
        {
          name: 'db',
          value: { username: 'app', password: 'pw-123456' },
          type: 'login',
          expired_at: '2027-01-01T00:00:00.000Z',
          delete_after_expired: true,
        },
        o,
      ),
    method: 'post',
    pattern: '/vaults/:id/secrets',
    rawPath: `/v1/vaults/${ENCODED}/secrets`,
    body: {
      name: 'db',
      value: { username: 'app', password: 'pw-123456' },
      type: 'login',
      expired_at: '2027-01-01T00:00:00.000Z',
      delete_after_expired: true,
    },
    idempotent: true,
    answer: { data: secret(), status: 201 },
    expected: secret(),
  },
  {
    call: 'secrets.update',
    run: (c, o) => c.secrets.update(ID, { value: { password: 'new-pw-654321' } }, o),
    method: 'patch',
    pattern: '/secrets/:id',
    rawPath: `/v1/secrets/${ENCODED}`,
    body: { value: { password: 'new-pw-654321' } },
    idempotent: false,
    answer: { data: secret() },
    expected: secret(),
  },
  {
    call: 'secrets.delete',
    run: (c, o) => c.secrets.delete(ID, o),
    method: 'delete',
    pattern: '/secrets/:id',
    rawPath: `/v1/secrets/${ENCODED}`,
    idempotent: false,
    expected: undefined,
  },
  {
    call: 'secrets.getValue',
    run: (c, o) => c.secrets.getValue(ID, o),
    method: 'get',
    pattern: '/secrets/:id/value',
    rawPath: `/v1/secrets/${ENCODED}/value`,
    idempotent: false,
    answer: { data: secretWithValue },
    expected: secretWithValue,
  },
  {
    call: 'secrets.listValues',
    run: (c, o) => c.secrets.listValues(ID, o),
    method: 'get',
    pattern: '/vaults/:id/secrets/values',
    rawPath: `/v1/vaults/${ENCODED}/secrets/values`,
    idempotent: false,
    answer: { data: [secretWithValue] },
    expected: [secretWithValue],
  },
  {
    call: 'teams.list',
    run: (c) => c.teams.list(),
    method: 'get',
    pattern: '/teams',
    rawPath: '/v1/teams',
    idempotent: false,
    answer: { data: [team()], list: true },
    expected: [team()],
  },
  {
    call: 'teams.create',
    run: (c, o) => c.teams.create({ name: 'Platform' }, o),
    method: 'post',
    pattern: '/teams',
    rawPath: '/v1/teams',
    body: { name: 'Platform' },
    idempotent: true,
    answer: { data: team(), status: 201 },
    expected: team(),
  },
  {
    call: 'teams.get',
    run: (c, o) => c.teams.get(ID, o),
    method: 'get',
    pattern: '/teams/:id',
    rawPath: `/v1/teams/${ENCODED}`,
    idempotent: false,
    answer: { data: team() },
    expected: team(),
  },
  {
    call: 'teams.update',
    run: (c, o) => c.teams.update(ID, { icon_index: 4, color: '#22C55E' }, o),
    method: 'patch',
    pattern: '/teams/:id',
    rawPath: `/v1/teams/${ENCODED}`,
    body: { icon_index: 4, color: '#22C55E' },
    idempotent: false,
    answer: { data: team() },
    expected: team(),
  },
  {
    call: 'teams.delete',
    run: (c, o) => c.teams.delete(ID, o),
    method: 'delete',
    pattern: '/teams/:id',
    rawPath: `/v1/teams/${ENCODED}`,
    idempotent: false,
    expected: undefined,
  },
  {
    call: 'teams.members.list',
    run: (c) => c.teams.members.list(ID),
    method: 'get',
    pattern: '/teams/:id/members',
    rawPath: `/v1/teams/${ENCODED}/members`,
    idempotent: false,
    answer: { data: [teamMember()], list: true },
    expected: [teamMember()],
  },
  {
    call: 'teams.members.create',
    run: (c, o) => c.teams.members.create(ID, { user_id: 'usr_1' }, o),
    method: 'post',
    pattern: '/teams/:id/members',
    rawPath: `/v1/teams/${ENCODED}/members`,
    body: { user_id: 'usr_1' },
    idempotent: true,
    answer: { data: teamMember(), status: 201 },
    expected: teamMember(),
  },
  {
    call: 'teams.members.delete',
    run: (c, o) => c.teams.members.delete(ID, 'm/1', o),
    method: 'delete',
    pattern: '/teams/:id/members/:memberId',
    rawPath: `/v1/teams/${ENCODED}/members/m%2F1`,
    idempotent: false,
    expected: undefined,
  },
  {
    call: 'org.get',
    run: (c, o) => c.org.get(o),
    method: 'get',
    pattern: '/org',
    rawPath: '/v1/org',
    idempotent: false,
    answer: { data: organization() },
    expected: organization(),
  },
  {
    call: 'org.members.list',
    run: (c) => c.org.members.list(),
    method: 'get',
    pattern: '/org/members',
    rawPath: '/v1/org/members',
    idempotent: false,
    answer: { data: [orgMember()], list: true },
    expected: [orgMember()],
  },
  {
    call: 'org.members.update',
    run: (c, o) => c.org.members.update(ID, { role: 'owner' }, o),
    method: 'patch',
    pattern: '/org/members/:id',
    rawPath: `/v1/org/members/${ENCODED}`,
    body: { role: 'owner' },
    idempotent: false,
    answer: { data: orgMember({ role: 'owner' }) },
    expected: orgMember({ role: 'owner' }),
  },
  {
    call: 'org.members.delete',
    run: (c, o) => c.org.members.delete(ID, o),
    method: 'delete',
    pattern: '/org/members/:id',
    rawPath: `/v1/org/members/${ENCODED}`,
    idempotent: false,
    expected: undefined,
  },
  {
    call: 'org.invitations.list',
    run: (c) => c.org.invitations.list(),
    method: 'get',
    pattern: '/org/invitations',
    rawPath: '/v1/org/invitations',
    idempotent: false,
    answer: { data: [invitation()], list: true },
    expected: [invitation()],
  },
  {
    call: 'org.invitations.create',
    run: (c, o) => c.org.invitations.create({ email: 'grace@example.com', role: 'member' }, o),
    method: 'post',
    pattern: '/org/invitations',
    rawPath: '/v1/org/invitations',
    body: { email: 'grace@example.com', role: 'member' },
    idempotent: true,
    answer: { data: invitation(), status: 201 },
    expected: invitation(),
  },
  {
    call: 'audit.list',
    run: (c) => c.audit.list(),
    method: 'get',
    pattern: '/audit',
    rawPath: '/v1/audit',
    idempotent: false,
    answer: { data: [auditEntry()], list: true },
    expected: [auditEntry()],
  },
];

function answer(testCase: Case): Response {
  if (testCase.answer === undefined) return noContent();
  const { data, status, list } = testCase.answer;
  return ok(data, { ...(status ? { status } : {}), ...(list ? { nextCursor: null } : {}) });
}

/** Awaits a call; a list resolves to its first page's items. */
async function resultOf(result: PromiseLike<unknown>): Promise<unknown> {
  const value = await result;
  return typeof value === 'object' && value !== null && 'nextCursor' in value && 'data' in value
    ? value.data
    : value;
}

function expectCommonHeaders(request: SeenRequest | undefined, hasBody: boolean): void {
  expect(request?.headers.get('authorization')).toBe(`Bearer ${TOKEN}`);
  expect(request?.headers.get('accept')).toBe('application/json');
  expect(request?.headers.get('content-type')).toBe(hasBody ? 'application/json' : null);
}

describe('every method on the wire', () => {
  it.each(cases)(
    '$call sends what the contract says and returns the unwrapped data',
    async (testCase) => {
      const seen = route(testCase.method, testCase.pattern, () => answer(testCase));
      const value = await resultOf(testCase.run(createClient()));

      expect(value).toEqual(testCase.expected);
      expect(seen).toHaveLength(1);
      const [request] = seen;
      expect(request?.method).toBe(testCase.method.toUpperCase());
      expect(request?.rawPath).toBe(testCase.rawPath);
      expect(request?.url.search).toBe('');
      expectCommonHeaders(request, testCase.body !== undefined);
      expect(request?.body).toEqual(testCase.body);
      if (testCase.idempotent) {
        expect(request?.headers.get('idempotency-key')).toMatch(
          /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
        );
      } else {
        expect(request?.headers.has('idempotency-key')).toBe(false);
      }
    },
  );

  const withOptions = cases.filter((testCase) => !testCase.answer?.list);

  it.each(withOptions)(
    '$call sends the caller idempotency key only if it creates',
    async (testCase) => {
      const seen = route(testCase.method, testCase.pattern, () => answer(testCase));
      await testCase.run(createClient(), { idempotencyKey: 'caller-key/42' });
      expect(seen[0]?.headers.get('idempotency-key')).toBe(
        testCase.idempotent ? 'caller-key/42' : null,
      );
    },
  );

  const creates = cases.filter((testCase) => testCase.idempotent);

  it.each(creates)('$call generates a fresh key per call', async (testCase) => {
    const seen = route(testCase.method, testCase.pattern, () => answer(testCase));
    const client = createClient();
    await testCase.run(client);
    await testCase.run(client);
    const [first, second] = seen.map((request) => request.headers.get('idempotency-key'));
    expect(first).not.toBe(second);
  });

  const createAnswers = creates.flatMap((testCase) =>
    SUCCESS_ANSWERS.map((answered) => ({ ...testCase, ...answered })),
  );

  it.each(createAnswers)(
    '$call accepts $status (Location: $location) as success',
    async ({ status, location, ...testCase }) => {
      route(testCase.method, testCase.pattern, () =>
        ok(testCase.answer?.data, { status, headers: location ? { Location: '/v1/x/1' } : {} }),
      );
      await expect(testCase.run(createClient())).resolves.toEqual(testCase.expected);
    },
  );

  it.each(creates)(
    '$call reports replayed and the request id from withResponse()',
    async (testCase) => {
      const answers = [
        ok(testCase.answer?.data, { status: 201, headers: { 'Idempotent-Replayed': 'true' } }),
        ok(testCase.answer?.data, { status: 201 }),
      ];
      const requestIds = answers.map((response) => response.headers.get('x-request-id'));
      route(testCase.method, testCase.pattern, (call) => answers[Math.min(call, 1)] as Response);
      const client = createClient();
      const replayed = await (testCase.run(client) as APIPromise<unknown>).withResponse();
      const fresh = await (testCase.run(client) as APIPromise<unknown>).withResponse();
      expect(replayed.data).toEqual(testCase.expected);
      expect(replayed.replayed).toBe(true);
      expect(replayed.requestId).toBe(requestIds[0]);
      expect(fresh.replayed).toBe(false);
      expect(fresh.requestId).toBe(requestIds[1]);
    },
  );

  it.each(creates)('$call refuses an invalid caller key before sending', async (testCase) => {
    const seen = route(testCase.method, testCase.pattern, () => answer(testCase));
    for (const idempotencyKey of ['', 'k'.repeat(256), 'clé', 'line\nbreak', ' padded']) {
      const error = await Promise.resolve(testCase.run(createClient(), { idempotencyKey })).catch(
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(RequestValidationError);
      expect((error as RequestValidationError).issues[0]?.path).toEqual(['idempotencyKey']);
    }
    expect(seen).toHaveLength(0);
  });

  it('accepts a 255-character printable key', async () => {
    const seen = route('post', '/teams', () => ok(team(), { status: 201 }));
    const key = `${'~'.repeat(127)} ${'!'.repeat(127)}`;
    await createClient().teams.create({ name: 'x' }, { idempotencyKey: key });
    expect(seen[0]?.headers.get('idempotency-key')).toBe(key);
  });
});

describe('path parameters', () => {
  it.each([
    ['../org', '..%2Forg'],
    ['a/b?x', 'a%2Fb%3Fx'],
    ['%2F', '%252F'],
    ['héllo wörld', 'h%C3%A9llo%20w%C3%B6rld'],
    ['#frag', '%23frag'],
  ])('keeps the id %j inside its one segment as %s', async (id, encoded) => {
    const seen = route('get', '/vaults/:id', () => ok(vault()));
    await createClient().vaults.get(id);
    expect(seen[0]?.rawPath).toBe(`/v1/vaults/${encoded}`);
  });

  it.each(['', '.', '..'])('refuses the id %j, which would leave its route', async (id) => {
    const seen = route('get', '/vaults/:id/members', () => ok([], { nextCursor: null }));
    const error = await createClient()
      .vaults.members.list(id)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).issues[0]?.path).toEqual(['vaultId']);
    expect(seen).toHaveLength(0);
  });
});

describe('query parameters', () => {
  it('sends limit, cursor and the audit filters, cursor byte for byte', async () => {
    const seen = route('get', '/audit', () => ok([], { nextCursor: null }));
    const cursor = 'a+b/c=d%e f&g';
    await createClient().audit.list({
      limit: 25,
      cursor,
      action: 'vault.secret_value.read',
      resource: 'secret:sec 1',
    });
    const params = seen[0]?.url.searchParams;
    expect(params?.get('limit')).toBe('25');
    expect(params?.get('cursor')).toBe(cursor);
    expect(params?.get('action')).toBe('vault.secret_value.read');
    expect(params?.get('resource')).toBe('secret:sec 1');
  });
});
