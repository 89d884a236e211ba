/**
 * `run --watch` as real child processes against the served mock: a rotated secret restarts the
 * command (its whole process group) with the new value; unchanged values, an outage and the
 * command's own exit do not; a command that ignores SIGTERM is killed after the grace; hostile
 * values rotate in verbatim and never reach stderr. The interval cannot go below 5 s, so the
 * slow cases run at once.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { SecretsVault } from '../../src/index.js';
import { finished, nodeRunning, type Result, useCommand, watchedVault } from './harness.js';

const command = useCommand();
const { mock } = command;
const VALUES_PATH = (vaultId: string) => `/v1/vaults/${vaultId}/secrets/values`;
const KEY = randomBytes(32).toString('base64');

let operator: SecretsVault;
beforeAll(() => {
  operator = new SecretsVault({ baseUrl: command.served.url, token: mock.principals.owner.token });
});

/** One line the recording command writes: a start with its environment, or a signal it got. */
interface Entry {
  readonly pid: number;
  readonly event: 'start' | 'SIGTERM' | 'grandchild';
  readonly env?: Record<string, string | undefined>;
  readonly at: number;
}

/**
 * A command that records each start (pid and the named variables) and each SIGTERM to
 * `RECORD`, starts a grandchild of its own that records its pid, and exits on SIGTERM unless
 * `IGNORE_TERM` is set.
 */
const RECORDER = `
const fs = require('node:fs');
const { spawn } = require('node:child_process');
const file = process.env.RECORD;
const names = JSON.parse(process.env.NAMES);
const write = (entry) => fs.appendFileSync(file, JSON.stringify({ pid: process.pid, at: Date.now(), ...entry }) + '\\n');
// Listening before the start is recorded: a test that signals once it sees the start must not
// find the default action still in place.
process.on('SIGTERM', () => {
  write({ event: 'SIGTERM' });
  if (!process.env.IGNORE_TERM) process.exit(0);
});
write({ event: 'start', env: Object.fromEntries(names.map((n) => [n, process.env[n]])) });
spawn(process.execPath, ['-e', "require('node:fs').appendFileSync(process.env.RECORD, JSON.stringify({ pid: process.pid, event: 'grandchild', at: Date.now() }) + '\\\\n'); setInterval(() => {}, 1000)"], { stdio: 'ignore' });
setInterval(() => {}, 1000);
`;

function entries(file: string): Entry[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Entry);
}

const starts = (file: string) => entries(file).filter((entry) => entry.event === 'start');

async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = performance.now() + ms;
  while (!check()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Starts `run --watch` with the recorder, printing `names`; returns the run and its record. */
function watchRecording(
  vaultId: string,
  file: string,
  names: readonly string[],
  extra: readonly string[] = [],
  env: Record<string, string | undefined> = {},
) {
  const child = command.start(
    [
      'run',
      '--vault',
      vaultId,
      '--watch',
      '--watch-interval',
      '5s',
      ...extra,
      ...nodeRunning(RECORDER),
    ],
    {
      SECRETS_VAULT_TOKEN: mock.principals.owner.token,
      RECORD: file,
      NAMES: JSON.stringify(names),
      ...env,
    },
  );
  return { child, result: finished(child) };
}

const record = (name: string) =>
  join(command.directory, `${name}-${randomBytes(4).toString('hex')}.jsonl`);

describe.concurrent('run --watch', () => {
  it('restarts the command and its children once with a rotated value, rewriting the snapshot', async () => {
    const { vaultId, rotate } = await watchedVault(command, { token: 'first-value' });
    const file = record('rotation');
    const snapshot = join(command.directory, `${vaultId}.snapshot`);
    const { child, result } = watchRecording(
      vaultId,
      file,
      ['APP_TOKEN'],
      ['--fallback', snapshot],
      {
        SECRETS_VAULT_FALLBACK_KEY: KEY,
      },
    );
    await until(() => starts(file).length === 1, 10_000, 'the first start');
    await until(
      () => entries(file).some((entry) => entry.event === 'grandchild'),
      10_000,
      'the grandchild',
    );
    await rotate({ token: 'second-value' });
    await until(() => starts(file).length === 2, 15_000, 'the restart');
    const [first, second] = starts(file);
    expect(first?.env).toEqual({ APP_TOKEN: 'first-value' });
    expect(second?.env).toEqual({ APP_TOKEN: 'second-value' });
    // The old command got SIGTERM once and is gone, and so is the child it started.
    const before = entries(file).filter((entry) => entry.at <= (second?.at ?? 0));
    expect(before.filter((entry) => entry.event === 'SIGTERM').map(({ pid }) => pid)).toEqual([
      first?.pid,
    ]);
    const oldGrandchild = before.find((entry) => entry.event === 'grandchild');
    expect(oldGrandchild).toBeDefined();
    expect(alive(first?.pid ?? 0)).toBe(false);
    expect(alive(oldGrandchild?.pid ?? 0)).toBe(false);
    // Another interval passes without a second restart.
    await new Promise((resolve) => setTimeout(resolve, 5_500));
    expect(starts(file)).toHaveLength(2);
    child.kill('SIGTERM');
    const { code, stderr } = await result;
    expect(code).toBe(0);
    expect(stderr).toBe(
      `secrets-vault: the values changed: APP_TOKEN; restarting the command (pid ${first?.pid})\n` +
        `secrets-vault: the command started again (pid ${second?.pid})\n`,
    );
    // The snapshot holds the rotated value: a start through an outage (of this service: the
    // snapshot is bound to it) gets it.
    const outage = mock.faults.inject({ path: VALUES_PATH(vaultId) }, { kind: 'network-error' });
    const fromSnapshot = await command.run(
      [
        'run',
        '--vault',
        vaultId,
        '--wait',
        '0',
        '--fallback',
        snapshot,
        ...nodeRunning('process.stdout.write(process.env.APP_TOKEN)'),
      ],
      { SECRETS_VAULT_TOKEN: mock.principals.owner.token, SECRETS_VAULT_FALLBACK_KEY: KEY },
    );
    outage.clear();
    expect(fromSnapshot.stdout).toBe('second-value');
    expect(fromSnapshot.stderr).toContain('starting from the snapshot');
  }, 40_000);

  it('keeps the command running through two intervals of unchanged values', async () => {
    const { vaultId } = await watchedVault(command, { token: 'steady', other: 'also-steady' });
    const file = record('steady');
    const { child, result } = watchRecording(vaultId, file, ['APP_TOKEN'], [], {
      SECRETS_VAULT_LOG: 'debug',
    });
    await until(() => starts(file).length === 1, 10_000, 'the start');
    await new Promise((resolve) => setTimeout(resolve, 15_500));
    child.kill('SIGTERM');
    const { code, stderr } = await result;
    expect(code).toBe(0);
    expect(starts(file)).toHaveLength(1);
    // The load at the start, then one poll in each of the two whole intervals that passed (and
    // perhaps one early in the third): never more than one an interval.
    expect(valueReads(stderr, vaultId)).toBeGreaterThanOrEqual(3);
    expect(valueReads(stderr, vaultId)).toBeLessThanOrEqual(4);
    expect(stderr).not.toContain('restarting');
  }, 40_000);

  it('keeps the command running through an outage, saying so once when it starts and once when it ends', async () => {
    const { vaultId } = await watchedVault(command, { token: 'during-outage' });
    const file = record('outage');
    const { child, result } = watchRecording(vaultId, file, ['APP_TOKEN']);
    await until(() => starts(file).length === 1, 10_000, 'the start');
    const started = performance.now();
    const fault = mock.faults.inject({ path: VALUES_PATH(vaultId) }, { kind: 'network-error' });
    // The polls of intervals 1 and 2 both fail.
    await new Promise((resolve) => setTimeout(resolve, 15_500 - (performance.now() - started)));
    const hits = fault.hits;
    fault.clear();
    let stderr = '';
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    await until(() => stderr.includes('the service is back'), 12_000, 'the service to be back');
    child.kill('SIGTERM');
    const done = await result;
    expect(hits).toBeGreaterThanOrEqual(2);
    expect(done.code).toBe(0);
    expect(starts(file)).toHaveLength(1);
    const lines = done.stderr.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /^secrets-vault: the service is unavailable \(.+\); the command keeps running with the values it has$/,
    );
    expect(lines[1]).toBe('secrets-vault: the service is back');
    expect(done.stderr).not.toContain('during-outage');
  }, 40_000);

  it('kills a command that ignores SIGTERM after --grace, then starts it again', async () => {
    const { vaultId, rotate } = await watchedVault(command, { token: 'stubborn-1' });
    const file = record('stubborn');
    const { child, result } = watchRecording(vaultId, file, ['APP_TOKEN'], ['--grace', '1s'], {
      IGNORE_TERM: '1',
    });
    await until(() => starts(file).length === 1, 10_000, 'the first start');
    await rotate({ token: 'stubborn-2' });
    await until(() => starts(file).length === 2, 15_000, 'the restart');
    const [first, second] = starts(file);
    const term = entries(file).find(
      (entry) => entry.event === 'SIGTERM' && entry.pid === first?.pid,
    );
    expect(term).toBeDefined();
    expect(second?.env).toEqual({ APP_TOKEN: 'stubborn-2' });
    // Restarted only after the grace, once SIGKILL had ended it.
    expect((second?.at ?? 0) - (term?.at ?? 0)).toBeGreaterThanOrEqual(900);
    expect(alive(first?.pid ?? 0)).toBe(false);
    // It ignores SIGTERM: only SIGKILL ends it, and run with it.
    child.kill('SIGTERM');
    await until(
      () => entries(file).filter((entry) => entry.event === 'SIGTERM').length === 2,
      15_000,
      'the SIGTERM',
    );
    process.kill(-(second?.pid ?? 0), 'SIGKILL');
    expect((await result).code).toBe(137);
  }, 60_000);

  it('ends with the command own exit code at once, polling no more', async () => {
    const { vaultId } = await watchedVault(command, { token: 'short-lived' });
    const started = performance.now();
    const [exited, killed] = await Promise.all([
      command.run(
        [
          'run',
          '--vault',
          vaultId,
          '--watch',
          ...nodeRunning('setTimeout(() => process.exit(7), 1000)'),
        ],
        {
          SECRETS_VAULT_TOKEN: mock.principals.owner.token,
          SECRETS_VAULT_LOG: 'debug',
          SECRETS_VAULT_WATCH_INTERVAL: '5s',
        },
      ),
      command.run(
        [
          'run',
          '--vault',
          vaultId,
          '--watch',
          ...nodeRunning("setTimeout(() => process.kill(process.pid, 'SIGKILL'), 1000)"),
        ],
        { SECRETS_VAULT_TOKEN: mock.principals.owner.token, SECRETS_VAULT_LOG: 'debug' },
      ),
    ]);
    expect(exited.code).toBe(7);
    expect(killed.code).toBe(137);
    // Well before the first poll could have happened, 5 s after the start.
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(valueReads(exited.stderr, vaultId)).toBe(1);
    expect(valueReads(killed.stderr, vaultId)).toBe(1);
  }, 40_000);

  it('rotates hostile values in verbatim, never resolved, never on stderr', async () => {
    const other = await operator.vaults.create({ name: 'other' });
    await operator.secrets.create(other.id, { name: 'db', value: { password: 'other-vault-pw' } });
    const { vaultId, rotate } = await watchedVault(command, {
      token: 'plain',
      quoted: 'plain',
      ref: 'plain',
      big: 'plain',
    });
    const hostile = {
      token: `it's "quoted" $(touch /tmp/pwned) \`id\` $HOME \\n`,
      quoted: 'line one\nline two\r\n\u001b]0;pwned\u0007\u001b[2J',
      ref: `vault://${other.id}/db/password`,
      big: `${'x'.repeat(64 * 1024 - 3)}end`,
    };
    const names = ['APP_TOKEN', 'APP_QUOTED', 'APP_REF', 'APP_BIG', 'FROM_JOB'];
    const file = record('hostile');
    const { child, result } = watchRecording(vaultId, file, names, [], {
      FROM_JOB: `vault://${other.id}/db/password`,
    });
    await until(() => starts(file).length === 1, 10_000, 'the first start');
    await rotate(hostile);
    await until(() => starts(file).length === 2, 15_000, 'the restart');
    expect(starts(file)[1]?.env).toEqual({
      APP_TOKEN: hostile.token,
      APP_QUOTED: hostile.quoted,
      APP_REF: hostile.ref,
      APP_BIG: hostile.big,
      FROM_JOB: 'other-vault-pw',
    });
    child.kill('SIGTERM');
    const { stderr } = await result;
    expect(stderr).toMatch(
      /^secrets-vault: the values changed: APP_BIG, APP_QUOTED, APP_REF, APP_TOKEN; restarting the command \(pid \d+\)\nsecrets-vault: the command started again \(pid \d+\)\n$/,
    );
  }, 40_000);
});

describe('run --watch usage', () => {
  it.each([
    [['--watch-interval', '4s'], {}, '--watch-interval takes a duration from 5s to 24h'],
    [['--watch-interval', 'soon'], {}, '--watch-interval takes a duration from 5s to 24h'],
    [
      [],
      { SECRETS_VAULT_WATCH_INTERVAL: '5 minutes' },
      'SECRETS_VAULT_WATCH_INTERVAL takes a duration',
    ],
    [[], { SECRETS_VAULT_WATCH_INTERVAL: '1s' }, 'SECRETS_VAULT_WATCH_INTERVAL takes a duration'],
    [['--grace', 'soon'], {}, '--grace takes a duration'],
    [['--exec'], {}, '--exec cannot be used with --watch'],
  ] as const)('refuses run --watch %j %j before loading anything', async (extra, env, message) => {
    const result = await command.run(
      ['run', '--vault', 'vlt_1', '--watch', ...extra, ...nodeRunning('process.exit(0)')],
      { SECRETS_VAULT_BASE_URL: `http://127.0.0.1:${command.closedPort}`, ...env },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('refuses --watch-interval and --grace without --watch', async () => {
    for (const flag of ['--watch-interval', '--grace']) {
      const result: Result = await command.run([
        'run',
        '--vault',
        'vlt_1',
        flag,
        '10s',
        ...nodeRunning(''),
      ]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`${flag} needs --watch`);
    }
  });
});

/** How many times `stderr` (SECRETS_VAULT_LOG=debug) shows the values of `vaultId` requested. */
function valueReads(stderr: string, vaultId: string): number {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith(`level=debug msg="→ GET ${VALUES_PATH(vaultId)}"`)).length;
}
