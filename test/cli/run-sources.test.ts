/**
 * Where `secrets-vault run` takes its variables from: several vaults in order (`--vault` given
 * more than once, or `SECRETS_VAULT_VAULT_ID`), dotenv files (`--env-file`) under the job's own
 * environment, and how `--mask` passes the command's output on. Real child processes against
 * the mock served over HTTP; the command prints what it got.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { SecretsVault } from '../../src/index.js';
import { nodeRunning, useCommand } from './harness.js';

const command = useCommand();
const { mock } = command;
const KEY = randomBytes(32).toString('base64');
/** Where `run` reads a vault's values. */
const VALUES = '/v1/vaults/:vaultId/secrets/values';

let operator: SecretsVault;

beforeEach(() => {
  mock.reset();
  mock.faults.clear();
  operator = new SecretsVault({ baseUrl: command.served.url, token: mock.principals.owner.token });
});

/** A vault named `name` holding `secrets`; resolves to its id. */
async function vaultWith(
  name: string,
  secrets: Record<string, Record<string, string>>,
): Promise<string> {
  const vault = await operator.vaults.create({ name });
  for (const [secret, value] of Object.entries(secrets)) {
    await operator.secrets.create(vault.id, { name: secret, value });
  }
  return vault.id;
}

/** `run` arguments for a command that prints the named variables as JSON. */
function printing(...names: string[]): string[] {
  return nodeRunning(
    `console.log(JSON.stringify(Object.fromEntries(${JSON.stringify(names)}.map((n) => [n, process.env[n] ?? null]))))`,
  );
}

/** Writes `text` to a file of the suite's folder; resolves to its path. */
let files = 0;
function file(text: string): string {
  files += 1;
  const path = join(command.directory, `sources-${files}.env`);
  writeFileSync(path, text);
  return path;
}

describe('several vaults', () => {
  it('loads every --vault in order, a later vault replacing an earlier one variable', async () => {
    const base = await vaultWith('base', {
      db: { host: 'base-host', password: 'base-password' },
      shared: { region: 'eu' },
    });
    const app = await vaultWith('app', { db: { password: 'app-password' } });
    const result = await command.run([
      'run',
      '--vault',
      base,
      '--vault',
      app,
      ...printing('DB_HOST', 'DB_PASSWORD', 'SHARED_REGION'),
    ]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    // Merged by variable: the later vault's `db` replaces DB_PASSWORD only, not all of `db`.
    expect(JSON.parse(result.stdout)).toEqual({
      DB_HOST: 'base-host',
      DB_PASSWORD: 'app-password',
      SHARED_REGION: 'eu',
    });
    const reversed = await command.run([
      'run',
      '--vault',
      app,
      '--vault',
      base,
      ...printing('DB_PASSWORD'),
    ]);
    expect(JSON.parse(reversed.stdout)).toEqual({ DB_PASSWORD: 'base-password' });
  });

  it('takes SECRETS_VAULT_VAULT_ID (comma-separated) when no --vault is given, and --vault over it', async () => {
    const base = await vaultWith('base', { db: { host: 'base-host', password: 'base-pw' } });
    const app = await vaultWith('app', { db: { password: 'app-pw' } });
    const fromVariable = await command.run(['run', ...printing('DB_HOST', 'DB_PASSWORD')], {
      SECRETS_VAULT_VAULT_ID: ` ${base} , ${app} `,
    });
    expect(fromVariable).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(fromVariable.stdout)).toEqual({
      DB_HOST: 'base-host',
      DB_PASSWORD: 'app-pw',
    });
    const overridden = await command.run(
      ['run', '--vault', base, ...printing('DB_HOST', 'DB_PASSWORD')],
      { SECRETS_VAULT_VAULT_ID: app },
    );
    expect(JSON.parse(overridden.stdout)).toEqual({ DB_HOST: 'base-host', DB_PASSWORD: 'base-pw' });
  });

  it('refuses an empty vault id in SECRETS_VAULT_VAULT_ID, and several vaults for ls', async () => {
    const base = await vaultWith('base', { db: { host: 'h' } });
    const empty = await command.run(['run', ...printing('DB_HOST')], {
      SECRETS_VAULT_VAULT_ID: `${base},,`,
    });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('SECRETS_VAULT_VAULT_ID takes vault ids separated by commas');
    const none = await command.run(['run', ...printing('DB_HOST')]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--vault <id> is required (or set SECRETS_VAULT_VAULT_ID)');
    const ls = await command.run(['ls', '--vault', base, '--vault', base.replace(/.$/, 'x')]);
    expect(ls.code).toBe(2);
    expect(ls.stderr).toContain('ls lists one vault: give --vault once');
  });

  it('exports several vaults merged, and a snapshot of them that run --fallback-only starts from in that order only', async () => {
    const base = await vaultWith('base', { db: { host: 'base-host', password: 'base-pw' } });
    const app = await vaultWith('app', { db: { password: 'app-pw' } });
    const exported = await command.run([
      'export',
      '--vault',
      base,
      '--vault',
      app,
      '--format',
      'json',
    ]);
    expect(JSON.parse(exported.stdout)).toEqual({ DB_HOST: 'base-host', DB_PASSWORD: 'app-pw' });
    const snapshot = join(command.directory, `several-${randomBytes(4).toString('hex')}.snapshot`);
    const env = { SECRETS_VAULT_FALLBACK_KEY: KEY };
    const written = await command.run(
      ['export', '--vault', base, '--vault', app, '--format', 'snapshot', '--output', snapshot],
      env,
    );
    expect(written).toMatchObject({ code: 0, stderr: '' });
    const offline = { ...env, SECRETS_VAULT_BASE_URL: command.served.url };
    // The service is down: only the snapshot can start the command.
    mock.faults.inject({ path: VALUES }, { kind: 'status', status: 503 });
    const started = await command.run(
      [
        'run',
        '--vault',
        base,
        '--vault',
        app,
        '--fallback',
        snapshot,
        '--fallback-only',
        ...printing('DB_HOST', 'DB_PASSWORD'),
      ],
      offline,
    );
    expect(started.code).toBe(0);
    expect(JSON.parse(started.stdout)).toEqual({ DB_HOST: 'base-host', DB_PASSWORD: 'app-pw' });
    const reordered = await command.run(
      [
        'run',
        '--vault',
        app,
        '--vault',
        base,
        '--fallback',
        snapshot,
        '--fallback-only',
        ...printing('DB_PASSWORD'),
      ],
      offline,
    );
    expect(reordered.code).toBe(1);
    expect(reordered.stderr).toContain('holds other vaults than --vault');
  });
});

describe('--env-file', () => {
  it("adds a file's variables under the job's own, and resolves its vault:// references", async () => {
    const vaultId = await vaultWith('job', { db: { password: 'vault-pw' } });
    const other = await vaultWith('other', { api: { key: 'referenced-key' } });
    const first = file(
      [
        '# the first file',
        'export FROM_FILE="first"',
        'OVERRIDDEN_BY_JOB=file',
        'DB_PASSWORD=file-pw',
        `API_KEY=vault://${other}/api/key`,
        'MULTI="line one',
        'line two"',
      ].join('\n'),
    );
    const second = file("FROM_FILE='second'\n");
    const names = ['FROM_FILE', 'OVERRIDDEN_BY_JOB', 'DB_PASSWORD', 'API_KEY', 'MULTI'];
    const args = ['run', '--vault', vaultId, '--env-file', first, '--env-file', second];
    const result = await command.run([...args, ...printing(...names)], {
      OVERRIDDEN_BY_JOB: 'job',
    });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(result.stdout)).toEqual({
      FROM_FILE: 'second',
      OVERRIDDEN_BY_JOB: 'job',
      // The file is the job's: without --override, the vault does not replace it.
      DB_PASSWORD: 'file-pw',
      API_KEY: 'referenced-key',
      MULTI: 'line one\nline two',
    });
    const overriding = await command.run([
      ...args,
      '--override',
      ...printing('DB_PASSWORD', 'FROM_FILE'),
    ]);
    expect(JSON.parse(overriding.stdout)).toEqual({ DB_PASSWORD: 'vault-pw', FROM_FILE: 'second' });
  });

  it('exits naming a file it cannot read, one over 1 MiB, or one that is not UTF-8, before any request', async () => {
    const vaultId = await vaultWith('job', { db: { password: 'vault-pw' } });
    const missing = join(command.directory, 'missing.env');
    const notUtf8 = file('');
    writeFileSync(notUtf8, Buffer.from([0x41, 0x3d, 0xff, 0xfe]));
    const cases: [string, RegExp][] = [
      // secrets-vault's own words: Node.js never reads the file (env-file-launch.test.ts).
      [missing, /^secrets-vault: cannot read the env file .*missing\.env: ENOENT\n$/],
      [file(`BIG=${'x'.repeat(1024 * 1024)}`), /the env file .* is larger than 1 MiB\n$/],
      [notUtf8, /the env file .* is not UTF-8 text\n$/],
    ];
    const reads = mock.faults.inject({ path: VALUES }, { kind: 'delay', ms: 0 });
    for (const [path, message] of cases) {
      const result = await command.run([
        'run',
        '--vault',
        vaultId,
        '--env-file',
        path,
        ...printing('DB_PASSWORD'),
      ]);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(message);
      expect(result.stdout).toBe('');
    }
    expect(reads.hits).toBe(0);
  });
});

describe('--mask', () => {
  /** A command that writes `chunks` to stdout and stderr, one write each, a pause between. */
  function writing(chunks: readonly (string | Buffer)[], exitCode = 0): string[] {
    const encoded = chunks.map((chunk) => Buffer.from(chunk).toString('base64'));
    return nodeRunning(`
      const chunks = ${JSON.stringify(encoded)};
      let index = 0;
      const next = () => {
        if (index === chunks.length) return process.exit(${exitCode});
        const chunk = Buffer.from(chunks[index++], 'base64');
        process.stdout.write(chunk);
        process.stderr.write(chunk, () => setTimeout(next, 20));
      };
      next();
    `);
  }

  it('redacts every secret value of 4 characters or more in stdout and stderr, also split across writes and characters', async () => {
    const password = 'pa55-wörd-🔐-secret';
    const vaultId = await vaultWith('job', {
      db: { password, pin: '123', user: 'alice' },
    });
    const other = await vaultWith('other', { api: { key: 'referenced-api-key' } });
    const bytes = Buffer.from(`user=alice password=${password} pin=123\n`);
    // Split in the middle of the value and in the middle of the emoji's four bytes.
    const cut = bytes.indexOf(Buffer.from('🔐')) + 2;
    const chunks = [
      'starting\n',
      bytes.subarray(0, cut),
      bytes.subarray(cut),
      // A job's own variable (PATH) is not a secret: it is never redacted.
      `key=referenced-api-key path=${process.env.PATH?.slice(0, 8)}\n`,
      'no newline at the end',
    ];
    const result = await command.run(['run', '--vault', vaultId, '--mask', ...writing(chunks, 3)], {
      API_KEY: `vault://${other}/api/key`,
    });
    const expected = [
      'starting\n',
      'user=<redacted> password=<redacted> pin=123\n',
      `key=<redacted> path=${process.env.PATH?.slice(0, 8)}\n`,
      'no newline at the end',
    ].join('');
    expect(result).toEqual({ code: 3, stdout: expected, stderr: expected });
  });

  it('is refused with --exec, and leaves output untouched without --mask', async () => {
    const vaultId = await vaultWith('job', { db: { password: 'plain-password' } });
    const refused = await command.run([
      'run',
      '--vault',
      vaultId,
      '--mask',
      '--exec',
      ...writing(['x\n']),
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--exec cannot be used with --mask');
    const plain = await command.run(['run', '--vault', vaultId, ...writing(['plain-password\n'])]);
    expect(plain.stdout).toBe('plain-password\n');
  });

  it('ends a while after the command exits when a process it left behind keeps its output open', async () => {
    const vaultId = await vaultWith('job', { db: { password: 'lingering-password' } });
    const started = performance.now();
    const result = await command.run([
      'run',
      '--vault',
      vaultId,
      '--mask',
      ...nodeRunning(`
        const { spawn } = require('node:child_process');
        spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'inherit', detached: true }).unref();
        console.log('the lingering-password');
        process.exit(4);
      `),
    ]);
    expect(result.code).toBe(4);
    expect(result.stdout).toBe('the <redacted>\n');
    expect(performance.now() - started).toBeLessThan(15_000);
  });
});
