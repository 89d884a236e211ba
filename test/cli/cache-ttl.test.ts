/**
 * `run --fallback <file> --cache-ttl <duration>` as real child processes against the served mock:
 * a snapshot a good load wrote less than the TTL ago is started from without a single request to
 * the service, said in one line with its age, and gives the command the environment a load gives;
 * a stale, future-dated or mismatched snapshot is not used, and the job loads as without the flag.
 * Snapshots are made older (or dated in the future) by rewriting their `savedAt` under the key,
 * so no case waits for a TTL to pass.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { readSnapshot, type Snapshot, writeSnapshot } from '../../src/cli/fallback.js';
import { finished, jobVaults, type Result, untilOutput, useCommand } from './harness.js';

const KEY = randomBytes(32).toString('base64');
const OTHER_KEY = randomBytes(32).toString('base64');

const command = useCommand();
const { mock } = command;
let vaultId: string;
let otherVaultId: string;
let snapshot: string;
let rotate: (value: Record<string, string>) => Promise<unknown>;

// Values a vault editor might write, and one that names another vault: data, never resolved.
const VALUES = {
  password: `it's "quoted" $(touch /tmp/pwned) \`id\` $HOME \\n`,
  multiline: 'line one\nline two\r\nline three',
  escapes: '\u001b]0;pwned\u0007\u001b[2J\u001b[31mred',
};

beforeEach(async (context) => {
  const vaults = await jobVaults(command);
  const { operator } = vaults;
  otherVaultId = vaults.otherVaultId;
  vaultId = vaults.vaultId;
  const secret = await operator.secrets.create(vaultId, {
    name: 'app',
    value: { ...VALUES, ref: `vault://${otherVaultId}/db/password` },
  });
  rotate = (value) => operator.secrets.update(secret.id, { value });
  snapshot = join(command.directory, `${context.task.id}.snapshot`);
});

const withKey = (key = KEY) => ({ SECRETS_VAULT_FALLBACK_KEY: key });
/** A reference in the job's own environment: resolved by a load, and kept in the snapshot. */
const fromEnv = () => ({ FROM_ENV: `vault://${otherVaultId}/db/password` });
/** Counts the requests for the job vault's values, answering them as usual. */
const countReads = () =>
  mock.faults.inject({ path: `/v1/vaults/${vaultId}/secrets/values` }, { kind: 'delay', ms: 0 });

const PRINTED = ['APP_PASSWORD', 'APP_MULTILINE', 'APP_ESCAPES', 'APP_REF', 'FROM_ENV'];
/** A command that prints the named variables as JSON. */
const PRINT = `console.log(JSON.stringify(Object.fromEntries(${JSON.stringify(PRINTED)}.map((n) => [n, process.env[n]]))))`;

/** `run --vault <vault> --fallback <snapshot> <extra> -- node -e <script>`. */
function runArgs(extra: readonly string[] = [], script = PRINT): string[] {
  return [
    'run',
    '--vault',
    vaultId,
    '--fallback',
    snapshot,
    ...extra,
    '--',
    process.execPath,
    '-e',
    script,
  ];
}

/** What the command of `PRINT` sees: every value as the vault holds it. */
function expectedEnv(): Record<string, string> {
  return {
    APP_PASSWORD: VALUES.password,
    APP_MULTILINE: VALUES.multiline,
    APP_ESCAPES: VALUES.escapes,
    // The vault's `vault://` value stays a literal; the job's own reference is resolved.
    APP_REF: `vault://${otherVaultId}/db/password`,
    FROM_ENV: 'other-vault-pw',
  };
}

/** The one line a start from the cache says, as the whole of stderr (`m` to find it among others). */
const CACHED_LINE = (ttl: string, age = '\\d+s', flags = '') =>
  new RegExp(
    `^secrets-vault: starting from the snapshot .+\\.snapshot \\(--cache-ttl ${ttl}\\), saved ${age} ago\\n${flags === 'm' ? '' : '$'}`,
    flags,
  );

/** Resolves once `check` holds; the test's own timeout bounds the wait. */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 50));
}

/** The origin the served mock's snapshots are bound to. */
const origin = () => new URL(command.served.url).origin;

/** The snapshot as the job's key opens it. */
function openSnapshot(): Snapshot {
  return readSnapshot(snapshot, Buffer.from(KEY, 'base64'), {
    vaultIds: [vaultId],
    origin: origin(),
  });
}

/** Rewrites the snapshot under the job's key as if a good load had written it at `savedAt`. */
function redate(savedAt: number): void {
  writeSnapshot(snapshot, Buffer.from(KEY, 'base64'), origin(), { ...openSnapshot(), savedAt });
}

/** A good run with `--cache-ttl` and no snapshot yet: it loads, and writes the snapshot. */
async function writeGoodSnapshot(env: Record<string, string> = {}): Promise<Result> {
  const result = await command.run(runArgs(['--cache-ttl', '1h']), {
    ...withKey(),
    ...fromEnv(),
    ...env,
  });
  expect(result.code).toBe(0);
  expect(result.stderr).toBe('');
  expect(existsSync(snapshot)).toBe(true);
  return result;
}

const HOUR = 60 * 60 * 1000;

describe('a crash loop', () => {
  it('costs one values request for five starts within the TTL, each cached start saying so with its age', async () => {
    const reads = countReads();
    const results: Result[] = [];
    for (let start = 0; start < 5; start += 1) {
      results.push(
        await command.run(runArgs(['--cache-ttl', '1h'], 'process.exit(1)'), {
          ...withKey(),
          ...fromEnv(),
        }),
      );
    }
    expect(reads.hits).toBe(1);
    expect(results.map(({ code }) => code)).toEqual([1, 1, 1, 1, 1]);
    expect(results[0]?.stderr).toBe('');
    for (const result of results.slice(1)) {
      expect(result.stderr).toMatch(CACHED_LINE('1h'));
    }
  }, 30_000);

  it('says the age of the good load that wrote the snapshot, never rewriting it from the cache', async () => {
    await writeGoodSnapshot();
    const savedAt = Date.now() - 30 * 60 * 1000;
    redate(savedAt);
    const reads = countReads();
    const cached = await command.run(runArgs(['--cache-ttl', '1h']), {
      ...withKey(),
      ...fromEnv(),
    });
    expect(cached.code).toBe(0);
    expect(reads.hits).toBe(0);
    expect(cached.stderr).toMatch(CACHED_LINE('1h', '30m \\d+s'));
    expect(openSnapshot().savedAt).toBe(savedAt);
  }, 30_000);
});

describe('past the TTL', () => {
  it('loads once, rewrites the snapshot, and starts from the new one after', async () => {
    await writeGoodSnapshot();
    redate(Date.now() - 2 * HOUR);
    const reads = countReads();
    const before = Date.now();
    const stale = await command.run(runArgs(['--cache-ttl', '1h']), { ...withKey(), ...fromEnv() });
    expect(stale.code).toBe(0);
    expect(stale.stderr).toBe('');
    expect(reads.hits).toBe(1);
    expect(openSnapshot().savedAt).toBeGreaterThanOrEqual(before);

    const fresh = await command.run(runArgs(['--cache-ttl', '1h']), { ...withKey(), ...fromEnv() });
    expect(fresh.code).toBe(0);
    expect(fresh.stderr).toMatch(CACHED_LINE('1h'));
    expect(reads.hits).toBe(1);
  }, 30_000);

  it('treats a snapshot dated in the future as stale: one request, and the snapshot is rewritten', async () => {
    await writeGoodSnapshot();
    redate(Date.now() + HOUR);
    const reads = countReads();
    const result = await command.run(runArgs(['--cache-ttl', '1h']), {
      ...withKey(),
      ...fromEnv(),
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(reads.hits).toBe(1);
    expect(openSnapshot().savedAt).toBeLessThanOrEqual(Date.now());
  }, 30_000);
});

describe('a snapshot that does not match the job', () => {
  it.each([
    ['of other vaults', () => ({ extra: ['--vault', otherVaultId], env: {} })],
    ['under another key', () => ({ extra: [], env: withKey(OTHER_KEY) })],
    [
      'without a value for a reference the job now has',
      () => ({ extra: [], env: { ALSO_FROM_ENV: `vault://${vaultId}/app/password` } }),
    ],
  ])(
    'is not used when it is %s: the job loads, with one request',
    async (_, change) => {
      await writeGoodSnapshot();
      const { extra, env } = change();
      const reads = countReads();
      const result = await command.run(runArgs(['--cache-ttl', '1h', ...extra]), {
        ...withKey(),
        ...fromEnv(),
        ...env,
      });
      expect(result.code).toBe(0);
      expect(result.stderr).toBe('');
      expect(reads.hits).toBe(1);
    },
    30_000,
  );

  it('is not used when it is damaged: the job loads and writes a good one', async () => {
    await writeGoodSnapshot();
    truncateSync(snapshot, 20);
    const reads = countReads();
    const result = await command.run(runArgs(['--cache-ttl', '1h']), {
      ...withKey(),
      ...fromEnv(),
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(reads.hits).toBe(1);
    expect(openSnapshot().vaults.map((vault) => vault.vaultId)).toEqual([vaultId]);
  }, 30_000);

  it('is not used from another service: the job falls back on an outage as without a TTL', async () => {
    await writeGoodSnapshot();
    const dead = { SECRETS_VAULT_BASE_URL: `http://127.0.0.1:${command.closedPort}` };
    const result = await command.run(runArgs(['--cache-ttl', '1h', '--wait', '0']), {
      ...withKey(),
      ...fromEnv(),
      ...dead,
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/cannot decrypt the snapshot .+ another service/);
    expect(result.stderr).not.toMatch(/--cache-ttl/);
  }, 30_000);
});

describe('what the command gets', () => {
  it('is the same environment from the cache as from a load, references included', async () => {
    const loaded = await writeGoodSnapshot();
    const reads = countReads();
    const cached = await command.run(runArgs(['--cache-ttl', '1h']), {
      ...withKey(),
      ...fromEnv(),
    });
    expect(reads.hits).toBe(0);
    expect(cached.code).toBe(0);
    expect(cached.stderr).toMatch(CACHED_LINE('1h'));
    expect(JSON.parse(cached.stdout)).toEqual(expectedEnv());
    expect(cached.stdout).toBe(loaded.stdout);
  }, 30_000);

  it('has its values masked under --mask as loaded ones are', async () => {
    const script = `console.log(process.env.APP_PASSWORD + ' ' + process.env.FROM_ENV)`;
    const loaded = await command.run(runArgs(['--cache-ttl', '1h', '--mask'], script), {
      ...withKey(),
      ...fromEnv(),
    });
    expect(loaded.stderr).toBe('');
    const cached = await command.run(runArgs(['--cache-ttl', '1h', '--mask'], script), {
      ...withKey(),
      ...fromEnv(),
    });
    expect(cached.stderr).toMatch(CACHED_LINE('1h'));
    expect(cached.stdout).toBe('<redacted> <redacted>\n');
    expect(cached.stdout).toBe(loaded.stdout);
  }, 30_000);
});

describe('the TTL', () => {
  it('comes from SECRETS_VAULT_CACHE_TTL, and the flag wins over it', async () => {
    await writeGoodSnapshot();
    redate(Date.now() - 10 * 60 * 1000);
    const reads = countReads();
    const fromVariable = await command.run(runArgs(), {
      ...withKey(),
      ...fromEnv(),
      SECRETS_VAULT_CACHE_TTL: '1h',
    });
    expect(fromVariable.code).toBe(0);
    expect(fromVariable.stderr).toMatch(CACHED_LINE('1h', '10m \\d+s'));
    expect(reads.hits).toBe(0);

    // The flag's 1h against the variable's 1m, which the snapshot is older than.
    const flagWins = await command.run(runArgs(['--cache-ttl', '1h']), {
      ...withKey(),
      ...fromEnv(),
      SECRETS_VAULT_CACHE_TTL: '1m',
    });
    expect(flagWins.stderr).toMatch(CACHED_LINE('1h', '10m \\d+s'));
    expect(reads.hits).toBe(0);

    // 0 turns off a TTL the variable sets.
    const off = await command.run(runArgs(['--cache-ttl', '0']), {
      ...withKey(),
      ...fromEnv(),
      SECRETS_VAULT_CACHE_TTL: '1h',
    });
    expect(off.code).toBe(0);
    expect(off.stderr).toBe('');
    expect(reads.hits).toBe(1);
  }, 30_000);

  it('from the variable is ignored without --fallback, as --fallback-max-age is', async () => {
    const result = await command.run(
      ['run', '--vault', vaultId, '--', process.execPath, '-e', PRINT],
      { ...fromEnv(), SECRETS_VAULT_CACHE_TTL: '1h' },
    );
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual(expectedEnv());
  }, 30_000);

  it.each([
    ['without --fallback', ['run', '--cache-ttl', '1h'], {}, /--cache-ttl needs --fallback <file>/],
    [
      'with --fallback-only',
      ['--cache-ttl', '1h', '--fallback-only'],
      {},
      /--cache-ttl cannot be used with --fallback-only/,
    ],
    ['malformed', ['--cache-ttl', 'soon'], {}, /--cache-ttl takes a duration from 1s to 168h/],
    ['under a second', ['--cache-ttl', '500ms'], {}, /--cache-ttl takes a duration from 1s/],
    ['over a week', ['--cache-ttl', '169h'], {}, /--cache-ttl takes a duration from 1s to 168h/],
    ['Infinity', ['--cache-ttl', 'Infinity'], {}, /--cache-ttl takes a duration/],
    [
      'a malformed variable',
      [],
      { SECRETS_VAULT_CACHE_TTL: '1 hour' },
      /SECRETS_VAULT_CACHE_TTL takes a duration from 1s to 168h/,
    ],
  ])(
    'is a usage error %s, before any request',
    async (_, extra, env, message) => {
      const reads = countReads();
      const args =
        extra[0] === 'run'
          ? ['run', '--vault', vaultId, ...extra.slice(1), '--', process.execPath, '-e', '']
          : runArgs(extra);
      const result = await command.run(args, { ...withKey(), ...env });
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(message);
      expect(result.stderr).toMatch(/\(see secrets-vault run --help\)\n$/);
      expect(result.stderr.split('\n').filter((line) => line !== '')).toHaveLength(1);
      expect(reads.hits).toBe(0);
    },
    30_000,
  );
});

describe('with --watch', () => {
  it('starts from the cache at once and still polls, restarting on a rotation', async () => {
    await writeGoodSnapshot();
    const reads = countReads();
    const record = join(command.directory, `watch-${randomBytes(4).toString('hex')}.log`);
    const script = `require('node:fs').appendFileSync(${JSON.stringify(record)}, process.env.APP_PASSWORD + '\\n'); setInterval(() => {}, 1000)`;
    const child = command.start(
      runArgs(['--cache-ttl', '1h', '--watch', '--watch-interval', '5s'], script),
      { ...withKey(), ...fromEnv() },
    );
    const result = finished(child);
    await untilOutput(child.stderr, '(--cache-ttl 1h)');
    expect(reads.hits).toBe(0);
    await rotate({ ...VALUES, password: 'rotated', ref: 'x' });
    const starts = () => (existsSync(record) ? readFileSync(record, 'utf8') : '');
    await until(() => starts().split('\n').length > 2);
    child.kill('SIGTERM');
    const { stderr } = await result;
    expect(reads.hits).toBeGreaterThanOrEqual(1);
    expect(starts()).toBe(`${VALUES.password}\nrotated\n`);
    expect(stderr).toMatch(CACHED_LINE('1h', '\\d+s', 'm'));
    expect(stderr).toMatch(/^secrets-vault: the values changed: .+; restarting the command /m);
    expect(stderr).not.toMatch(/the service is back/);
    // The first good poll rewrote the snapshot with what it read.
    expect(openSnapshot().vaults[0]?.secrets.app?.password).toBe('rotated');
  }, 40_000);
});
