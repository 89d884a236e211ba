/**
 * Input that breaks the contract's own rules is refused before anything is sent, with a
 * RequestValidationError naming the field; responses are read tolerantly (new fields, new values
 * of open strings).
 */
import { http } from 'msw';
import { describe, expect, it } from 'vitest';
import { RequestValidationError, type SecretsVault } from '../../src/index.js';
import {
  API,
  auditEntry,
  createClient,
  invitation,
  ok,
  organization,
  orgMember,
  route,
  secret,
  server,
  vault,
} from '../helpers.js';

interface Invalid {
  readonly name: string;
  readonly run: (client: SecretsVault) => PromiseLike<unknown>;
  readonly path: ReadonlyArray<string | number>;
}

const bad = <T>(value: unknown) => value as T;
const SECRET_STRING = 'do-not-echo-this-secret-42';

const invalid: Invalid[] = [
  { name: 'limit 0', run: (c) => c.vaults.list({ limit: 0 }), path: ['limit'] },
  { name: 'limit 101', run: (c) => c.secrets.list('v', { limit: 101 }), path: ['limit'] },
  { name: 'limit 1.5', run: (c) => c.audit.list({ limit: 1.5 }), path: ['limit'] },
  { name: 'limit as a string', run: (c) => c.teams.list(bad({ limit: '10' })), path: ['limit'] },
  { name: 'empty cursor', run: (c) => c.org.members.list({ cursor: '' }), path: ['cursor'] },
  { name: 'vault without name', run: (c) => c.vaults.create(bad({})), path: ['name'] },
  {
    name: 'vault colour red',
    run: (c) => c.vaults.create({ name: 'v', color: 'red' }),
    path: ['color'],
  },
  {
    name: 'vault colour #12345',
    run: (c) => c.vaults.update('v', { color: '#12345' }),
    path: ['color'],
  },
  {
    name: 'vault icon 1.5',
    run: (c) => c.vaults.update('v', { icon_index: 1.5 }),
    path: ['icon_index'],
  },
  {
    name: 'vault team_id 7',
    run: (c) => c.vaults.update('v', bad({ team_id: 7 })),
    path: ['team_id'],
  },
  { name: 'team colour', run: (c) => c.teams.update('t', { color: 'blue' }), path: ['color'] },
  { name: 'team without name', run: (c) => c.teams.create(bad({})), path: ['name'] },
  {
    name: 'member without user_id',
    run: (c) => c.vaults.members.create('v', bad({ role: 'member' })),
    path: ['user_id'],
  },
  {
    name: 'member role owner',
    run: (c) => c.vaults.members.create('v', bad({ user_id: 'u', role: 'owner' })),
    path: ['role'],
  },
  {
    name: 'member update without role',
    run: (c) => c.vaults.members.update('v', 'm', bad({})),
    path: ['role'],
  },
  {
    name: 'team member without user_id',
    run: (c) => c.teams.members.create('t', bad({})),
    path: ['user_id'],
  },
  {
    name: 'org member without role',
    run: (c) => c.org.members.update('m', bad({})),
    path: ['role'],
  },
  {
    name: 'invitation without email',
    run: (c) => c.org.invitations.create(bad({ role: 'member' })),
    path: ['email'],
  },
  {
    name: 'invitation role owner',
    run: (c) => c.org.invitations.create({ email: 'a@b.c', role: 'owner' }),
    path: ['role'],
  },
  {
    name: 'secret without value',
    run: (c) => c.secrets.create('v', bad({ name: 'n' })),
    path: ['value'],
  },
  {
    name: 'secret value an array',
    run: (c) => c.secrets.create('v', bad({ name: 'n', value: [SECRET_STRING] })),
    path: ['value'],
  },
  {
    name: 'secret value with a number',
    run: (c) => c.secrets.create('v', bad({ name: 'n', value: { a: SECRET_STRING, port: 5432 } })),
    path: ['value', 'port'],
  },
  {
    name: 'secret value nested',
    run: (c) => c.secrets.update('s', bad({ value: { db: { password: SECRET_STRING } } })),
    path: ['value', 'db'],
  },
  {
    name: 'secret body over 1 MB',
    run: (c) => c.secrets.create('v', { name: 'n', value: { blob: 'x'.repeat(1_000_001) } }),
    path: [],
  },
];

describe('input checked before sending', () => {
  it.each(invalid)('refuses $name, naming the field, and sends nothing', async ({ run, path }) => {
    const seen: string[] = [];
    server.use(
      http.all(`${API}/*`, ({ request }) => {
        seen.push(request.url);
        return ok(null);
      }),
    );
    const error = await Promise.resolve(run(createClient())).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(RequestValidationError);
    const issues = (error as RequestValidationError).issues;
    expect(issues.map((issue) => issue.path)).toContainEqual(path);
    const label = path.length > 0 ? `${path.join('.')}: ` : '';
    expect((error as Error).message).toContain(label);
    expect((error as Error).message).not.toContain(SECRET_STRING);
    expect(seen).toEqual([]);
  });

  it('accepts a body just under 1 MB', async () => {
    const seen = route('post', '/vaults/:id/secrets', () => ok(secret(), { status: 201 }));
    const overhead = JSON.stringify({ name: 'n', value: { blob: '' } }).length;
    await createClient().secrets.create('v', {
      name: 'n',
      value: { blob: 'x'.repeat(1_000_000 - overhead) },
    });
    expect(seen).toHaveLength(1);
  });

  it('reports every broken rule at once', async () => {
    const error = await createClient()
      .vaults.create(bad({ name: 3, color: 'red', icon_index: 'x' }))
      .catch((caught: unknown) => caught);
    const paths = (error as RequestValidationError).issues.map((issue) => issue.path.join('.'));
    expect(paths).toEqual(expect.arrayContaining(['name', 'color', 'icon_index']));
  });
});

describe('responses read tolerantly', () => {
  it('keeps working when data carries fields the SDK does not know, and keeps them', async () => {
    route('get', '/vaults/:id', () => ok(vault({ description: 'new field', labels: ['a'] })));
    const result = await createClient().vaults.get('vlt_1');
    expect(result.name).toBe('Payments');
    expect((result as unknown as { description: string }).description).toBe('new field');
  });

  it('accepts values of open strings it has never seen', async () => {
    route('get', '/org', () => ok(organization({ plan: 'galactic' })));
    route('get', '/org/members', () =>
      ok([orgMember({ status: 'on_leave', role: 'auditor' })], { nextCursor: null }),
    );
    route('get', '/org/invitations', () =>
      ok([invitation({ status: 'bounced' })], { nextCursor: null }),
    );
    route('get', '/audit', () =>
      ok([auditEntry({ action: 'vault.secret.rotate', type: 'admin' })], { nextCursor: null }),
    );
    route('get', '/vaults/:id/secrets', () =>
      ok([secret({ type: 'ssh_key' })], { nextCursor: null }),
    );
    const client = createClient();
    expect((await client.org.get()).plan).toBe('galactic');
    expect((await client.org.members.list()).data[0]?.status).toBe('on_leave');
    expect((await client.org.invitations.list()).data[0]?.status).toBe('bounced');
    expect((await client.audit.list()).data[0]?.action).toBe('vault.secret.rotate');
    expect((await client.secrets.list('v')).data[0]?.type).toBe('ssh_key');
  });
});
