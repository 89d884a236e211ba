/**
 * `secrets-vault mock` steered as a suite in another language steers it: the command as the
 * package ships it (`dist/cli.js`), its dotenv lines read from stdout, the principals' tokens
 * used as bearers, and its control endpoint (faults, clock, reset) called over real HTTP.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { InternalServerError, SecretsVault } from '../../src/index.js';
import { createVaultMock } from '../../src/mock/index.js';
import { ensureBuilt } from './built.js';
import { finished, launch } from './harness.js';

const CLI = resolve('dist/cli.js');
// The principals as MockPrincipals names them, and the variables the command prints for them.
const PRINCIPALS = Object.keys(createVaultMock().principals);
const variableOf = (name: string) =>
  `SECRETS_VAULT_TOKEN_${name
    .replace(/Key$/, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toUpperCase()}`;

// The command is a child process whatever the suite's transport: one run of this file is enough.
const ONCE = process.env.SECRETS_VAULT_TRANSPORT !== 'fetch';
const children: ChildProcess[] = [];

beforeAll(async () => {
  if (ONCE) await ensureBuilt();
}, 300_000);
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

/** A started mock: its variables, by name, once its last line (the control URL) is out. */
interface Served {
  readonly child: ChildProcess;
  readonly env: Record<string, string>;
  /** The variables in the order they are printed. */
  readonly names: readonly string[];
  readonly base: string;
  readonly control: string;
  readonly owner: string;
}

/** Starts `secrets-vault mock --port 0 <args>` and reads its lines up to the control URL. */
async function serve(...args: string[]): Promise<Served> {
  const child = launch(CLI, ['mock', '--port', '0', ...args], {
    env: { PATH: process.env.PATH },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const text = await new Promise<string>((resolve, reject) => {
    let seen = '';
    child.stdout?.on('data', (chunk) => {
      seen += chunk;
      if (/^SECRETS_VAULT_MOCK_CONTROL=.*\n/m.test(seen)) resolve(seen);
    });
    child.once('exit', (code) => reject(new Error(`the mock ended (${code}): ${seen}`)));
  });
  const env = parseEnv(text) as Record<string, string>;
  return {
    child,
    env,
    names: text.split('\n').flatMap((line) => (line === '' ? [] : [line.split('=')[0] ?? ''])),
    base: env.SECRETS_VAULT_BASE_URL ?? '',
    control: env.SECRETS_VAULT_MOCK_CONTROL ?? '',
    owner: env.SECRETS_VAULT_TOKEN ?? '',
  };
}

async function stop({ child }: Served): Promise<void> {
  child.kill('SIGTERM');
  expect((await finished(child)).code).toBe(0);
}

/** A call to the control endpoint (or anywhere): status and parsed JSON body, if any. */
async function call(
  url: string,
  method: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: unknown; headers: Headers }> {
  const response = await fetch(url, {
    method,
    headers,
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    body: text === '' ? undefined : JSON.parse(text),
    headers: response.headers,
  };
}

const clientOf = (served: Served, token = served.owner) =>
  new SecretsVault({ baseUrl: served.base, token, maxRetries: 0, logLevel: 'off' });

/** The ids a fresh mock shows its owner: the organization's and its members'. */
async function seededIds(served: Served): Promise<string[]> {
  const client = clientOf(served);
  const org = await client.org.get();
  const members = await client.org.members.list().toArray();
  return [org.id, ...members.map((member) => member.id)];
}

describe.runIf(ONCE)('secrets-vault mock, steered over HTTP', () => {
  it('prints a token line for every principal, each a working bearer, then the control URL', async () => {
    const served = await serve();
    const { names } = served;
    expect(names).toEqual([
      'SECRETS_VAULT_BASE_URL',
      'SECRETS_VAULT_TOKEN',
      ...PRINCIPALS.map(variableOf),
      'SECRETS_VAULT_MOCK_CONTROL',
    ]);
    expect(names).toContain('SECRETS_VAULT_TOKEN_OWNER');
    expect(names).toContain('SECRETS_VAULT_TOKEN_ADMIN');
    expect(served.env.SECRETS_VAULT_TOKEN_OWNER).toBe(served.owner);
    expect(served.control).toMatch(
      new RegExp(`^${served.base.replace(/[.]/g, '\\.')}/_mock/[A-Za-z0-9_-]{43}$`),
    );

    const orgs = new Map<string, string>();
    for (const name of PRINCIPALS) {
      const org = await clientOf(served, served.env[variableOf(name)]).org.get();
      orgs.set(name, org.name);
    }
    expect(Object.fromEntries(orgs)).toEqual({
      owner: 'Acme',
      adminKey: 'Acme',
      member: 'Acme',
      outsider: 'Globex',
      colleague: 'Acme',
    });
    await stop(served);
  });

  it('answers the control endpoint only with its token, as if nothing were there otherwise', async () => {
    const served = await serve();
    const client = clientOf(served);
    await client.vaults.create({ name: 'kept' });
    const token = served.control.slice(served.control.lastIndexOf('/') + 1);
    const wrong = [
      `${served.base}/_mock/reset`,
      `${served.base}/_mock//reset`,
      `${served.base}/_mock/${token.slice(0, -1)}/reset`,
      `${served.base}/_mock/${token}x/reset`,
      `${served.base}/_mock/${token.toLowerCase()}/reset`,
    ];
    for (const url of wrong) {
      const answer = await call(url, 'POST', {}, { authorization: `Bearer ${served.owner}` });
      expect(answer.status).toBe(404);
      expect(answer.body).toEqual({
        statusCode: 404,
        errorCode: 'not_found',
        message: 'No such route',
        data: null,
      });
      // Its body unread: the connection ends with the answer.
      expect(answer.headers.get('connection')).toBe('close');
    }
    // The same answer as any path outside /v1.
    expect((await call(`${served.base}/elsewhere`, 'GET')).body).toMatchObject({
      message: 'No such route',
    });
    // Nothing was reset.
    expect((await client.vaults.list().toArray()).map((vault) => vault.name)).toEqual(['kept']);
    await stop(served);
  });

  it('is not reachable under /v1, where the routes of the API are', async () => {
    const served = await serve();
    const client = clientOf(served);
    await client.vaults.create({ name: 'kept' });
    const path = new URL(served.control).pathname;
    for (const url of [`${served.base}/v1${path}/reset`, `${served.base}/v1/${path}/reset`]) {
      const answer = await call(url, 'POST', {}, { authorization: `Bearer ${served.owner}` });
      expect(answer.status).toBe(404);
    }
    const fault = await call(`${served.base}/v1${path}/faults`, 'POST', {
      path: '/v1/vaults',
      fault: { kind: 'status', status: 503 },
    });
    // A body without a bearer under /v1 is refused before it is read, as always.
    expect(fault.status).toBe(401);
    expect((await client.vaults.list().toArray()).map((vault) => vault.name)).toEqual(['kept']);
    await stop(served);
  });

  it('injects a 503 that a real client sees, until it is deleted', async () => {
    const served = await serve();
    const client = clientOf(served);
    const injected = await call(`${served.control}/faults`, 'POST', {
      method: 'GET',
      path: '/v1/vaults',
      fault: { kind: 'status', status: 503 },
    });
    expect(injected.status).toBe(201);
    const { id } = injected.body as { id: string };
    expect(id).toMatch(/^\S+$/);

    const failure = await client.vaults
      .list()
      .toArray()
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(InternalServerError);
    expect((failure as InternalServerError).status).toBe(503);
    await expect(client.vaults.list().toArray()).rejects.toBeInstanceOf(InternalServerError);
    // Only GET: a create goes through.
    await client.vaults.create({ name: 'created' });
    expect((await call(`${served.control}/faults/${id}`, 'GET')).body).toEqual({ id, hits: 2 });

    expect((await call(`${served.control}/faults/${id}`, 'DELETE')).status).toBe(204);
    expect(await client.vaults.list().toArray()).toHaveLength(1);
    expect((await call(`${served.control}/faults/${id}`, 'DELETE')).status).toBe(404);
    await stop(served);
  });

  it('ends a fault after `times` requests', async () => {
    const served = await serve();
    const client = clientOf(served);
    await call(`${served.control}/faults`, 'POST', {
      path: '/v1/vaults',
      times: 1,
      fault: { kind: 'status', status: 503, retryAfter: 0 },
    });
    const first = await fetch(`${served.base}/v1/vaults`, {
      headers: { authorization: `Bearer ${served.owner}` },
    });
    expect(first.status).toBe(503);
    expect(first.headers.get('retry-after')).toBe('0');
    expect(await first.json()).toMatchObject({ errorCode: 'internal_error' });
    expect(await client.vaults.list().toArray()).toEqual([]);
    await stop(served);
  });

  it('refuses a malformed control request with 400 and a message that says what is wrong', async () => {
    const served = await serve();
    const faults = `${served.control}/faults`;
    const cases: Array<[unknown, string]> = [
      ['{"path": "/v1/vaults", ', 'The request body must be JSON'],
      [
        { path: '/v1/vaults', fault: { kind: 'timeout' } },
        'fault.kind: must be an object whose `kind` is one of network-error, network-error-after-commit, status, delay, hold',
      ],
      [
        { path: '/v1/vaults', fault: { kind: 'status', status: 503, retry_after: 1 } },
        'fault: unknown field retry_after',
      ],
      [
        { path: '/v1/vaults', fault: { kind: 'status', status: 200 } },
        'fault.status: must be an HTTP status from 400 to 599',
      ],
      [{ fault: { kind: 'hold' } }, 'path: is required'],
      [
        { path: '/v1/vaults', times: 0, fault: { kind: 'hold' } },
        'times: must be a count from 1 to 1000000',
      ],
    ];
    for (const [body, message] of cases) {
      const answer = await call(faults, 'POST', body);
      expect({ status: answer.status, body: answer.body }).toEqual({
        status: 400,
        body: { statusCode: 400, errorCode: 'bad_request', message, data: null },
      });
    }
    for (const advanceMs of [-1, '5', 1e300, null]) {
      const answer = await call(`${served.control}/clock`, 'POST', { advanceMs });
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({
        message: 'advanceMs: must be milliseconds from 0 to 315360000000',
      });
    }
    // Bodies are bounded: 64 KiB.
    const huge = await call(faults, 'POST', ' '.repeat(64 * 1024 + 1));
    expect(huge.status).toBe(413);
    expect((await call(`${served.control}/nothing`, 'POST', {})).status).toBe(404);
    await stop(served);
  });

  it("moves the mock's clock: an invitation expires 7 days after it is made", async () => {
    const served = await serve();
    const client = clientOf(served);
    const invitation = await client.org.invitations.create({
      email: 'new@acme.test',
      role: 'member',
    });
    expect(invitation.status).toBe('pending');
    const sevenDays = 7 * 24 * 60 * 60 * 1000;
    const moved = await call(`${served.control}/clock`, 'POST', { advanceMs: sevenDays - 60_000 });
    expect(moved.status).toBe(200);
    const { now } = moved.body as { now: string };
    expect(Date.parse(now)).toBeGreaterThanOrEqual(
      Date.parse(invitation.created_at) + sevenDays - 60_000,
    );
    expect((await client.org.invitations.list().toArray())[0]?.status).toBe('pending');
    await call(`${served.control}/clock`, 'POST', { advanceMs: 60_000 });
    expect((await client.org.invitations.list().toArray())[0]?.status).toBe('expired');
    await stop(served);
  });

  it('resets to the seeded state, with the same ids, the clock back and no faults', async () => {
    const served = await serve();
    const client = clientOf(served);
    const seeded = await seededIds(served);
    const first = await client.vaults.create({ name: 'first' });
    await client.vaults.create({ name: 'second' });
    await call(`${served.control}/clock`, 'POST', { advanceMs: 30 * 24 * 60 * 60 * 1000 });
    await call(`${served.control}/faults`, 'POST', {
      method: 'DELETE',
      path: '/v1/vaults/:vaultId',
      fault: { kind: 'status', status: 500 },
    });

    const reset = await call(`${served.control}/reset`, 'POST');
    expect(reset.status).toBe(204);
    // The same requests after a reset make the same ids (each request's audit entry has one).
    expect(await seededIds(served)).toEqual(seeded);
    const again = await client.vaults.create({ name: 'first' });
    expect(again.id).toBe(first.id);
    expect((await client.vaults.list().toArray()).map((vault) => vault.name)).toEqual(['first']);
    expect(Math.abs(Date.parse(again.created_at) - Date.now())).toBeLessThan(60_000);
    await client.vaults.delete(again.id);
    await stop(served);
  });

  it('gives the same ids on every start with --seed, and other ones without', async () => {
    const starts = [];
    for (const args of [['--seed', '7'], ['--seed', '7'], ['--seed', '8'], []]) {
      const served = await serve(...args);
      const ids = await seededIds(served);
      const vault = await clientOf(served).vaults.create({ name: 'app' });
      starts.push([...ids, vault.id]);
      await stop(served);
    }
    const [seven, sevenAgain, eight, unseeded] = starts;
    expect(seven).toEqual(sevenAgain);
    expect(seven).toHaveLength(5);
    for (const other of [eight, unseeded]) {
      expect(other?.filter((id) => seven?.includes(id))).toEqual([]);
    }
  });

  it('gives the same vault ids on every start from one seed file, and again after a reset', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'secrets-vault-seed-'));
    try {
      const file = join(directory, 'seed.json');
      writeFileSync(
        file,
        JSON.stringify({ vaults: [{ name: 'app', secrets: { db: { url: 'postgres://seed' } } }] }),
      );
      const first = await serve('--seed', file);
      const second = await serve('--seed', file);
      expect(first.env.VAULT_APP).toMatch(/^[0-9a-f-]{36}$/);
      expect(second.env.VAULT_APP).toBe(first.env.VAULT_APP);
      const client = clientOf(first);
      const vaultId = first.env.VAULT_APP ?? '';
      await client.secrets.create(vaultId, { name: 'extra', value: { a: 'b' } });
      await call(`${first.control}/reset`, 'POST');
      const values = await client.secrets.listValues(vaultId);
      expect(values.map((secret) => [secret.name, secret.value])).toEqual([
        ['db', { url: 'postgres://seed' }],
      ]);
      await stop(first);
      await stop(second);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('refuses a --seed that is neither an integer it takes nor a file', async () => {
    const tooLarge = await finished(
      launch(CLI, ['mock', '--port', '0', '--seed', '9007199254740992'], {
        env: { PATH: process.env.PATH },
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    expect(tooLarge).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'secrets-vault: --seed takes an integer from 0 to 9007199254740991, or a file (see secrets-vault mock --help)\n',
    });
    const missing = await finished(
      launch(CLI, ['mock', '--port', '0', '--seed', 'no-such-seed.json'], {
        env: { PATH: process.env.PATH },
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    expect(missing).toEqual({
      code: 1,
      stdout: '',
      stderr: 'secrets-vault: cannot read no-such-seed.json: ENOENT\n',
    });
  });

  it('says to continue only to a control request it is going to read', async () => {
    const served = await serve();
    const url = new URL(`${served.control}/clock`);
    const body = JSON.stringify({ advanceMs: 1 });
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const outgoing = request(url, {
        method: 'POST',
        headers: { expect: '100-continue', 'content-length': Buffer.byteLength(body) },
      });
      outgoing.on('continue', () => outgoing.end(body));
      outgoing.on('response', (response) => {
        response.resume();
        resolve(response.statusCode);
      });
      outgoing.on('error', reject);
    });
    expect(status).toBe(200);
    await stop(served);
  });
});
