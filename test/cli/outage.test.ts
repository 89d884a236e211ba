/**
 * The command when the service is down or says no, as real child processes: `--wait`, the exit
 * codes a supervisor acts on (75 unavailable, 77 refused, 2 usage, 1 anything else), and the
 * encrypted `--fallback` snapshot: written 0600 and atomically after each good load, used only
 * through an outage, refused whole when tampered with or opened with another key.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { jobVaults, type Result, useCommand } from './harness.js';

// Values a vault editor might write to reach the job's shell, its other vaults or its output.
const HOSTILE = {
  password: `it's "quoted" $(touch /tmp/pwned) \`id\` $HOME \\n`,
  multiline: 'line one\nline two\r\nline three',
  unicode: 'pässwörd ✓ 🔐',
  escapes: '\u001b]0;pwned\u0007\u001b[2J\u001b[31mred',
};
// A name and a key written to break out of whatever quotes them.
const HOSTILE_NAME = `we"ird' $(name) \`x\``;
const HOSTILE_KEY = `k'ey;$HOME`;
const KEY = randomBytes(32).toString('base64');
const OTHER_KEY = randomBytes(32).toString('hex');
const VALUES_PATH = '/v1/vaults/:vaultId/secrets/values';

const command = useCommand();
const { mock } = command;
let vaultId: string;
let otherVaultId: string;
let snapshot: string;

beforeEach(async (context) => {
  const vaults = await jobVaults(command);
  const { operator } = vaults;
  otherVaultId = vaults.otherVaultId;
  vaultId = vaults.vaultId;
  await operator.secrets.create(vaultId, { name: 'app', value: HOSTILE });
  await operator.secrets.create(vaultId, {
    name: HOSTILE_NAME,
    value: { [HOSTILE_KEY]: 'odd-name-value' },
  });
  // Names that collide with what printing and serialising look up.
  await operator.secrets.create(vaultId, { name: 'toJSON', value: { toJSON: 'json-value' } });
  // A value that names another vault: it is data, never resolved, from the service or a snapshot.
  await operator.secrets.create(vaultId, {
    name: 'pivot',
    value: { ref: `vault://${otherVaultId}/db/password` },
  });
  snapshot = join(command.directory, `${context.task.id}.snapshot`);
});

/** `run` arguments whose command prints the named variables as JSON. */
function runPrinting(extra: readonly string[], ...names: string[]): string[] {
  return [
    'run',
    '--vault',
    vaultId,
    ...extra,
    '--',
    process.execPath,
    '-e',
    `console.log(JSON.stringify(Object.fromEntries(${JSON.stringify(names)}.map((n) => [n, process.env[n]]))))`,
  ];
}

const PRINTED = [
  'APP_PASSWORD',
  'APP_MULTILINE',
  'APP_UNICODE',
  'APP_ESCAPES',
  'WE_IRD_NAME_X__K_EY_HOME',
  'TOJSON_TOJSON',
  'PIVOT_REF',
  'FROM_ENV',
];

/** What the command of `runPrinting(…, ...PRINTED)` sees, with `FROM_ENV` a reference. */
function expectedEnv(): Record<string, string> {
  return {
    APP_PASSWORD: HOSTILE.password,
    APP_MULTILINE: HOSTILE.multiline,
    APP_UNICODE: HOSTILE.unicode,
    APP_ESCAPES: HOSTILE.escapes,
    WE_IRD_NAME_X__K_EY_HOME: 'odd-name-value',
    TOJSON_TOJSON: 'json-value',
    PIVOT_REF: `vault://${otherVaultId}/db/password`,
    FROM_ENV: 'other-vault-pw',
  };
}

const dead = () => ({ SECRETS_VAULT_BASE_URL: `http://127.0.0.1:${command.closedPort}` });

function expectOneLine(result: Result, pattern: RegExp): void {
  const lines = result.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
  expect(result.stderr).not.toMatch(/\n\s+at /);
  for (const value of [...Object.values(HOSTILE), 'other-vault-pw', KEY, OTHER_KEY]) {
    expect(result.stderr).not.toContain(value);
  }
}

async function timed(promise: Promise<Result>): Promise<Result & { ms: number }> {
  const started = performance.now();
  const result = await promise;
  return { ...result, ms: performance.now() - started };
}

describe('exit codes', () => {
  it('exits 75 within 6 s with --wait 2s against a dead service, naming the cause', async () => {
    const result = await timed(command.run(runPrinting(['--wait', '2s'], 'X'), dead()));
    expect(result.code).toBe(75);
    expect(result.ms).toBeLessThan(6_000);
    expect(result.ms).toBeGreaterThanOrEqual(1_000);
    expectOneLine(
      result,
      /^secrets-vault: the service stayed unavailable for \d+\.\ds: .*ECONNREFUSED/,
    );
    expect(result.stdout).toBe('');
  });

  it('exits 75 for export and ls too, and reads the wait from SECRETS_VAULT_WAIT', async () => {
    const env = { ...dead(), SECRETS_VAULT_WAIT: '1s' };
    for (const args of [
      ['export', '--vault', vaultId, '--format', 'json'],
      ['ls', '--vault', vaultId],
    ]) {
      const result = await timed(command.run(args, env));
      expect(result.code).toBe(75);
      expect(result.ms).toBeLessThan(5_000);
      expect(result.stdout).toBe('');
    }
  });

  it.each([
    ['run', (id: string) => ['run', '--vault', id, '--', process.execPath, '-e', '']],
    ['export', (id: string) => ['export', '--vault', id, '--format', 'dotenv']],
    ['ls', (id: string) => ['ls', '--vault', id]],
  ])('%s exits 77 at once when the token is refused, whatever --wait says', async (_, args) => {
    const result = await timed(
      command.run([...args(vaultId), '--wait', '60s'], { SECRETS_VAULT_TOKEN: 'sv_revoked_token' }),
    );
    expect(result.code).toBe(77);
    expect(result.ms).toBeLessThan(5_000);
    expectOneLine(result, /^secrets-vault: the token was refused: AuthenticationError/);
  });

  it('exits 77 when the token may not read the vault (403)', async () => {
    mock.faults.inject({ path: VALUES_PATH }, { kind: 'status', status: 403 });
    const result = await command.run(['ls', '--vault', vaultId]);
    expect(result.code).toBe(77);
    expectOneLine(result, /PermissionDeniedError/);
  });

  it('exits 1 at once for an unknown vault', async () => {
    const result = await timed(command.run(['ls', '--vault', 'vlt_missing', '--wait', '60s']));
    expect(result.code).toBe(1);
    expect(result.ms).toBeLessThan(5_000);
    expectOneLine(result, /^secrets-vault: NotFoundError/);
  });

  it.each([['soon'], ['-1s'], ['5 s'], ['']])('exits 2 for --wait=%j', async (wait) => {
    const result = await command.run(['ls', '--vault', vaultId, `--wait=${wait}`]);
    expect(result.code).toBe(2);
    expectOneLine(result, /--wait takes a duration/);
  });

  it('exits 2 with one line when --wait is given no value', async () => {
    const result = await command.run(['ls', '--vault', vaultId, '--wait', '-1s']);
    expect(result.code).toBe(2);
    expectOneLine(result, /^secrets-vault: .*--wait/);
  });

  it('exits 1 naming a malformed SECRETS_VAULT_MAX_RETRIES, before any request', async () => {
    const result = await command.run(['ls', '--vault', vaultId], {
      SECRETS_VAULT_MAX_RETRIES: 'lots',
    });
    expect(result.code).toBe(1);
    expectOneLine(result, /SECRETS_VAULT_MAX_RETRIES/);
  });

  it('starts every command of a fleet started during an outage once the service is back', async () => {
    const outage = mock.faults.inject({ path: VALUES_PATH }, { kind: 'network-error' });
    const runs = Array.from({ length: 3 }, () =>
      timed(command.run(runPrinting([], 'APP_UNICODE'))),
    );
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(outage.hits).toBeGreaterThanOrEqual(3);
    outage.clear();
    for (const result of await Promise.all(runs)) {
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({ APP_UNICODE: HOSTILE.unicode });
      expect(result.ms).toBeGreaterThanOrEqual(3_000);
    }
  }, 30_000);
});

describe('--fallback', () => {
  const withKey = (key = KEY) => ({ SECRETS_VAULT_FALLBACK_KEY: key });
  const fromEnv = () => ({ FROM_ENV: `vault://${otherVaultId}/db/password` });
  // The job's own service down: a snapshot is bound to it, so another (dead) one would not do.
  const outage = () => mock.faults.inject({ path: VALUES_PATH }, { kind: 'network-error' });

  it('is a usage error without a key, or with a key that is not 32 bytes, never quoting it', async () => {
    for (const key of [
      undefined,
      '',
      'c2hvcnQ=',
      'x'.repeat(64),
      randomBytes(31).toString('hex'),
    ]) {
      const result = await command.run(runPrinting(['--fallback', snapshot], 'X'), {
        SECRETS_VAULT_FALLBACK_KEY: key,
      });
      expect(result.code).toBe(2);
      expectOneLine(result, /SECRETS_VAULT_FALLBACK_KEY/);
      if (key) expect(result.stderr).not.toContain(key);
    }
  });

  it('keeps a 0600 snapshot after a good load, encrypted, and replaces it atomically', async () => {
    writeFileSync(snapshot, 'an older, world-readable file', { mode: 0o644 });
    chmodSync(snapshot, 0o644);
    const result = await command.run(runPrinting(['--fallback', snapshot], ...PRINTED), {
      ...withKey(),
      ...fromEnv(),
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(expectedEnv());
    expect(statSync(snapshot).mode & 0o777).toBe(0o600);
    const bytes = readFileSync(snapshot);
    for (const value of [...Object.values(HOSTILE), 'other-vault-pw', 'app', 'pivot', vaultId]) {
      expect(bytes.includes(Buffer.from(value))).toBe(false);
    }
    // No temporary file is left beside it.
    expect(readdirSync(command.directory).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('starts from the snapshot when the service stays unavailable, saying so with its age', async () => {
    const args = runPrinting(['--fallback', snapshot, '--wait', '1s'], ...PRINTED);
    expect((await command.run(args, { ...withKey(), ...fromEnv() })).code).toBe(0);

    outage();
    const result = await command.run(args, { ...withKey(), ...fromEnv() });
    expect(result.code).toBe(0);
    // The same variables, byte for byte; the env's reference from the snapshot, the vault's
    // `vault://` value still a literal.
    expect(JSON.parse(result.stdout)).toEqual(expectedEnv());
    // The last attempt starts late in the wait (at most 250 ms before it ends): on a loaded machine it can be
    // the wait that ends it, and the outage then ends in a timeout.
    expectOneLine(
      result,
      /^secrets-vault: the service stayed unavailable for \d+\.\ds \((APIConnectionError|APITimeoutError): .*\); starting from the snapshot .+, saved \d+s ago$/,
    );
  });

  it('starts from the snapshot through 503s too, and refreshes it once the service is back', async () => {
    const args = runPrinting(['--fallback', snapshot, '--wait', '1s'], 'APP_UNICODE');
    await command.run(args, withKey());
    const before = readFileSync(snapshot);
    const outage = mock.faults.inject({ path: VALUES_PATH }, { kind: 'status', status: 503 });
    const during = await command.run(args, withKey());
    expect(during.code).toBe(0);
    expect(during.stderr).toMatch(/InternalServerError.*starting from the snapshot/);
    expect(readFileSync(snapshot).equals(before)).toBe(true);
    outage.clear();
    const after = await command.run(args, withKey());
    expect(after.stderr).toBe('');
    expect(readFileSync(snapshot).equals(before)).toBe(false);
  });

  it('exits 75 when the service is down and no snapshot was written yet', async () => {
    const result = await command.run(runPrinting(['--fallback', snapshot, '--wait', '1s'], 'X'), {
      ...withKey(),
      ...dead(),
    });
    expect(result.code).toBe(75);
    expectOneLine(result, /no snapshot at .+ yet/);
  });

  it('never falls back after a refused token (77) or an unknown vault (1)', async () => {
    const args = runPrinting(['--fallback', snapshot, '--wait', '1s'], 'APP_UNICODE');
    await command.run(args, withKey());
    const refused = await command.run(args, { ...withKey(), SECRETS_VAULT_TOKEN: 'sv_revoked' });
    expect(refused.code).toBe(77);
    expect(refused.stdout).toBe('');
    mock.faults.inject({ path: VALUES_PATH }, { kind: 'status', status: 404 });
    const deleted = await command.run(args, withKey());
    expect(deleted.code).toBe(1);
    expect(deleted.stdout).toBe('');
    expectOneLine(deleted, /NotFoundError/);
  });

  it.each([
    ['a flipped byte of the ciphertext', (bytes: Buffer) => flip(bytes, 20)],
    ['a flipped byte of the tag', (bytes: Buffer) => flip(bytes, bytes.length - 1)],
    ['a flipped byte of the header', (bytes: Buffer) => flip(bytes, 0)],
    ['a truncated file', (bytes: Buffer) => bytes.subarray(0, bytes.length - 7)],
    ['an empty file', () => Buffer.alloc(0)],
    ['plain JSON put in its place', () => Buffer.from('{"vaultId":"x","secrets":{}}')],
  ])('refuses %s whole, and starts nothing', async (_, tamper) => {
    const args = runPrinting(['--fallback', snapshot, '--wait', '1s'], ...PRINTED);
    await command.run(args, withKey());
    writeFileSync(snapshot, tamper(readFileSync(snapshot)));
    outage();
    const result = await command.run(args, withKey());
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expectOneLine(
      result,
      /cannot decrypt the snapshot .+: wrong SECRETS_VAULT_FALLBACK_KEY, or the file was changed/,
    );
  });

  it('refuses a snapshot opened with another key', async () => {
    const args = runPrinting(['--fallback', snapshot, '--wait', '1s'], 'APP_UNICODE');
    await command.run(args, withKey());
    outage();
    const result = await command.run(args, withKey(OTHER_KEY));
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expectOneLine(result, /cannot decrypt the snapshot/);
  });

  it("refuses another vault's snapshot", async () => {
    await command.run(runPrinting(['--fallback', snapshot], 'X'), withKey());
    const args = [
      'run',
      '--vault',
      otherVaultId,
      '--fallback',
      snapshot,
      '--wait',
      '1s',
      '--',
      'true',
    ];
    outage();
    const result = await command.run(args, withKey());
    expect(result.code).toBe(1);
    expectOneLine(result, /holds other vaults than --vault/);
  });

  it('belongs to run only', async () => {
    const result = await command.run(['ls', '--vault', vaultId, '--fallback', snapshot], withKey());
    expect(result.code).toBe(2);
  });
});

function flip(bytes: Buffer, index: number): Buffer {
  const copy = Buffer.from(bytes);
  copy[index] = (copy[index] ?? 0) ^ 0x01;
  return copy;
}
