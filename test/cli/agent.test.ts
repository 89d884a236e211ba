/**
 * `secrets-vault agent` as a node's jobs use it: the command as a real child process listening on
 * loopback, in front of the mock served over HTTP (or of a service of the test's own, for the
 * hostile ones), read by the real client and by real `secrets-vault run` processes. The service's
 * requests are counted at the service: a fault that hits a route counts every request to it.
 */
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  NotFoundError,
  PermissionDeniedError,
  SecretsVault,
} from '../../src/index.js';
import { finished, launch, nodeRunning, useCommand } from './harness.js';

const command = useCommand();
const { mock } = command;

// Child processes by the dozen, and services of the test's own: one run of these is enough.
const ONCE = process.env.SECRETS_VAULT_TRANSPORT !== 'fetch';

const VALUES_ROUTE = '/v1/vaults/:vaultId/secrets/values';
const REFUSED_TOKEN = 'sv_not_a_token_the_service_knows';

// ---------------------------------------------------------------------------------------------
// Starting agents, and reading them without the client's retries.

/** A running agent. */
interface RunningAgent {
  readonly child: ChildProcess;
  /** What its first line gives SECRETS_VAULT_BASE_URL, such as `http://127.0.0.1:41234`. */
  readonly url: string;
  /** Its stderr so far. */
  stderr(): string;
  /** Resolves to its exit code once it has exited. */
  readonly exited: Promise<number | null>;
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
});

/** Starts `secrets-vault agent --listen 127.0.0.1:0 <args>`, resolved once it printed its URL. */
async function startAgent(
  args: readonly string[] = [],
  env: Record<string, string | undefined> = {},
): Promise<RunningAgent> {
  const child = command.start(['agent', '--listen', '127.0.0.1:0', ...args], env);
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => {
    child.once('close', (code) => resolve(code));
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk) => {
      stdout += chunk;
      if (!stdout.includes('\n')) return;
      const first = stdout.slice(0, stdout.indexOf('\n'));
      const match = /^SECRETS_VAULT_BASE_URL=(http:\/\/127\.0\.0\.1:\d+)$/.exec(first);
      if (match?.[1] === undefined) reject(new Error(`unexpected first line: ${first}`));
      else resolve(match[1]);
    });
    void exited.then((code) => reject(new Error(`the agent ended (${code}): ${stderr}`)));
  });
  return { child, url, stderr: () => stderr, exited };
}

/** A response read whole. */
interface Fetched {
  readonly status: number;
  readonly headers: Headers;
  readonly body: string;
}

/** One request with Node's own fetch (no retries, redirects returned), read whole. */
async function send(url: string, token?: string, init: RequestInit = {}): Promise<Fetched> {
  const headers = new Headers(init.headers);
  if (token !== undefined) headers.set('authorization', `Bearer ${token}`);
  const response = await fetch(url, { ...init, headers, redirect: 'manual' });
  return { status: response.status, headers: response.headers, body: await response.text() };
}

const valuesUrl = (baseUrl: string, vaultId: string) =>
  `${baseUrl}/v1/vaults/${vaultId}/secrets/values`;

/** How the agent answered: hit, miss or stale. */
const servedAs = (fetched: Fetched) => fetched.headers.get('x-secrets-vault-agent');

/** The error code of a failure envelope. */
const errorCodeOf = (fetched: Fetched) =>
  (JSON.parse(fetched.body) as { errorCode: string | null }).errorCode;

/** Counts the service's values requests from now on (a fault of no delay hits each of them). */
const countValuesRequests = () =>
  mock.faults.inject({ path: VALUES_ROUTE }, { kind: 'delay', ms: 0 });

// ---------------------------------------------------------------------------------------------
// Against the mock.

const owner = mock.principals.owner.token;
let vaultId = '';

beforeEach(async () => {
  mock.reset();
  mock.faults.clear();
  const operator = new SecretsVault({ baseUrl: command.served.url, token: owner });
  const vault = await operator.vaults.create({ name: 'job' });
  await operator.secrets.create(vault.id, { name: 'db', value: { password: 'pw-from-the-vault' } });
  await operator.secrets.create(vault.id, { name: 'api', value: { key: 'k-from-the-vault' } });
  vaultId = vault.id;
});

describe.runIf(ONCE)('secrets-vault agent, what it leaves behind', () => {
  it('prints and writes no token, nor its digest, through hits, verdicts and an outage; a signal to its whole group ends it', async () => {
    // A folder of its own as its working folder, home and temporary folder: what it wrote is there.
    const folder = mkdtempSync(join(tmpdir(), 'secrets-vault-agent-'));
    const child = launch(command.cli, ['agent', '--listen', '127.0.0.1:0', '--ttl', '0'], {
      cwd: folder,
      env: {
        PATH: process.env.PATH,
        HOME: folder,
        TMPDIR: folder,
        SECRETS_VAULT_BASE_URL: command.served.url,
        SECRETS_VAULT_LOG: 'debug',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      // A group of its own, as a CI runner's job: the signal below goes to the whole group.
      detached: true,
    });
    children.push(child);
    const output = finished(child);
    const url = await new Promise<string>((resolve) => {
      let seen = '';
      child.stdout?.on('data', (chunk) => {
        seen += chunk;
        const match = /^SECRETS_VAULT_BASE_URL=(\S+)\n/.exec(seen);
        if (match?.[1] !== undefined) resolve(match[1]);
      });
    });
    expect(servedAs(await send(valuesUrl(url, vaultId), owner))).toBe('miss');
    expect(servedAs(await send(valuesUrl(url, vaultId), owner))).toBe('miss');
    expect((await send(valuesUrl(url, vaultId), REFUSED_TOKEN)).status).toBe(401);
    const outage = mock.faults.inject({ path: VALUES_ROUTE }, { kind: 'status', status: 503 });
    expect(servedAs(await send(valuesUrl(url, vaultId), owner))).toBe('stale');
    outage.clear();
    expect((await send(`${url}/v1/vaults`, owner)).status).toBe(200);

    process.kill(-(child.pid ?? 0), 'SIGTERM');
    const { code, stdout, stderr } = await output;
    expect(code).toBe(0);
    expect(stderr).toContain('the service is unavailable');
    for (const token of [owner, REFUSED_TOKEN]) {
      const digest = createHash('sha256').update(token).digest();
      for (const form of [token, digest.toString('hex'), digest.toString('base64')]) {
        expect(stdout).not.toContain(form);
        expect(stderr).not.toContain(form);
      }
    }
    expect(stdout).not.toContain('pw-from');
    expect(stderr).not.toContain('pw-from');
    expect(readdirSync(folder)).toEqual([]);
  });
});

describe('secrets-vault agent, in front of the service', () => {
  it('prints the URL first, then serves the values from memory, byte for byte, miss then hit', async () => {
    const agent = await startAgent();
    const counted = countValuesRequests();
    const direct = await send(valuesUrl(command.served.url, vaultId), owner);
    const first = await send(valuesUrl(agent.url, vaultId), owner);
    const second = await send(valuesUrl(agent.url, vaultId), owner);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect([servedAs(first), servedAs(second)]).toEqual(['miss', 'hit']);
    expect(first.body).toBe(direct.body);
    expect(second.body).toBe(first.body);
    for (const name of ['content-type', 'x-request-id']) {
      expect(second.headers.get(name), name).toBe(first.headers.get(name));
    }
    // One request straight to the service, one through the agent.
    expect(counted.hits).toBe(2);

    const client = new SecretsVault({ baseUrl: agent.url, token: owner });
    expect(await client.secrets.load(vaultId)).toEqual({
      db: { password: 'pw-from-the-vault' },
      api: { key: 'k-from-the-vault' },
    });
    expect(counted.hits).toBe(2);
    expect(agent.stderr()).toBe('');
  });

  it('never gives an entry to another token: a refused one gets the 401, another principal its own verdict', async () => {
    const agent = await startAgent();
    const counted = countValuesRequests();
    expect(servedAs(await send(valuesUrl(agent.url, vaultId), owner))).toBe('miss');

    const refused = await send(valuesUrl(agent.url, vaultId), REFUSED_TOKEN);
    expect(refused.status).toBe(401);
    expect(servedAs(refused)).toBe('miss');
    expect(refused.body).not.toContain('pw-from-the-vault');
    const outsider = await send(valuesUrl(agent.url, vaultId), mock.principals.outsider.token);
    expect(outsider.status).toBe(404);
    expect(outsider.body).not.toContain('pw-from-the-vault');
    // Without a token, the request is the service's to refuse.
    const anonymous = await send(valuesUrl(agent.url, vaultId));
    expect(anonymous.status).toBe(401);
    expect(counted.hits).toBe(4);

    const client = new SecretsVault({ baseUrl: agent.url, token: REFUSED_TOKEN, maxRetries: 0 });
    await expect(client.secrets.load(vaultId)).rejects.toBeInstanceOf(AuthenticationError);

    // Nor while the service is down: the owner's entry is served stale to the owner alone.
    const everyTime = await startAgent(['--ttl', '0']);
    expect(servedAs(await send(valuesUrl(everyTime.url, vaultId), owner))).toBe('miss');
    // The counter is a fault too, and the first fault injected applies: clear it.
    mock.faults.clear();
    mock.faults.inject({ path: VALUES_ROUTE }, { kind: 'status', status: 503 });
    expect(servedAs(await send(valuesUrl(everyTime.url, vaultId), owner))).toBe('stale');
    for (const token of [REFUSED_TOKEN, mock.principals.outsider.token]) {
      const down = await send(valuesUrl(everyTime.url, vaultId), token);
      expect([down.status, servedAs(down)]).toEqual([503, 'miss']);
      expect(down.body).not.toContain('pw-from-the-vault');
    }
  });

  it.each([
    [401, AuthenticationError],
    [403, PermissionDeniedError],
    [404, NotFoundError],
  ] as const)(
    'drops the entry on a %i from the service, and passes the answer on',
    async (status, ErrorClass) => {
      // --ttl 0: every request asks the service, and the entry serves only as stale.
      const agent = await startAgent(['--ttl', '0']);
      expect(servedAs(await send(valuesUrl(agent.url, vaultId), owner))).toBe('miss');
      mock.faults.inject({ path: VALUES_ROUTE, times: 1 }, { kind: 'status', status: 503 });
      const stale = await send(valuesUrl(agent.url, vaultId), owner);
      expect([stale.status, servedAs(stale)]).toEqual([200, 'stale']);
      expect(stale.body).toContain('pw-from-the-vault');

      mock.faults.inject({ path: VALUES_ROUTE, times: 1 }, { kind: 'status', status });
      const verdict = await send(valuesUrl(agent.url, vaultId), owner);
      expect([verdict.status, servedAs(verdict)]).toEqual([status, 'miss']);
      expect(verdict.body).not.toContain('pw-from-the-vault');

      // The entry is gone: an outage now passes through, with nothing stale to serve.
      mock.faults.inject({ path: VALUES_ROUTE }, { kind: 'status', status: 503 });
      const down = await send(valuesUrl(agent.url, vaultId), owner);
      expect([down.status, servedAs(down)]).toEqual([503, 'miss']);
      expect(down.body).not.toContain('pw-from-the-vault');

      mock.faults.clear();
      mock.faults.inject({ path: VALUES_ROUTE, times: 1 }, { kind: 'status', status });
      const client = new SecretsVault({ baseUrl: agent.url, token: owner, maxRetries: 0 });
      await expect(client.secrets.listValues(vaultId)).rejects.toBeInstanceOf(ErrorClass);
    },
  );

  it('sends one request to the service for 100 clients that miss the same entry at once', async () => {
    const agent = await startAgent();
    // The service takes its time: every caller arrives while the first request is under way.
    const slow = mock.faults.inject({ path: VALUES_ROUTE }, { kind: 'delay', ms: 500 });
    const clients = Array.from(
      { length: 100 },
      () => new SecretsVault({ baseUrl: agent.url, token: owner }),
    );
    const loaded = await Promise.all(clients.map((client) => client.secrets.load(vaultId)));
    expect(slow.hits).toBe(1);
    for (const secrets of loaded) expect(secrets.db).toEqual({ password: 'pw-from-the-vault' });

    // Another token is another entry: its own request.
    const member = mock.principals.member.token;
    await new SecretsVault({ baseUrl: agent.url, token: member, maxRetries: 0 }).secrets
      .load(vaultId)
      .catch(() => undefined);
    expect(slow.hits).toBe(2);
  });

  it('serves stale values while the service is down, then passes the outage once they are too old', async () => {
    const agent = await startAgent(['--ttl', '0']);
    const fresh = await send(valuesUrl(agent.url, vaultId), owner);
    for (const status of [503, 500, 429, 408]) {
      mock.faults.clear();
      mock.faults.inject({ path: VALUES_ROUTE }, { kind: 'status', status });
      const stale = await send(valuesUrl(agent.url, vaultId), owner);
      expect([stale.status, servedAs(stale)], `on ${status}`).toEqual([200, 'stale']);
      expect(stale.body).toBe(fresh.body);
    }
    mock.faults.clear();
    mock.faults.inject({ path: VALUES_ROUTE }, { kind: 'network-error' });
    const cut = await send(valuesUrl(agent.url, vaultId), owner);
    expect([cut.status, servedAs(cut)]).toEqual([200, 'stale']);
    // The client reads the stale answer as any other.
    const client = new SecretsVault({ baseUrl: agent.url, token: owner, maxRetries: 0 });
    expect((await client.secrets.load(vaultId)).db).toEqual({ password: 'pw-from-the-vault' });

    // One line when it went down, one when it came back, however many requests in between.
    mock.faults.clear();
    expect(servedAs(await send(valuesUrl(agent.url, vaultId), owner))).toBe('miss');
    const lines = agent.stderr().trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^level=warn msg="the service is unavailable" cause=503$/);
    expect(lines[1]).toMatch(
      /^level=info msg="the service is available again" unavailable_ms=\d+ stale_served=6$/,
    );
    expect(agent.stderr()).not.toContain(owner);
    expect(agent.stderr()).not.toContain('pw-from');
  });

  it('passes the outage on when the entry is older than --stale-if-error', async () => {
    const agent = await startAgent(['--ttl', '0', '--stale-if-error', '200ms']);
    expect(servedAs(await send(valuesUrl(agent.url, vaultId), owner))).toBe('miss');
    // Past the window, whatever the machine's pace: waiting longer never makes it younger.
    await sleep(1_000);
    mock.faults.inject({ path: VALUES_ROUTE }, { kind: 'status', status: 503 });
    const down = await send(valuesUrl(agent.url, vaultId), owner);
    expect([down.status, servedAs(down)]).toEqual([503, 'miss']);
    expect(errorCodeOf(down)).not.toBeNull();
    expect(down.body).not.toContain('pw-from-the-vault');
  });

  it('forwards every other request as it came, uncached', async () => {
    const agent = await startAgent();
    const client = new SecretsVault({ baseUrl: agent.url, token: owner });
    const before = await client.vaults.list().toArray();
    const created = await client.vaults.create({ name: 'through the agent' });
    const after = await client.vaults.list().toArray();
    expect(after.map(({ id }) => id)).toEqual([created.id, ...before.map(({ id }) => id)]);
    expect(await client.vaults.get(created.id)).toEqual(created);
    await client.secrets.create(created.id, { name: 'new', value: { one: '1' } });
    expect(await client.secrets.load(created.id)).toEqual({ new: { one: '1' } });

    // A query or another method is not the values route: forwarded, never answered from memory.
    const listed = await send(`${valuesUrl(agent.url, vaultId)}?limit=1`, owner);
    expect(listed.headers.get('x-secrets-vault-agent')).toBeNull();
    const posted = await send(valuesUrl(agent.url, vaultId), owner, { method: 'POST', body: '{}' });
    expect(posted.headers.get('x-secrets-vault-agent')).toBeNull();
    expect(posted.status).toBeGreaterThanOrEqual(400);
  });

  it('refuses a request body over the bound with 413, and a request it cannot parse with a 4xx, and stays up', async () => {
    const agent = await startAgent();
    const tooLarge = await send(`${agent.url}/v1/vaults`, owner, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'x'.repeat(1_100_000) }),
    });
    expect([tooLarge.status, errorCodeOf(tooLarge)]).toEqual([413, 'payload_too_large']);

    const answer = await rawRequest(agent.url, 'NOT A REQUEST\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 4\d\d /);
    const hugeHead = await rawRequest(
      agent.url,
      `GET /v1/vaults HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(40_000)}\r\n\r\n`,
    );
    expect(hugeHead).toMatch(/^HTTP\/1\.1 431 /);
    const proxyStyle = await rawRequest(
      agent.url,
      `GET ${command.served.url}/v1/vaults HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    );
    expect(proxyStyle).toMatch(/^HTTP\/1\.1 400 /);

    expect((await send(valuesUrl(agent.url, vaultId), owner)).status).toBe(200);
  });

  it.runIf(ONCE)(
    'serves 50 secrets-vault run processes with one request to the service',
    async () => {
      const agent = await startAgent();
      const counted = countValuesRequests();
      const env = { SECRETS_VAULT_BASE_URL: agent.url, SECRETS_VAULT_TOKEN: owner };
      const script = 'process.stdout.write(process.env.DB_PASSWORD + "/" + process.env.API_KEY)';
      const outputs: string[] = [];
      // Ten at a time: enough to overlap, not so many that a busy machine stalls.
      for (let batch = 0; batch < 5; batch += 1) {
        const runs = await Promise.all(
          Array.from({ length: 10 }, () =>
            command.run(['run', '--vault', vaultId, ...nodeRunning(script)], env),
          ),
        );
        for (const run of runs) {
          expect(run.code, run.stderr).toBe(0);
          outputs.push(run.stdout);
        }
      }
      expect(outputs).toEqual(Array(50).fill('pw-from-the-vault/k-from-the-vault'));
      expect(counted.hits).toBe(1);
    },
    240_000,
  );

  it('finishes the requests under way on SIGTERM, then exits 0', async () => {
    const agent = await startAgent();
    const slow = mock.faults.inject({ path: VALUES_ROUTE }, { kind: 'delay', ms: 1_500 });
    const inFlight = send(valuesUrl(agent.url, vaultId), owner);
    while (slow.hits === 0) await sleep(20);
    agent.child.kill('SIGTERM');
    const answered = await inFlight;
    expect([answered.status, servedAs(answered)]).toEqual([200, 'miss']);
    expect(await agent.exited).toBe(0);
    await expect(send(valuesUrl(agent.url, vaultId), owner)).rejects.toThrow();
  });

  it('exits 0 on SIGINT', async () => {
    const agent = await startAgent();
    agent.child.kill('SIGINT');
    expect(await agent.exited).toBe(0);
  });
});

describe('secrets-vault agent, given bad settings', () => {
  it.each([
    [['--listen', 'nowhere'], '--listen takes <host>:<port>'],
    [['--listen', '127.0.0.1:70000'], '--listen takes <host>:<port>'],
    [['--ttl', 'soon'], '--ttl takes a duration'],
    [['--ttl', 'Infinity'], '--ttl takes a duration'],
    [['--stale-if-error', '1d'], '--stale-if-error takes a duration'],
  ])('refuses %j as a usage error', async (args, message) => {
    const result = await command.run(['agent', ...args]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(message);
    expect(result.stderr).toContain('(see secrets-vault agent --help)');
  });

  it('needs SECRETS_VAULT_BASE_URL, checked as the other commands check it', async () => {
    const missing = await command.run(['agent', '--listen', '127.0.0.1:0'], {
      SECRETS_VAULT_BASE_URL: undefined,
    });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('SECRETS_VAULT_BASE_URL');
    const invalid = await command.run(['agent', '--listen', '127.0.0.1:0'], {
      SECRETS_VAULT_BASE_URL: 'ftp://example.com',
    });
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain('SECRETS_VAULT_BASE_URL');
  });

  it('answers 503 service_unavailable when the service cannot be reached and nothing is kept', async () => {
    const agent = await startAgent([], {
      SECRETS_VAULT_BASE_URL: `http://127.0.0.1:${command.closedPort}`,
    });
    const down = await send(valuesUrl(agent.url, vaultId), owner);
    expect([down.status, errorCodeOf(down), servedAs(down)]).toEqual([
      503,
      'service_unavailable',
      'miss',
    ]);
    expect(down.headers.get('x-request-id')).toMatch(/^req_/);
    const other = await send(`${agent.url}/v1/vaults`, owner);
    expect([other.status, errorCodeOf(other)]).toEqual([503, 'service_unavailable']);
    expect(agent.stderr()).toBe('level=warn msg="the service is unavailable" cause=ECONNREFUSED\n');
  });
});

// ---------------------------------------------------------------------------------------------
// Against a service of the test's own, which misbehaves on demand.

/** What the hostile service does with a request; `undefined` answers plain values. */
type Behaviour = (res: ServerResponse, token: string, path: string) => void;

/** A values body naming the token it was answered for. */
const valuesFor = (token: string) =>
  JSON.stringify({
    statusCode: 200,
    errorCode: null,
    message: null,
    data: [{ id: 's1', name: 'db', value: { password: `pw-of-${token}` } }],
  });

describe.runIf(ONCE)('secrets-vault agent, in front of a hostile service', () => {
  let service: Server;
  let serviceUrl = '';
  let behaviour: Behaviour | undefined;
  let requests = 0;
  let redirectTarget: Server;
  let redirectTargetUrl = '';
  let redirectTargetHits = 0;
  let agent: RunningAgent;

  beforeEach(async () => {
    behaviour = undefined;
    requests = 0;
    redirectTargetHits = 0;
    service = createServer((req, res) => {
      requests += 1;
      const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
      if (behaviour !== undefined) {
        behaviour(res, token, req.url ?? '');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req_fixed' });
      res.end(valuesFor(token));
    });
    redirectTarget = createServer((_req, res) => {
      redirectTargetHits += 1;
      res.end('followed');
    });
    serviceUrl = await listenOnLoopback(service);
    redirectTargetUrl = await listenOnLoopback(redirectTarget);
    // A short timeout, so that a service that drips its answer fails the exchange soon.
    agent = await startAgent([], {
      SECRETS_VAULT_BASE_URL: serviceUrl,
      SECRETS_VAULT_TIMEOUT: '2s',
    });
  });
  afterEach(async () => {
    service.closeAllConnections();
    redirectTarget.closeAllConnections();
    await Promise.all([closed(service), closed(redirectTarget)]);
  });

  /** Asserts that the agent is still up and serves a plain request as a fresh miss. */
  async function servesTheNextRequest(token = 'token-next') {
    behaviour = undefined;
    const next = await send(valuesUrl(agent.url, 'v'), token);
    expect([next.status, servedAs(next)]).toEqual([200, 'miss']);
    expect(next.body).toBe(valuesFor(token));
  }

  it('keeps each token its own entry, even from a service that answers every token alike', async () => {
    const a = await send(valuesUrl(agent.url, 'v'), 'token-a');
    const b = await send(valuesUrl(agent.url, 'v'), 'token-b');
    const aAgain = await send(valuesUrl(agent.url, 'v'), 'token-a');
    const bAgain = await send(valuesUrl(agent.url, 'v'), 'token-b');
    expect([a, b, aAgain, bAgain].map(servedAs)).toEqual(['miss', 'miss', 'hit', 'hit']);
    expect(a.body).toBe(valuesFor('token-a'));
    expect(aAgain.body).toBe(valuesFor('token-a'));
    expect(b.body).toBe(valuesFor('token-b'));
    expect(bAgain.body).toBe(valuesFor('token-b'));
    expect(requests).toBe(2);
  });

  it('passes a redirect on as it came, never following it', async () => {
    behaviour = (res) => {
      res.writeHead(302, { location: `${redirectTargetUrl}/v1/vaults` });
      res.end();
    };
    const redirected = await send(`${agent.url}/v1/vaults`, 'token-a');
    expect(redirected.status).toBe(302);
    expect(redirected.headers.get('location')).toBe(`${redirectTargetUrl}/v1/vaults`);
    const onValues = await send(valuesUrl(agent.url, 'v'), 'token-a');
    expect([onValues.status, servedAs(onValues)]).toEqual([302, 'miss']);
    expect(requests).toBe(2);
    expect(redirectTargetHits).toBe(0);
    await servesTheNextRequest('token-a');
  });

  it('answers a body over the bound with 502, whether declared or streamed, and stays up', async () => {
    behaviour = (res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '40000000' });
      res.write('{"data":[');
    };
    const declared = await send(valuesUrl(agent.url, 'v'), 'token-a');
    expect([declared.status, errorCodeOf(declared)]).toEqual([502, 'bad_gateway']);

    behaviour = (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      let sent = 0;
      const more = () => {
        while (sent < 40 && !res.destroyed) {
          sent += 1;
          if (!res.write(chunk)) {
            res.once('drain', more);
            return;
          }
        }
        res.end();
      };
      more();
    };
    const streamed = await send(`${agent.url}/v1/vaults`, 'token-a');
    expect([streamed.status, errorCodeOf(streamed)]).toEqual([502, 'bad_gateway']);
    await servesTheNextRequest();
  });

  it('answers a service that drips past the timeout with 503, and stays up', async () => {
    behaviour = (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const drip = setInterval(() => {
        if (res.destroyed) clearInterval(drip);
        else res.write(' ');
      }, 100);
      res.once('close', () => clearInterval(drip));
    };
    const dripped = await send(valuesUrl(agent.url, 'v'), 'token-a');
    expect([dripped.status, errorCodeOf(dripped), servedAs(dripped)]).toEqual([
      503,
      'service_unavailable',
      'miss',
    ]);
    await servesTheNextRequest();
  });

  it('never keeps nor serves values that are not JSON', async () => {
    behaviour = (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"data": [ this is not json');
    };
    const garbage = await send(valuesUrl(agent.url, 'v'), 'token-a');
    expect([garbage.status, errorCodeOf(garbage)]).toEqual([502, 'bad_gateway']);
    expect(garbage.body).not.toContain('this is not json');
    // Not kept: the next request asks the service again.
    await servesTheNextRequest('token-a');
    expect(requests).toBe(2);
  });

  it('answers endless headers with 502, and stays up', async () => {
    behaviour = (res) => {
      // Written by hand on the socket: Node would refuse to send such a head.
      res.socket?.write('HTTP/1.1 200 OK\r\n');
      const line = `X-Filler: ${'a'.repeat(1000)}\r\n`;
      res.socket?.write(line.repeat(200));
      res.socket?.end();
    };
    const endless = await send(valuesUrl(agent.url, 'v'), 'token-a');
    expect([endless.status, errorCodeOf(endless)]).toEqual([502, 'bad_gateway']);
    await servesTheNextRequest();
  });

  it('serves the entry as stale when the connection drops, and only to its token', async () => {
    const everyTime = await startAgent(['--ttl', '0'], { SECRETS_VAULT_BASE_URL: serviceUrl });
    const fresh = await send(valuesUrl(everyTime.url, 'v'), 'token-a');
    expect(servedAs(fresh)).toBe('miss');
    behaviour = (res) => res.socket?.destroy();
    const stale = await send(valuesUrl(everyTime.url, 'v'), 'token-a');
    expect([stale.status, servedAs(stale)]).toEqual([200, 'stale']);
    expect(stale.body).toBe(valuesFor('token-a'));
    const other = await send(valuesUrl(everyTime.url, 'v'), 'token-b');
    expect([other.status, errorCodeOf(other), servedAs(other)]).toEqual([
      503,
      'service_unavailable',
      'miss',
    ]);
    expect(other.body).not.toContain('pw-of-token-a');
  });
});

/** Writes `text` on a new connection to the agent and resolves to what it answered. */
function rawRequest(url: string, text: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    let answer = '';
    const socket = connect(Number(port), hostname, () => socket.write(text));
    socket.on('data', (chunk) => {
      answer += chunk;
    });
    socket.on('end', () => resolve(answer));
    socket.on('close', () => resolve(answer));
    socket.on('error', (error) => (answer === '' ? reject(error) : resolve(answer)));
  });
}

async function listenOnLoopback(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function closed(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}
