/**
 * What `run --fallback` will start from, as real child processes against the mock served on
 * loopback, through outages: only a snapshot saved from the same service (origin) and vault, read
 * only from a regular file of bounded size, under a key that is not 32 equal bytes, and no older
 * than `--fallback-max-age`; hostile values come back from it byte for byte and never reach
 * stderr.
 */
import { execFileSync } from 'node:child_process';
import { createCipheriv, randomBytes } from 'node:crypto';
import { symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeEach, describe, expect, it } from 'vitest';
import { finished, jobVaults, type Result, useCommand } from './harness.js';

const KEY = randomBytes(32).toString('base64');
const VALUES_PATH = '/v1/vaults/:vaultId/secrets/values';

const command = useCommand();
const { mock } = command;
let vaultId: string;
let otherVaultId: string;
let snapshot: string;
/** Values a vault editor might write to reach the job's shell, its other vaults or its terminal. */
let hostile: Record<string, string>;

beforeEach(async (context) => {
  const vaults = await jobVaults(command);
  const { operator } = vaults;
  otherVaultId = vaults.otherVaultId;
  vaultId = vaults.vaultId;
  hostile = {
    quotes: `it's "quoted" $(touch ${join(command.directory, 'pwned')}) \`id\` $HOME \\n`,
    newlines: 'line one\nline two\r\nline three\n',
    escapes: '\u001b]0;pwned\u0007\u001b[2J\u001b[31mred',
    reference: `vault://${otherVaultId}/db/password`,
    // 64 KiB, then a mark to look for.
    large: `${'0123456789abcdef'.repeat(4096)}large-end-mark`,
  };
  await operator.secrets.create(vaultId, { name: 'app', value: hostile });
  snapshot = join(command.directory, `${context.task.id}.snapshot`);
});

const withKey = (key = KEY) => ({ SECRETS_VAULT_FALLBACK_KEY: key });
/** A reference in the job's own environment: resolved, and kept in the snapshot. */
const fromEnv = () => ({ FROM_ENV: `vault://${otherVaultId}/db/password` });
/** Another service (another origin), and down: connections to it are refused. */
const dead = () => ({ SECRETS_VAULT_BASE_URL: `http://127.0.0.1:${command.closedPort}` });
/** An outage of the job's own service: every values request has its connection dropped. */
const outage = () => mock.faults.inject({ path: VALUES_PATH }, { kind: 'network-error' });

const PRINTED = [
  'APP_QUOTES',
  'APP_NEWLINES',
  'APP_ESCAPES',
  'APP_REFERENCE',
  'APP_LARGE',
  'FROM_ENV',
];

/** `run --vault <vault> --fallback <snapshot> <extra>` printing `PRINTED` as JSON. */
function runPrinting(extra: readonly string[] = []): string[] {
  return [
    'run',
    '--vault',
    vaultId,
    '--fallback',
    snapshot,
    '--wait',
    '1s',
    ...extra,
    '--',
    process.execPath,
    '-e',
    `console.log(JSON.stringify(Object.fromEntries(${JSON.stringify(PRINTED)}.map((n) => [n, process.env[n]]))))`,
  ];
}

/** What the command of `runPrinting` sees: every value as the vault holds it. */
function expectedEnv(): Record<string, string | undefined> {
  return {
    APP_QUOTES: hostile.quotes,
    APP_NEWLINES: hostile.newlines,
    APP_ESCAPES: hostile.escapes,
    // The vault's `vault://` value stays a literal; the job's own reference is resolved.
    APP_REFERENCE: hostile.reference,
    APP_LARGE: hostile.large,
    FROM_ENV: 'other-vault-pw',
  };
}

/** A good run: the service answers, and the snapshot is written. */
async function writeGoodSnapshot(): Promise<void> {
  const result = await command.run(runPrinting(), { ...withKey(), ...fromEnv() });
  expect(result.code).toBe(0);
  expect(result.stderr).toBe('');
}

/**
 * Runs the command, killing it (SIGKILL) if it has not ended after `deadline` ms: a command that
 * hangs, or reads without end, fails the test instead of outliving it.
 */
async function runWithin(
  args: readonly string[],
  env: Record<string, string | undefined>,
  deadline: number,
): Promise<Result & { ms: number }> {
  const started = performance.now();
  const child = command.start(args, env);
  const timer = setTimeout(() => child.kill('SIGKILL'), deadline);
  try {
    const result = await finished(child);
    return { ...result, ms: performance.now() - started };
  } finally {
    clearTimeout(timer);
  }
}

/** One line on stderr, matching `pattern`, with no stack, value or key in it. */
function expectOneLine(result: Result, pattern: RegExp): void {
  const lines = result.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
  expect(result.stderr).not.toMatch(/\n\s+at /);
  expectNoValueIn(result.stderr);
}

function expectNoValueIn(stderr: string): void {
  for (const value of [...Object.values(hostile), 'other-vault-pw', 'large-end-mark', KEY]) {
    expect(stderr).not.toContain(value);
  }
  expect(stderr).not.toContain('\u001b');
}

describe('a snapshot is bound to the service it was saved from', () => {
  it('is not used when the job points at another service, also down, but is under another spelling of the same origin', async () => {
    await writeGoodSnapshot();
    // The same origin, spelled as URL normalizes it away: upper-case scheme, a trailing slash.
    const sameOrigin = `${command.served.url.replace(/^http:/, 'HTTP:')}/`;
    mock.faults.inject({ path: VALUES_PATH }, { kind: 'status', status: 503 });
    const same = await command.run(runPrinting(), {
      ...withKey(),
      ...fromEnv(),
      SECRETS_VAULT_BASE_URL: sameOrigin,
    });
    expect(same.code).toBe(0);
    expect(JSON.parse(same.stdout)).toEqual(expectedEnv());
    expectOneLine(same, /starting from the snapshot/);

    const other = await command.run(runPrinting(), { ...withKey(), ...fromEnv(), ...dead() });
    expect(other.code).toBe(1);
    expect(other.stdout).toBe('');
    // The last attempt starts late in the wait (at most 250 ms before it ends): on a loaded machine even a
    // refused connection can outlast the wait, and the outage then ends in a timeout.
    expectOneLine(
      other,
      /^secrets-vault: the service stayed unavailable for \d+\.\ds \((APIConnectionError|APITimeoutError): .*\); cannot decrypt the snapshot .+ saved from another service than SECRETS_VAULT_BASE_URL$/,
    );
  });

  it('refuses a snapshot an earlier version wrote, unbound to its service, until a good load replaces it', async () => {
    // The earlier format: `SVFB`, version 1 and nothing else authenticated with the values.
    const header = Buffer.from('SVFB\u0001', 'latin1');
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', Buffer.from(KEY, 'base64'), nonce);
    cipher.setAAD(header);
    const plaintext = JSON.stringify({
      vaultId,
      savedAt: Date.now(),
      secrets: { app: { quotes: 'from the unbound snapshot' } },
      references: {},
    });
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    writeFileSync(snapshot, Buffer.concat([header, nonce, ciphertext, cipher.getAuthTag()]));

    const down = outage();
    const refused = await command.run(runPrinting(), { ...withKey(), ...fromEnv() });
    expect(refused.code).toBe(75);
    expect(refused.stdout).toBe('');
    expectOneLine(
      refused,
      /unavailable .*; the snapshot .+ was written by an earlier secrets-vault, not bound to its service, and is not read \(the next good load replaces it\)$/,
    );

    down.clear();
    await writeGoodSnapshot();
    outage();
    const replaced = await command.run(runPrinting(), { ...withKey(), ...fromEnv() });
    expect(replaced.code).toBe(0);
    expect(JSON.parse(replaced.stdout)).toEqual(expectedEnv());
  });
});

describe('only a regular file of bounded size is read', () => {
  it('refuses a FIFO at the path at once instead of waiting for a writer for ever', async () => {
    execFileSync('mkfifo', [snapshot]);
    outage();
    const result = await runWithin(runPrinting(), withKey(), 15_000);
    expect(result.code).toBe(1);
    // The wait (1 s) and a start-up, not a hang.
    expect(result.ms).toBeLessThan(6_000);
    expect(result.stdout).toBe('');
    expectOneLine(result, /unavailable .*; the snapshot .+ is not a regular file$/);
  }, 20_000);

  it('follows a link to a snapshot, but refuses a link to /dev/zero before reading a byte', async () => {
    const target = join(command.directory, 'linked.snapshot');
    const linked = snapshot;
    snapshot = target;
    await writeGoodSnapshot();
    symlinkSync(target, linked);
    snapshot = linked;
    outage();
    const followed = await command.run(runPrinting(), { ...withKey(), ...fromEnv() });
    expect(followed.code).toBe(0);
    expect(JSON.parse(followed.stdout)).toEqual(expectedEnv());

    const zero = `${linked}.zero`;
    symlinkSync('/dev/zero', zero);
    snapshot = zero;
    // Killed well before an endless read could use much memory.
    const result = await runWithin(runPrinting(), withKey(), 8_000);
    expect(result.code).toBe(1);
    expect(result.ms).toBeLessThan(6_000);
    expect(result.stdout).toBe('');
    expectOneLine(result, /unavailable .*; the snapshot .+ is not a regular file$/);
  }, 20_000);

  it('refuses a file over 32 MiB without reading it', async () => {
    // Sparse: no disk is used, and nothing is read if the size is checked first.
    writeFileSync(snapshot, '');
    truncateSync(snapshot, 32 * 1024 * 1024 + 1);
    outage();
    const result = await runWithin(runPrinting(), withKey(), 15_000);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expectOneLine(
      result,
      /unavailable .*; the snapshot .+ is larger than 32 MiB, which no snapshot is$/,
    );
  }, 20_000);
});

describe('the key', () => {
  it.each([
    ['32 zero bytes in base64', Buffer.alloc(32).toString('base64')],
    ['32 zero bytes in hex', Buffer.alloc(32).toString('hex')],
    ['32 x 0x41 in hex', Buffer.alloc(32, 0x41).toString('hex')],
    ['32 x 0x41 in base64', Buffer.alloc(32, 0x41).toString('base64')],
  ])('is a usage error when it is %s, naming the variable, never the key', async (_, key) => {
    const result = await command.run(runPrinting(), { ...withKey(key), ...fromEnv() });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expectOneLine(result, /^secrets-vault: SECRETS_VAULT_FALLBACK_KEY is 32 equal bytes/);
    expect(result.stderr).not.toContain(key);
  });
});

describe('--fallback-max-age', () => {
  it('does not start from a snapshot older than the maximum age, and does from a younger one, every value intact', async () => {
    await writeGoodSnapshot();
    await sleep(1_200);
    outage();
    const tooOld = await command.run(runPrinting(['--fallback-max-age', '1s']), {
      ...withKey(),
      ...fromEnv(),
    });
    expect(tooOld.code).toBe(75);
    expect(tooOld.stdout).toBe('');
    // Either class, as above: the wait can end the last attempt.
    expectOneLine(
      tooOld,
      /^secrets-vault: the service stayed unavailable for \d+\.\ds \((APIConnectionError|APITimeoutError): .*\); the snapshot .+ is not used: saved \d+s ago, more than --fallback-max-age 1s$/,
    );

    const young = await command.run(runPrinting(['--fallback-max-age', '1m']), {
      ...withKey(),
      ...fromEnv(),
    });
    expect(young.code).toBe(0);
    // Quotes, $(), line breaks, escapes, a `vault://` literal and 64 KiB, byte for byte.
    expect(JSON.parse(young.stdout)).toEqual(expectedEnv());
    expectOneLine(young, /starting from the snapshot .+, saved \d+s ago$/);
  }, 20_000);

  it('is read from SECRETS_VAULT_FALLBACK_MAX_AGE, which the flag overrides', async () => {
    await writeGoodSnapshot();
    await sleep(1_200);
    outage();
    const env = { ...withKey(), ...fromEnv() };
    const tooOld = await command.run(runPrinting(), {
      ...env,
      SECRETS_VAULT_FALLBACK_MAX_AGE: '1s',
    });
    expect(tooOld.code).toBe(75);
    expectOneLine(tooOld, /is not used: saved \d+s ago, more than --fallback-max-age 1s$/);

    const young = await command.run(runPrinting(), {
      ...env,
      SECRETS_VAULT_FALLBACK_MAX_AGE: '60000',
    });
    expect(young.code).toBe(0);
    expect(JSON.parse(young.stdout)).toEqual(expectedEnv());

    const overridden = await command.run(runPrinting(['--fallback-max-age', '2m']), {
      ...env,
      SECRETS_VAULT_FALLBACK_MAX_AGE: '1s',
    });
    expect(overridden.code).toBe(0);
  }, 20_000);

  it.each([
    ['a malformed flag', ['--fallback-max-age', 'soon'], {}, /--fallback-max-age takes a duration/],
    ['a flag of 0', ['--fallback-max-age', '0'], {}, /--fallback-max-age takes a duration/],
    [
      'a malformed variable',
      [],
      { SECRETS_VAULT_FALLBACK_MAX_AGE: '5 days' },
      /SECRETS_VAULT_FALLBACK_MAX_AGE takes a duration/,
    ],
  ])('is a usage error for %s, before anything is loaded', async (_, extra, env, pattern) => {
    const result = await command.run(runPrinting(extra), { ...withKey(), ...env });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expectOneLine(result, pattern);
  });

  it('needs --fallback, and belongs to run', async () => {
    const alone = await command.run([
      'run',
      '--vault',
      vaultId,
      '--fallback-max-age',
      '1m',
      '--',
      'true',
    ]);
    expect(alone.code).toBe(2);
    expectOneLine(alone, /--fallback-max-age needs --fallback/);
    const ls = await command.run(['ls', '--vault', vaultId, '--fallback-max-age', '1m']);
    expect(ls.code).toBe(2);
    expectOneLine(ls, /--fallback-max-age belongs to run/);
  });
});
