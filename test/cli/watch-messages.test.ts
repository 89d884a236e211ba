/**
 * What `run --watch` says on stderr at the moments that matter, as real child processes against
 * the served mock: which variables a restart is for and the pids it stops and starts, a kill
 * after the grace, the end of a refusal, a poll that hung past its deadline (in the watch's own
 * terms), and no log line per good poll at `SECRETS_VAULT_LOG=info`. No line ever holds a value.
 * The interval cannot go below 5 s, so the cases run at once.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { SecretsVault } from '../../src/index.js';
import { finished, nodeRunning, useCommand, watchedVault } from './harness.js';

const command = useCommand();
const { mock } = command;
const VALUES_PATH = (vaultId: string) => `/v1/vaults/${vaultId}/secrets/values`;

let operator: SecretsVault;
beforeAll(() => {
  operator = new SecretsVault({ baseUrl: command.served.url, token: mock.principals.owner.token });
});

/**
 * A command that records the pid of each start to `RECORD`, one line each, and stays up; it
 * ignores SIGTERM when `IGNORE_TERM` is set (listening before the start is recorded, so that a
 * SIGTERM never finds the default action in place). With `STUBBORN_CHILD` it starts a child that
 * ignores SIGTERM and writes `<pid> child` once it does.
 */
const RECORDER = `
process.on('SIGTERM', () => { if (!process.env.IGNORE_TERM) process.exit(0); });
if (process.env.STUBBORN_CHILD) {
  require('node:child_process').spawn(process.execPath, ['-e', "process.on('SIGTERM', () => {}); require('node:fs').appendFileSync(process.env.RECORD, process.pid + ' child\\\\n'); setInterval(() => {}, 1000)"], { stdio: 'ignore' });
}
require('node:fs').appendFileSync(process.env.RECORD, process.pid + '\\n');
setInterval(() => {}, 1000);
`;

/** The lines `file` records, in order. */
function recorded(file: string): string[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '');
}

/** The pids of the starts `file` records, in order. */
const starts = (file: string): number[] =>
  recorded(file)
    .filter((line) => !line.endsWith(' child'))
    .map(Number);

async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = performance.now() + ms;
  while (!check()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Our own lines of `stderr` (log lines left out). */
const ownLines = (stderr: string) =>
  stderr.split('\n').filter((line) => line.startsWith('secrets-vault: '));

/**
 * Starts `run --watch --watch-interval 5s` on `vaultId` with the recorder; `stderr()` is what it
 * has written there so far, and `result` its end.
 */
function watching(
  vaultId: string,
  extra: readonly string[] = [],
  env: Record<string, string | undefined> = {},
) {
  const file = join(command.directory, `starts-${randomBytes(4).toString('hex')}.txt`);
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
    { SECRETS_VAULT_TOKEN: mock.principals.owner.token, RECORD: file, ...env },
  );
  let written = '';
  child.stderr?.on('data', (chunk) => {
    written += chunk;
  });
  return { child, file, result: finished(child), stderr: () => written };
}

/** Two polls' worth of time (each interval has its poll at a random point of it), and more. */
const TWO_POLLS_MS = 12_000;

describe.concurrent('run --watch messages', () => {
  it('names the variables a rotation changed, added and removed, sorted, and the pid it stops and the one it starts, never a value', async () => {
    const { vaultId, rotate } = await watchedVault(command, {
      token: 'token-value-one',
      gone: 'gone-value',
      same: 'same-value',
    });
    const run = watching(vaultId);
    await until(() => starts(run.file).length === 1, 10_000, 'the first start');
    await rotate({ token: 'token-value-two', added: 'added-value', same: 'same-value' });
    await until(() => starts(run.file).length === 2, 15_000, 'the restart');
    run.child.kill('SIGTERM');
    const { code, stderr } = await run.result;
    expect(code).toBe(0);
    const [first, second] = starts(run.file);
    expect(ownLines(stderr)).toEqual([
      `secrets-vault: the values changed: APP_ADDED (added), APP_GONE (removed), APP_TOKEN; restarting the command (pid ${first})`,
      `secrets-vault: the command started again (pid ${second})`,
    ]);
    for (const value of ['token-value', 'gone-value', 'added-value', 'same-value']) {
      expect(stderr).not.toContain(value);
    }
  }, 40_000);

  it('says the kill when the command did not stop within --grace, naming its pid and the grace', async () => {
    const { vaultId, rotate } = await watchedVault(command, { token: 'stubborn-value-1' });
    const run = watching(vaultId, ['--grace', '1s'], { IGNORE_TERM: '1' });
    await until(() => starts(run.file).length === 1, 10_000, 'the first start');
    await rotate({ token: 'stubborn-value-2' });
    await until(() => starts(run.file).length === 2, 15_000, 'the restart');
    const [first, second] = starts(run.file);
    await until(() => run.stderr().includes('started again'), 5_000, 'the line of the start');
    expect(ownLines(run.stderr())).toEqual([
      `secrets-vault: the values changed: APP_TOKEN; restarting the command (pid ${first})`,
      `secrets-vault: the command (pid ${first}) did not stop within the 1s grace (--grace) after SIGTERM: sent SIGKILL to its process group`,
      `secrets-vault: the command started again (pid ${second})`,
    ]);
    // It ignores SIGTERM: only SIGKILL ends it, and run with it.
    run.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 500));
    process.kill(-(second ?? 0), 'SIGKILL');
    const { code, stderr } = await run.result;
    expect(code).toBe(137);
    expect(stderr).not.toContain('stubborn-value');
  }, 40_000);

  it('says the kill when processes the command started outlived it past --grace', async () => {
    const { vaultId, rotate } = await watchedVault(command, { token: 'orphan-value-1' });
    const run = watching(vaultId, ['--grace', '1s'], { STUBBORN_CHILD: '1' });
    await until(
      () => recorded(run.file).some((line) => line.endsWith(' child')),
      10_000,
      'the first start and its child',
    );
    await rotate({ token: 'orphan-value-2' });
    await until(() => starts(run.file).length === 2, 15_000, 'the restart');
    const [first, second] = starts(run.file);
    run.child.kill('SIGTERM');
    const { code, stderr } = await run.result;
    expect(code).toBe(0);
    expect(ownLines(stderr)).toEqual([
      `secrets-vault: the values changed: APP_TOKEN; restarting the command (pid ${first})`,
      `secrets-vault: processes the command (pid ${first}) started did not stop within the 1s grace (--grace) after SIGTERM: sent SIGKILL to its process group`,
      `secrets-vault: the command started again (pid ${second})`,
    ]);
    // The second command's child ignores SIGTERM too, and stays in its group: ended here.
    try {
      process.kill(-(second ?? 0), 'SIGKILL');
    } catch {
      // Already gone.
    }
    expect(stderr).not.toContain('orphan-value');
  }, 40_000);

  it('says when values the job refuses are no longer set, without a restart', async () => {
    const { vaultId } = await watchedVault(command, { token: 'kept-value' });
    const run = watching(vaultId);
    await until(() => starts(run.file).length === 1, 10_000, 'the start');
    // NODE_OPTIONS: a variable the job refuses unless --allow-var NODE_OPTIONS.
    const refused = await operator.secrets.create(vaultId, {
      name: 'node',
      value: { options: '--require=/refused-value.js' },
    });
    await until(() => run.stderr().includes('refused'), TWO_POLLS_MS, 'the refusal');
    await operator.secrets.delete(refused.id);
    await until(() => run.stderr().includes('accepted again'), TWO_POLLS_MS, 'its end');
    run.child.kill('SIGTERM');
    const { code, stderr } = await run.result;
    expect(code).toBe(0);
    expect(starts(run.file)).toHaveLength(1);
    expect(ownLines(stderr)).toEqual([
      "secrets-vault: the vault's new values are refused: the vault would set NODE_OPTIONS, which changes how programs start or what they load; allow it with --allow-var NODE_OPTIONS; the command keeps running with the values it has",
      "secrets-vault: the vault's values are accepted again",
    ]);
    expect(stderr).not.toContain('refused-value');
    expect(stderr).not.toContain('kept-value');
  }, 40_000);

  it('says when a reference of the job resolves again, having said it no longer did', async () => {
    const other = await operator.vaults.create({ name: 'referenced' });
    const db = await operator.secrets.create(other.id, {
      name: 'db',
      value: { password: 'referenced-value' },
    });
    const { vaultId } = await watchedVault(command, { token: 'own-value' });
    const reference = `vault://${other.id}/db/password`;
    const run = watching(vaultId, [], { FROM_JOB: reference });
    await until(() => starts(run.file).length === 1, 10_000, 'the start');
    await operator.secrets.update(db.id, { value: { user: 'no-password-value' } });
    await until(() => run.stderr().includes('refused'), TWO_POLLS_MS, 'the refusal');
    await operator.secrets.update(db.id, { value: { password: 'referenced-value' } });
    await until(() => run.stderr().includes('accepted again'), TWO_POLLS_MS, 'its end');
    run.child.kill('SIGTERM');
    const { code, stderr } = await run.result;
    expect(code).toBe(0);
    expect(starts(run.file)).toHaveLength(1);
    const lines = ownLines(stderr);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /^secrets-vault: the vault's new values are refused: Cannot resolve vault:\/\/\S+: .+; the command keeps running with the values it has$/,
    );
    expect(lines[0]).toContain(reference);
    expect(lines[1]).toBe("secrets-vault: the vault's values are accepted again");
    for (const value of ['referenced-value', 'no-password-value', 'own-value']) {
      expect(stderr).not.toContain(value);
    }
  }, 40_000);

  it('says a poll that hung as one with no answer within its deadline, one --watch-interval, not as a timeout the user never set', async () => {
    const { vaultId } = await watchedVault(command, { token: 'held-value' });
    const run = watching(vaultId);
    await until(() => starts(run.file).length === 1, 10_000, 'the start');
    const hold = mock.faults.inject({ path: VALUES_PATH(vaultId) }, { kind: 'hold' });
    // Held from the next poll on, which then has no answer until its deadline, 5 s later.
    await until(() => run.stderr().includes('unavailable'), 20_000, 'the hung poll');
    hold.clear();
    hold.release();
    await until(() => run.stderr().includes('the service is back'), TWO_POLLS_MS, 'its end');
    run.child.kill('SIGTERM');
    const { code, stderr } = await run.result;
    expect(code).toBe(0);
    expect(starts(run.file)).toHaveLength(1);
    expect(ownLines(stderr)).toEqual([
      'secrets-vault: the service is unavailable (the poll had no answer within its 5s deadline, one --watch-interval); the command keeps running with the values it has',
      'secrets-vault: the service is back',
    ]);
    expect(stderr).not.toContain('totalTimeout');
    expect(stderr).not.toContain('held-value');
  }, 40_000);

  it('logs a good poll at debug, not at info', async () => {
    const { vaultId } = await watchedVault(command, { token: 'logged-value' });
    const [info, debug] = [
      watching(vaultId, [], { SECRETS_VAULT_LOG: 'info' }),
      watching(vaultId, [], { SECRETS_VAULT_LOG: 'debug' }),
    ];
    await until(
      () => starts(info.file).length === 1 && starts(debug.file).length === 1,
      10_000,
      'the starts',
    );
    // Two whole intervals from the start (the second ends 10 s after the first): a poll in each.
    await new Promise((resolve) => setTimeout(resolve, 15_500));
    info.child.kill('SIGTERM');
    debug.child.kill('SIGTERM');
    const [atInfo, atDebug] = await Promise.all([info.result, debug.result]);
    const answers = (stderr: string, level: string) =>
      stderr
        .split('\n')
        .filter((line) => line.startsWith(`level=${level} msg="← 200 GET ${VALUES_PATH(vaultId)}"`))
        .length;
    // The load at the start is info; the polls after it are not.
    expect(answers(atInfo.stderr, 'info')).toBe(1);
    expect(atInfo.stderr.split('\n').filter((line) => line.startsWith('level='))).toHaveLength(1);
    // At debug, each poll's answer is there, as a debug line.
    expect(answers(atDebug.stderr, 'info')).toBe(1);
    expect(answers(atDebug.stderr, 'debug')).toBeGreaterThanOrEqual(2);
    expect(atInfo.stderr + atDebug.stderr).not.toContain('logged-value');
  }, 40_000);
});
