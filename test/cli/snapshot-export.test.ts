/**
 * A pre-seeded fallback snapshot, as real child processes against the served mock: `export
 * --format snapshot --output <file>` writes the encrypted snapshot `run --fallback <file>` reads,
 * and `run --fallback <file> --fallback-only` starts from it without a single request to the
 * service, with hostile values byte for byte and never on stderr.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { jobVaults, type Result, useCommand } from './harness.js';

// Values a vault editor might write to reach the job's shell, its other vaults or its output.
const HOSTILE = {
  password: `it's "quoted" $(touch /tmp/pwned) \`id\` $HOME \\n`,
  multiline: 'line one\nline two\r\nline three',
  escapes: '\u001b]0;pwned\u0007\u001b[2J\u001b[31mred',
  large: `${'x'.repeat(64 * 1024 - 3)}end`,
};
const KEY = randomBytes(32).toString('base64');
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
  // A value that names another vault: data, never resolved, from the service or a snapshot.
  await operator.secrets.create(vaultId, {
    name: 'pivot',
    value: { ref: `vault://${otherVaultId}/db/password` },
  });
  snapshot = join(command.directory, `${context.task.id}.snapshot`);
});

const withKey = () => ({ SECRETS_VAULT_FALLBACK_KEY: KEY });
const fromEnv = () => ({ FROM_ENV: `vault://${otherVaultId}/db/password` });

function exportSnapshot(env: Record<string, string | undefined> = {}): Promise<Result> {
  return command.run(['export', '--vault', vaultId, '--format', 'snapshot', '--output', snapshot], {
    ...withKey(),
    ...fromEnv(),
    ...env,
  });
}

const PRINTED = [
  'APP_PASSWORD',
  'APP_MULTILINE',
  'APP_ESCAPES',
  'APP_LARGE',
  'PIVOT_REF',
  'FROM_ENV',
];

/** `run` arguments whose command prints the named variables as JSON. */
function runPrinting(extra: readonly string[]): string[] {
  return [
    'run',
    '--vault',
    vaultId,
    ...extra,
    '--',
    process.execPath,
    '-e',
    `console.log(JSON.stringify(Object.fromEntries(${JSON.stringify(PRINTED)}.map((n) => [n, process.env[n]]))))`,
  ];
}

function expectedEnv(): Record<string, string> {
  return {
    APP_PASSWORD: HOSTILE.password,
    APP_MULTILINE: HOSTILE.multiline,
    APP_ESCAPES: HOSTILE.escapes,
    APP_LARGE: HOSTILE.large,
    PIVOT_REF: `vault://${otherVaultId}/db/password`,
    // Resolved at export from the exporting environment, and kept in the snapshot.
    FROM_ENV: 'other-vault-pw',
  };
}

function expectOneLine(result: Result, pattern: RegExp): void {
  const lines = result.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
  for (const value of [...Object.values(HOSTILE), 'other-vault-pw', KEY]) {
    expect(result.stderr).not.toContain(value);
  }
}

const STARTED_ONLY =
  /^secrets-vault: starting from the snapshot .+ \(--fallback-only\), saved \d+s ago$/;

describe('export --format snapshot', () => {
  it('writes an encrypted 0600 snapshot, atomically, and prints nothing', async () => {
    writeFileSync(snapshot, 'an older, world-readable file', { mode: 0o644 });
    chmodSync(snapshot, 0o644);
    const result = await exportSnapshot();
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(statSync(snapshot).mode & 0o777).toBe(0o600);
    const bytes = readFileSync(snapshot);
    expect(bytes.subarray(0, 4).toString('latin1')).toBe('SVFB');
    for (const value of [
      HOSTILE.password,
      HOSTILE.multiline,
      HOSTILE.escapes,
      'x'.repeat(64),
      'other-vault-pw',
      vaultId,
    ]) {
      expect(bytes.includes(Buffer.from(value))).toBe(false);
    }
    expect(readdirSync(command.directory).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('is a usage error without --output: a snapshot never goes to stdout', async () => {
    const result = await command.run(
      ['export', '--vault', vaultId, '--format', 'snapshot'],
      withKey(),
    );
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expectOneLine(result, /--format snapshot needs --output/);
  });

  it('is a usage error without a key, as run --fallback is, writing nothing', async () => {
    const result = await exportSnapshot({ SECRETS_VAULT_FALLBACK_KEY: undefined });
    expect(result.code).toBe(2);
    expectOneLine(result, /SECRETS_VAULT_FALLBACK_KEY/);
    expect(existsSync(snapshot)).toBe(false);
  });

  it('is read by run --fallback through an outage, before any good run', async () => {
    expect((await exportSnapshot()).code).toBe(0);
    mock.faults.inject({ path: VALUES_PATH }, { kind: 'network-error' });
    const result = await command.run(runPrinting(['--fallback', snapshot, '--wait', '1s']), {
      ...withKey(),
      ...fromEnv(),
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(expectedEnv());
    expectOneLine(result, /stayed unavailable .*; starting from the snapshot/);
  });
});

describe('run --fallback-only', () => {
  it('starts from the snapshot without a request, values verbatim, one line on stderr', async () => {
    expect((await exportSnapshot()).code).toBe(0);
    const outage = mock.faults.inject({ path: VALUES_PATH }, { kind: 'network-error' });
    // Debug logging says every request it sends (`→`): none may be sent.
    const result = await command.run(runPrinting(['--fallback', snapshot, '--fallback-only']), {
      ...withKey(),
      ...fromEnv(),
      SECRETS_VAULT_LOG: 'debug',
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(expectedEnv());
    expectOneLine(result, STARTED_ONLY);
    expect(result.stderr).not.toContain('→');
    expect(outage.hits).toBe(0);

    // The same run without --fallback-only does send them, and is seen doing so.
    const control = await command.run(runPrinting(['--fallback', snapshot, '--wait', '1s']), {
      ...withKey(),
      ...fromEnv(),
      SECRETS_VAULT_LOG: 'debug',
    });
    expect(control.code).toBe(0);
    expect(control.stderr).toContain('→');
    expect(outage.hits).toBeGreaterThan(0);
  });

  it('works with --exec', async () => {
    expect((await exportSnapshot()).code).toBe(0);
    const outage = mock.faults.inject({ path: VALUES_PATH }, { kind: 'network-error' });
    const result = await command.run(
      runPrinting(['--fallback', snapshot, '--fallback-only', '--exec']),
      { ...withKey(), ...fromEnv() },
    );
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(expectedEnv());
    expectOneLine(result, STARTED_ONLY);
    expect(outage.hits).toBe(0);
  });

  it('refuses a snapshot exported from another origin (exit 1), contacting nothing', async () => {
    expect((await exportSnapshot()).code).toBe(0);
    const result = await command.run(runPrinting(['--fallback', snapshot, '--fallback-only']), {
      ...withKey(),
      SECRETS_VAULT_BASE_URL: `http://127.0.0.1:${command.closedPort}`,
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expectOneLine(result, /cannot decrypt the snapshot .+ another service/);
  });

  it("refuses another vault's snapshot (exit 1)", async () => {
    expect((await exportSnapshot()).code).toBe(0);
    const result = await command.run(
      ['run', '--vault', otherVaultId, '--fallback', snapshot, '--fallback-only', '--', 'true'],
      withKey(),
    );
    expect(result.code).toBe(1);
    expectOneLine(result, /holds other vaults than --vault/);
  });

  it('exits 75 without a snapshot, or with one older than --fallback-max-age, as an outage does', async () => {
    const outage = mock.faults.inject({ path: VALUES_PATH }, { kind: 'network-error' });
    const missing = await command.run(
      runPrinting(['--fallback', snapshot, '--fallback-only']),
      withKey(),
    );
    expect(missing.code).toBe(75);
    expect(missing.stdout).toBe('');
    expectOneLine(missing, /^secrets-vault: no snapshot at .+ yet/);

    outage.clear();
    expect((await exportSnapshot()).code).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 50));
    mock.faults.inject({ path: VALUES_PATH }, { kind: 'network-error' });
    const old = await command.run(
      runPrinting(['--fallback', snapshot, '--fallback-only', '--fallback-max-age', '10']),
      withKey(),
    );
    expect(old.code).toBe(75);
    expect(old.stdout).toBe('');
    expectOneLine(old, /is not used: saved .+ ago, more than --fallback-max-age 10$/);
  });

  it.each([
    ['without --fallback', [], /--fallback-only needs --fallback/],
    ['with --watch', ['--fallback', 'f', '--watch'], /--fallback-only cannot be used with --watch/],
  ])('is a usage error %s', async (_, extra, pattern) => {
    const result = await command.run(
      ['run', '--vault', vaultId, '--fallback-only', ...extra, '--', 'true'],
      withKey(),
    );
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expectOneLine(result, pattern);
  });
});
