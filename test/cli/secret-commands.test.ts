/**
 * `get`, `set` and `rm`, as an operator runs them: the built command as a child process, against
 * the mock served over HTTP, and against small hostile servers that lose answers, never end a
 * listing, answer too much or echo what they were sent. A value must never reach stderr.
 */
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SecretsVault } from '../../src/index.js';
import { finished, launch, type Result, useCommand } from './harness.js';

const command = useCommand({ built: true });
const { mock } = command;

function operator(): SecretsVault {
  return new SecretsVault({ baseUrl: command.served.url, token: mock.principals.owner.token });
}

/** A vault holding `secrets`, made in order (the last one is the newest); resolves to its id. */
async function vaultWith(secrets: Record<string, Record<string, string>>): Promise<string> {
  const client = operator();
  const vault = await client.vaults.create({ name: 'operators' });
  for (const [name, value] of Object.entries(secrets)) {
    await client.secrets.create(vault.id, { name, value });
  }
  return vault.id;
}

/** The live secrets of `vaultId` named `name`, with their values. */
async function secretsNamed(vaultId: string, name: string) {
  const all = await operator().secrets.listValues(vaultId);
  return all.filter((secret) => secret.name === name);
}

/** The value of the one live secret of `vaultId` named `name`. */
async function storedValue(vaultId: string, name: string): Promise<Record<string, string>> {
  const [secret, ...more] = await secretsNamed(vaultId, name);
  expect(more).toEqual([]);
  if (secret === undefined) throw new Error(`no secret named ${name}`);
  return { ...secret.value };
}

/** Runs the command with `input` on its stdin. */
function runWithInput(
  args: readonly string[],
  input: string | Buffer,
  env: Record<string, string> = {},
): Promise<Result> {
  const child = launch(command.cli, args, {
    env: {
      PATH: process.env.PATH,
      SECRETS_VAULT_BASE_URL: command.served.url,
      SECRETS_VAULT_TOKEN: mock.principals.adminKey.token,
      ...env,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin?.end(input);
  return finished(child);
}

/**
 * Makes every write to a secret (`PATCH` and `DELETE` of `/v1/secrets/:id`) fail, and counts
 * them: `writes()` is how many reached the mock.
 */
function countWrites(): { writes(): number } {
  const patch = mock.faults.inject(
    { method: 'PATCH', path: '/v1/secrets/:secretId' },
    { kind: 'status', status: 500 },
  );
  const remove = mock.faults.inject(
    { method: 'DELETE', path: '/v1/secrets/:secretId' },
    { kind: 'status', status: 500 },
  );
  return { writes: () => patch.hits + remove.hits };
}

beforeEach(() => {
  mock.reset();
  mock.faults.clear();
});

describe('set', () => {
  it('creates the secret when the vault has none of that name, and prints only its id', async () => {
    const vaultId = await vaultWith({ other: { a: '1' } });
    const result = await command.run([
      'set',
      '--vault',
      vaultId,
      'database',
      'url=postgres://db.internal/app',
      'password=correct horse battery',
    ]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const [created] = await secretsNamed(vaultId, 'database');
    expect(result.stdout).toBe(`${created?.id}\n`);
    expect(created?.value).toEqual({
      url: 'postgres://db.internal/app',
      password: 'correct horse battery',
    });
  });

  it('merges the keys given into the current value and sends the whole value', async () => {
    const vaultId = await vaultWith({
      database: { url: 'postgres://old', password: 'p1', user: 'app' },
    });
    const [before] = await secretsNamed(vaultId, 'database');
    const result = await command.run([
      'set',
      '--vault',
      vaultId,
      'database',
      'password=p2',
      'port=5432',
    ]);
    expect(result).toMatchObject({ code: 0, stdout: `${before?.id}\n`, stderr: '' });
    expect(await storedValue(vaultId, 'database')).toEqual({
      url: 'postgres://old',
      password: 'p2',
      user: 'app',
      port: '5432',
    });
  });

  it('with --replace, makes the keys given the whole value', async () => {
    const vaultId = await vaultWith({ database: { url: 'postgres://old', password: 'p1' } });
    const result = await command.run([
      'set',
      '--vault',
      vaultId,
      'database',
      '--replace',
      'token=t-123',
    ]);
    expect(result.code).toBe(0);
    expect(await storedValue(vaultId, 'database')).toEqual({ token: 't-123' });
  });

  it('sets KEY= to the empty string, and splits KEY=VALUE at the first =', async () => {
    const vaultId = await vaultWith({});
    const result = await command.run(['set', '--vault', vaultId, 'app', 'EMPTY=', 'Q=a=b==']);
    expect(result.code).toBe(0);
    expect(await storedValue(vaultId, 'app')).toEqual({ EMPTY: '', Q: 'a=b==' });
  });

  it('reads KEY=- from stdin, dropping exactly one trailing newline', async () => {
    const vaultId = await vaultWith({});
    const cases: [string, string][] = [
      ['from-a-pipe\n', 'from-a-pipe'],
      ['keeps one newline\n\n', 'keeps one newline\n'],
      ['no newline at all', 'no newline at all'],
      ['windows line\r\n', 'windows line\r'],
      ['', ''],
    ];
    for (const [input, expected] of cases) {
      const result = await runWithInput(
        ['set', '--vault', vaultId, 'piped', 'VALUE=-', 'OTHER=argv'],
        input,
      );
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(await storedValue(vaultId, 'piped')).toEqual({ VALUE: expected, OTHER: 'argv' });
    }
  });

  it('refuses a second KEY=- with a usage error, and writes nothing', async () => {
    const vaultId = await vaultWith({});
    const result = await runWithInput(['set', '--vault', vaultId, 'app', 'A=-', 'B=-'], 'x\n');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /only one KEY=- can read stdin.*\(see secrets-vault set --help\)/,
    );
    expect(await secretsNamed(vaultId, 'app')).toEqual([]);
  });

  it('refuses stdin that is not UTF-8, rather than store a changed value', async () => {
    const vaultId = await vaultWith({});
    const result = await runWithInput(
      ['set', '--vault', vaultId, 'app', 'A=-'],
      Buffer.from([0x70, 0xff, 0x71]),
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('not UTF-8');
    expect(await secretsNamed(vaultId, 'app')).toEqual([]);
  });

  it.each([
    [['app'], /give at least one KEY=VALUE/],
    [['app', 'hunter2-typed-without-a-key'], /the 1st KEY=VALUE has no '='/],
    [['app', 'A=1', '=hunter2-as-a-value'], /the 2nd KEY=VALUE has no key/],
    [['app', 'A=hunter2-first', 'A=hunter2-again'], /key A is given twice/],
    [[], /give the name of the secret/],
  ])('refuses %j with a usage error naming the fix, never the value', async (args, message) => {
    const vaultId = await vaultWith({});
    const result = await command.run(['set', '--vault', vaultId, ...args]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toMatch(/\(see secrets-vault set --help\)\n$/);
    expect(result.stderr).not.toContain('hunter2');
  });

  it('says in its help that two sets at the same moment can lose keys', async () => {
    const result = await command.run(['set', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('no conditional update');
    expect(result.stdout).toContain("can lose one's keys");
    expect(result.stdout).toContain('one trailing newline dropped');
  });

  it('creates once when the answer to the create is lost and the create is retried', async () => {
    const vaultId = await vaultWith({});
    const lost = mock.faults.inject(
      { method: 'POST', path: '/v1/vaults/:vaultId/secrets', times: 1 },
      { kind: 'network-error-after-commit' },
    );
    const result = await command.run(['set', '--vault', vaultId, 'once', 'K=v']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(lost.hits).toBe(1);
    const created = await secretsNamed(vaultId, 'once');
    expect(created).toHaveLength(1);
    expect(result.stdout).toBe(`${created[0]?.id}\n`);
  });
});

describe('get', () => {
  it('prints one key exactly, without a newline when stdout is not a terminal', async () => {
    const vaultId = await vaultWith({ database: { password: 'p@ss word', url: 'postgres://x' } });
    const result = await command.run(['get', '--vault', vaultId, 'database', 'password']);
    expect(result).toEqual({ code: 0, stdout: 'p@ss word', stderr: '' });
  });

  it('prints the whole value as one JSON object', async () => {
    const value = { password: 'p@ss word', url: 'postgres://x' };
    const vaultId = await vaultWith({ database: value });
    const result = await command.run(['get', '--vault', vaultId, 'database']);
    expect(result.code).toBe(0);
    expect(result.stdout.endsWith('}\n')).toBe(true);
    expect(JSON.parse(result.stdout)).toEqual(value);
  });

  it('adds a newline when stdout is a terminal', async () => {
    const vaultId = await vaultWith({ database: { password: 'on-a-terminal' } });
    const inner = [process.execPath, command.cli, 'get', '--vault', vaultId, 'database', 'password']
      .map((part) => `'${part.replaceAll("'", "'\\''")}'`)
      .join(' ');
    const terminal = await finished(
      spawn('script', ['-qec', inner, '/dev/null'], {
        env: {
          PATH: process.env.PATH,
          SHELL: '/bin/bash',
          SECRETS_VAULT_BASE_URL: command.served.url,
          SECRETS_VAULT_TOKEN: mock.principals.adminKey.token,
        },
        stdio: ['pipe', 'pipe', 'pipe'],
      }),
    );
    // The terminal writes each newline as CR LF.
    expect(terminal.stdout).toBe('on-a-terminal\r\n');
  });

  it('fails naming a secret or key the vault does not have, printing no value', async () => {
    const vaultId = await vaultWith({ database: { password: 'never-printed' } });
    const noSecret = await command.run(['get', '--vault', vaultId, 'cache']);
    expect(noSecret).toEqual({
      code: 1,
      stdout: '',
      stderr: `secrets-vault: vault ${vaultId} has no secret named cache\n`,
    });
    const noKey = await command.run(['get', '--vault', vaultId, 'database', 'user']);
    expect(noKey).toEqual({
      code: 1,
      stdout: '',
      stderr: 'secrets-vault: secret database has no key user\n',
    });
    // A key the value's prototype has is no key of the value.
    const inherited = await command.run(['get', '--vault', vaultId, 'database', 'toString']);
    expect(inherited.code).toBe(1);
    expect(`${noSecret.stderr}${noKey.stderr}${inherited.stderr}`).not.toContain('never-printed');
  });

  it('names a vault that does not exist', async () => {
    const result = await command.run(['get', '--vault', 'vlt_missing', 'database']);
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toBe('secrets-vault: vault vlt_missing not found\n');
  });

  it('refuses extra arguments and unknown options with a usage error', async () => {
    const vaultId = await vaultWith({});
    const extra = await command.run(['get', '--vault', vaultId, 'a', 'b', 'c']);
    expect(extra.code).toBe(2);
    expect(extra.stderr).toMatch(/at most one key.*\(see secrets-vault get --help\)/);
    const unknown = await command.run(['get', '--vault', vaultId, 'a', '--bogus']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown option '--bogus'");
    const none = await command.run(['get', '--vault', vaultId]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('give the name of the secret');
  });

  it('takes a secret whose name starts with a dash after --', async () => {
    const vaultId = await vaultWith({ '-dashed': { k: 'v' } });
    const result = await command.run(['get', '--vault', vaultId, '--', '-dashed', 'k']);
    expect(result).toEqual({ code: 0, stdout: 'v', stderr: '' });
  });
});

describe('set then get', () => {
  const values: Record<string, string> = {
    newlines: 'line one\nline two\r\nline three\n',
    quotes: `"double" 'single' \`back\` \\ backslash`,
    unicode: 'café – 日本語 – 🔑 – e\u0301 – \u202e reversed',
    controls: 'bell\u0007 escape\u001b[31m del\u007f c1\u0085 nul-free',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion, kept literal on purpose.
    shell: '$(touch /tmp/pwned) ${HOME} $PATH',
    spaces: '  leading and trailing  ',
    bom: '\ufeffstarts with a byte-order mark',
  };

  it('round-trips every value exactly, given on the command line', async () => {
    const vaultId = await vaultWith({});
    const args = Object.entries(values).map(([key, value]) => `${key}=${value}`);
    const set = await command.run(['set', '--vault', vaultId, 'tricky', ...args]);
    expect(set).toMatchObject({ code: 0, stderr: '' });
    for (const [key, value] of Object.entries(values)) {
      const got = await command.run(['get', '--vault', vaultId, 'tricky', key]);
      expect(got).toEqual({ code: 0, stdout: value, stderr: '' });
    }
    const whole = await command.run(['get', '--vault', vaultId, 'tricky']);
    expect(JSON.parse(whole.stdout)).toEqual(values);
    // Printed as inert text: no raw escape or bidirectional override reaches a terminal.
    for (const raw of ['\u001b', '\u0007', '\u0085', '\u202e']) {
      expect(whole.stdout).not.toContain(raw);
    }
  }, 30_000);

  it('round-trips every value exactly, given on stdin', async () => {
    const vaultId = await vaultWith({});
    for (const [key, value] of Object.entries(values)) {
      // One newline more than the value has: the one that is dropped.
      const set = await runWithInput(
        ['set', '--vault', vaultId, 'piped', `${key}=-`],
        `${value}\n`,
      );
      expect(set).toMatchObject({ code: 0, stderr: '' });
      const got = await command.run(['get', '--vault', vaultId, 'piped', key]);
      expect(got).toEqual({ code: 0, stdout: value, stderr: '' });
    }
    expect(await storedValue(vaultId, 'piped')).toEqual(values);
  }, 30_000);

  it('keeps a key named __proto__ as a key like any other', async () => {
    const vaultId = await vaultWith({});
    const set = await command.run(['set', '--vault', vaultId, 'odd', '__proto__=x', 'b=y']);
    expect(set.code).toBe(0);
    const merged = await command.run(['set', '--vault', vaultId, 'odd', 'c=z']);
    expect(merged.code).toBe(0);
    const got = await command.run(['get', '--vault', vaultId, 'odd', '__proto__']);
    expect(got).toEqual({ code: 0, stdout: 'x', stderr: '' });
    const whole = await command.run(['get', '--vault', vaultId, 'odd']);
    expect(Object.entries(JSON.parse(whole.stdout))).toEqual(
      expect.arrayContaining([
        ['__proto__', 'x'],
        ['b', 'y'],
        ['c', 'z'],
      ]),
    );
  });
});

describe('rm', () => {
  it('removes one key, keeping the others', async () => {
    const vaultId = await vaultWith({ database: { url: 'u', password: 'p', user: 'app' } });
    const result = await command.run(['rm', '--vault', vaultId, 'database', 'password']);
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(await storedValue(vaultId, 'database')).toEqual({ url: 'u', user: 'app' });
  });

  it('deletes the secret', async () => {
    const vaultId = await vaultWith({ database: { url: 'u' }, cache: { url: 'c' } });
    const result = await command.run(['rm', '--vault', vaultId, 'database']);
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(await secretsNamed(vaultId, 'database')).toEqual([]);
    expect(await storedValue(vaultId, 'cache')).toEqual({ url: 'c' });
  });

  it('fails naming a secret or key the vault does not have, and sends no write', async () => {
    const vaultId = await vaultWith({ database: { url: 'u', password: 'never-printed' } });
    const counter = countWrites();
    const noSecret = await command.run(['rm', '--vault', vaultId, 'cache']);
    expect(noSecret).toEqual({
      code: 1,
      stdout: '',
      stderr: `secrets-vault: vault ${vaultId} has no secret named cache\n`,
    });
    const noSecretKey = await command.run(['rm', '--vault', vaultId, 'cache', 'url']);
    expect(noSecretKey.code).toBe(1);
    expect(noSecretKey.stderr).toContain('has no secret named cache');
    const noKey = await command.run(['rm', '--vault', vaultId, 'database', 'user']);
    expect(noKey).toEqual({
      code: 1,
      stdout: '',
      stderr: 'secrets-vault: secret database has no key user\n',
    });
    expect(counter.writes()).toBe(0);
    mock.faults.clear();
    expect(await storedValue(vaultId, 'database')).toEqual({ url: 'u', password: 'never-printed' });
  });
});

describe('a vault with more secrets than one page', () => {
  // The command asks for pages of 100 (the most the service gives) and the listing is newest
  // first: the first secret made is on the second page.
  const MANY = 130;

  async function bigVault(): Promise<string> {
    const secrets: Record<string, Record<string, string>> = { oldest: { a: 'on-page-two' } };
    for (let index = 0; index < MANY; index += 1) secrets[`filler-${index}`] = { n: `${index}` };
    const vaultId = await vaultWith(secrets);
    const firstPage = await operator().secrets.list(vaultId, { limit: 100 });
    expect(firstPage.data.some((secret) => secret.name === 'oldest')).toBe(false);
    expect(firstPage.hasNextPage()).toBe(true);
    return vaultId;
  }

  it('finds a secret on a later page for get, set and rm', async () => {
    const vaultId = await bigVault();
    const got = await command.run(['get', '--vault', vaultId, 'oldest', 'a']);
    expect(got).toEqual({ code: 0, stdout: 'on-page-two', stderr: '' });

    const set = await command.run(['set', '--vault', vaultId, 'oldest', 'b=merged']);
    expect(set.code).toBe(0);
    // Merged into the secret found, never a second secret of the same name.
    expect(await storedValue(vaultId, 'oldest')).toEqual({ a: 'on-page-two', b: 'merged' });

    const removedKey = await command.run(['rm', '--vault', vaultId, 'oldest', 'a']);
    expect(removedKey.code).toBe(0);
    expect(await storedValue(vaultId, 'oldest')).toEqual({ b: 'merged' });

    const removed = await command.run(['rm', '--vault', vaultId, 'oldest']);
    expect(removed.code).toBe(0);
    expect(await secretsNamed(vaultId, 'oldest')).toEqual([]);
  });

  it('refuses a name two live secrets share, naming them, and writes nothing', async () => {
    const vaultId = await bigVault();
    // A second secret named like the one on the second page, this one on the first.
    await operator().secrets.create(vaultId, { name: 'oldest', value: { a: 'twin' } });
    const counter = countWrites();
    const result = await command.run(['rm', '--vault', vaultId, 'oldest']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/holds 2 secrets named oldest/);
    expect(counter.writes()).toBe(0);
  });
});

describe('exit codes', () => {
  it('leaves with 77 when the token is refused', async () => {
    const vaultId = await vaultWith({ database: { a: '1' } });
    const result = await command.run(['get', '--vault', vaultId, 'database'], {
      SECRETS_VAULT_TOKEN: 'not-a-token',
    });
    expect(result.code).toBe(77);
    expect(result.stderr).toMatch(/^secrets-vault: the token was refused: /);
  });

  it('leaves with 75 when the service stays unavailable for the whole wait', async () => {
    for (const name of ['get', 'set', 'rm']) {
      const args = name === 'set' ? ['app', 'K=v'] : ['app'];
      const result = await command.run([name, '--vault', 'v', '--wait', '0', ...args], {
        SECRETS_VAULT_BASE_URL: `http://127.0.0.1:${command.closedPort}`,
      });
      expect(result.code, name).toBe(75);
      expect(result.stderr).toMatch(/^secrets-vault: the service stayed unavailable for /);
    }
  });

  it('reads the token from SECRETS_VAULT_TOKEN_FILE as the other commands do', async () => {
    const { writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const vaultId = await vaultWith({ database: { a: 'from-file-token' } });
    const file = join(command.directory, 'token');
    writeFileSync(file, `${mock.principals.adminKey.token}\n`);
    const result = await command.run(['get', '--vault', vaultId, 'database', 'a'], {
      SECRETS_VAULT_TOKEN: undefined,
      SECRETS_VAULT_TOKEN_FILE: file,
    });
    expect(result).toEqual({ code: 0, stdout: 'from-file-token', stderr: '' });
  });
});

/** What a hostile server saw of one request. */
interface Seen {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

type Handler = (request: Seen, response: ServerResponse, index: number) => void;

/** A secret's metadata, as a server sends it. */
function secretMetadata(id: string, name: string) {
  return {
    id,
    vault_id: 'vlt_hostile',
    name,
    type: 'generic',
    expired_at: null,
    delete_after_expired: false,
    is_archived: false,
    created_at: '2025-01-01T00:00:00.000Z',
  };
}

/** Answers with the contract's envelope. */
function answer(
  response: ServerResponse,
  status: number,
  data: unknown,
  extra: Record<string, unknown> = {},
  errorCode: string | null = null,
  message: string | null = null,
): void {
  response.writeHead(status, {
    'content-type': 'application/json',
    'x-request-id': `req_${crypto.randomUUID()}`,
  });
  response.end(JSON.stringify({ statusCode: status, errorCode, message, data, ...extra }));
}

let hostile: Server | undefined;

afterEach(async () => {
  const server = hostile;
  hostile = undefined;
  if (server !== undefined) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** Serves `handler` on loopback; resolves to its URL and what it saw. */
async function serveHostile(handler: Handler): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((incoming, response) => {
    let body = '';
    incoming.setEncoding('utf8');
    incoming.on('data', (chunk: string) => {
      body += chunk;
    });
    incoming.on('end', () => {
      const request: Seen = {
        method: incoming.method ?? '',
        path: incoming.url ?? '',
        headers: incoming.headers,
        body,
      };
      seen.push(request);
      handler(request, response, seen.length - 1);
    });
  });
  hostile = server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, seen };
}

function runAgainst(url: string, args: readonly string[], env: Record<string, string> = {}) {
  return command.run(args, { SECRETS_VAULT_BASE_URL: url, SECRETS_VAULT_TOKEN: 'tok', ...env });
}

describe('against a hostile server', () => {
  it('reuses the Idempotency-Key when a create is retried after a 500', async () => {
    const { url, seen } = await serveHostile((request, response) => {
      if (request.method === 'GET') return answer(response, 200, [], { next_cursor: null });
      const posts = seen.filter(({ method }) => method === 'POST').length;
      if (posts === 1) return answer(response, 500, null, {}, 'internal_error', 'try again');
      answer(response, 201, secretMetadata('sec_created', 'app'));
    });
    const result = await runAgainst(url, ['set', '--vault', 'vlt_hostile', 'app', 'K=v']);
    expect(result).toEqual({ code: 0, stdout: 'sec_created\n', stderr: '' });
    const posts = seen.filter(({ method }) => method === 'POST');
    expect(posts).toHaveLength(2);
    const [first, second] = posts.map(({ headers }) => headers['idempotency-key']);
    expect(first).toMatch(/\S/);
    expect(second).toBe(first);
    expect(posts[1]?.body).toBe(posts[0]?.body);
  });

  it('reuses the Idempotency-Key when the first answer to a create is dropped', async () => {
    const { url, seen } = await serveHostile((request, response) => {
      if (request.method === 'GET') return answer(response, 200, [], { next_cursor: null });
      const posts = seen.filter(({ method }) => method === 'POST').length;
      // The request was read (and, for all the client knows, carried out): the answer is lost.
      if (posts === 1) return response.socket?.destroy();
      answer(response, 201, secretMetadata('sec_created', 'app'), {});
    });
    const result = await runAgainst(url, ['set', '--vault', 'vlt_hostile', 'app', 'K=v']);
    expect(result).toMatchObject({ code: 0, stdout: 'sec_created\n' });
    const keys = seen
      .filter(({ method }) => method === 'POST')
      .map(({ headers }) => headers['idempotency-key']);
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
  });

  it('ends a listing that repeats its cursor with a typed error, exit 1', async () => {
    const { url, seen } = await serveHostile((_request, response) => {
      answer(response, 200, [secretMetadata(`sec_${seen.length}`, 'filler')], {
        next_cursor: 'same-cursor-forever',
      });
    });
    const result = await runAgainst(url, ['get', '--vault', 'vlt_hostile', 'app']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^secrets-vault: ResponseValidationError: .*/);
    expect(seen.length).toBeLessThanOrEqual(3);
  });

  it('ends a listing of empty pages that each promise another, exit 1', async () => {
    const { url, seen } = await serveHostile((_request, response) => {
      answer(response, 200, [], { next_cursor: `cursor-${seen.length}` });
    });
    const result = await runAgainst(url, ['rm', '--vault', 'vlt_hostile', 'app']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^secrets-vault: ResponseValidationError: .*empty/);
    expect(seen.length).toBeLessThanOrEqual(11);
  });

  it('stops a listing whose new cursors never end, exit 1, sending no write', async () => {
    const { url, seen } = await serveHostile((_request, response) => {
      answer(response, 200, [secretMetadata(`sec_${seen.length}`, 'filler')], {
        next_cursor: `cursor-${seen.length}`,
      });
    });
    const result = await runAgainst(url, ['set', '--vault', 'vlt_hostile', 'app', 'K=v']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/went on past 1000 pages, so it was stopped/);
    expect(seen).toHaveLength(1000);
    expect(seen.every(({ method }) => method === 'GET')).toBe(true);
  }, 30_000);

  it('fails on an answer larger than the SDK reads, exit 1, without hanging', async () => {
    const { url } = await serveHostile((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      // 40 MB of one JSON string: far past what the SDK reads of an answer.
      const chunk = 'x'.repeat(1024 * 1024);
      response.write(
        '{"statusCode":200,"errorCode":null,"message":null,"next_cursor":null,"data":"',
      );
      let left = 40;
      const more = () => {
        while (left > 0) {
          left -= 1;
          if (!response.write(chunk)) return void response.once('drain', more);
        }
        response.end('"}');
      };
      more();
    });
    const result = await runAgainst(url, ['get', '--vault', 'vlt_hostile', 'app']);
    // A verdict, not an outage: not retried, whatever the wait.
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toMatch(
      /^secrets-vault: ResponseValidationError: .*body is larger than \d+ bytes.*\n$/,
    );
  });

  it('never prints a value a server echoes back in its error', async () => {
    const sent = 'echoed-secret-value-4242';
    const stdinValue = 'echoed-from-stdin-7777';
    const { url } = await serveHostile((request, response) => {
      if (request.method === 'GET' && request.path.endsWith('/value')) {
        return answer(response, 200, {
          ...secretMetadata('sec_1', 'app'),
          value: { old: sent, other: 'x' },
        });
      }
      if (request.method === 'GET') {
        return answer(response, 200, [secretMetadata('sec_1', 'app')], { next_cursor: null });
      }
      answer(response, 400, null, {}, 'bad_request', `rejected body: ${request.body}`);
    });
    for (const env of [{}, { SECRETS_VAULT_LOG: 'debug' }]) {
      const result = await runAgainst(
        url,
        ['set', '--vault', 'vlt_hostile', 'app', `K=${sent}`],
        env,
      );
      expect(result.code).toBe(1);
      // The server's message is printed, with what the command sent scrubbed from it.
      expect(result.stderr).toContain('BadRequestError: rejected body:');
      expect(result.stderr).toContain('[REDACTED]');
      expect(result.stderr).not.toContain(sent);
      expect(result.stdout).toBe('');

      const removed = await runAgainst(url, ['rm', '--vault', 'vlt_hostile', 'app', 'other'], env);
      expect(removed.code).toBe(1);
      expect(removed.stderr).not.toContain(sent);
    }
    const child = launch(command.cli, ['set', '--vault', 'vlt_hostile', 'app', 'K=-'], {
      env: {
        PATH: process.env.PATH,
        SECRETS_VAULT_BASE_URL: url,
        SECRETS_VAULT_TOKEN: 'tok',
        SECRETS_VAULT_LOG: 'debug',
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.stdin?.end(`${stdinValue}\n`);
    const piped = await finished(child);
    expect(piped.code).toBe(1);
    expect(piped.stderr).not.toContain(stdinValue);
    expect(piped.stderr).not.toContain(sent);
  });
});
