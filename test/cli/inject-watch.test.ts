/**
 * `inject --watch` and `inject -- <command>` as real child processes against the served mock,
 * with real files: a rotated value replaces the files it changes (atomically: a reader polling
 * the file never sees it partial or missing) and no other, then restarts the command or sends it
 * `--reload-signal` once per change; an outage changes nothing and is said once when it starts
 * and once when it ends; without `--watch`, the command runs once the files are written and
 * `inject` exits with its code. The interval cannot go below 5 s, so the slow cases run at once.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { finished, nodeRunning, untilOutput, useCommand, watchedVault } from './harness.js';

const command = useCommand();
const { mock } = command;
const VALUES_PATH = (vaultId: string) => `/v1/vaults/${vaultId}/secrets/values`;

/** A fresh path in the scratch folder. */
const scratch = (name: string) =>
  join(command.directory, `${name}-${randomBytes(4).toString('hex')}`);

/** Writes `text` to a fresh template file and returns its path. */
function template(text: string): string {
  const file = scratch('template');
  writeFileSync(file, text);
  return file;
}

async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = performance.now() + ms;
  while (!check()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const contents = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8') : undefined);

/** One line the recording command writes: a start, or a signal it got, with the file it read. */
interface Entry {
  readonly pid: number;
  readonly event: 'start' | 'SIGHUP' | 'SIGTERM';
  readonly file?: string;
}

/**
 * A command that records each start and each SIGHUP to `RECORD`, with what the file `WATCHED`
 * held then, and exits 0 on SIGTERM.
 */
const RECORDER = `
const fs = require('node:fs');
const write = (entry) => fs.appendFileSync(process.env.RECORD, JSON.stringify({ pid: process.pid, ...entry }) + '\\n');
const read = () => fs.readFileSync(process.env.WATCHED, 'utf8');
process.on('SIGHUP', () => write({ event: 'SIGHUP', file: read() }));
process.on('SIGTERM', () => {
  write({ event: 'SIGTERM' });
  process.exit(0);
});
write({ event: 'start', file: read() });
setInterval(() => {}, 1000);
`;

function entries(file: string): Entry[] {
  return (contents(file) ?? '')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Entry);
}

const events = (file: string, event: Entry['event']) =>
  entries(file).filter((entry) => entry.event === event);

/** The lines `secrets-vault` itself wrote on `stderr` (not the client's debug lines). */
const ownLines = (stderr: string) =>
  stderr.split('\n').filter((line) => line.startsWith('secrets-vault: '));

/** How many times `stderr` (SECRETS_VAULT_LOG=debug) shows the values of `vaultId` requested. */
function valueReads(stderr: string, vaultId: string): number {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith(`level=debug msg="→ GET ${VALUES_PATH(vaultId)}"`)).length;
}

/**
 * A reader that reads `WATCHED` in a loop until SIGTERM, then writes to `REPORT` how many reads
 * it made, the versions it saw, and how many reads found the file missing or not one whole
 * rendering (`BEGIN <v>`, the body of `<v>`, `END <v>`).
 */
const READER = `
const fs = require('node:fs');
const seen = new Set();
let reads = 0;
let bad = 0;
let example = '';
let stopping = false;
process.on('SIGTERM', () => { stopping = true; });
const loop = () => {
  for (let i = 0; i < 100; i++) {
    reads++;
    let text;
    try {
      text = fs.readFileSync(process.env.WATCHED, 'utf8');
    } catch (error) {
      bad++;
      example = error.code;
      continue;
    }
    const match = /^BEGIN (\\S+)\\n([^]*)\\nEND (\\S+)\\n$/.exec(text);
    if (match && match[1] === match[3] && match[2] === ('<' + match[1] + '>').repeat(4000)) {
      seen.add(match[1]);
    } else {
      bad++;
      example = text.length + ' characters: ' + text.slice(0, 30);
    }
  }
  if (!stopping) return setImmediate(loop);
  fs.writeFileSync(process.env.REPORT, JSON.stringify({ reads, bad, example, seen: [...seen] }));
  process.exit(0);
};
loop();
`;

const body = (version: string) => `<${version}>`.repeat(4000);

describe.concurrent('inject --watch', () => {
  it('replaces the file atomically at each rotation: a reader never sees it partial or missing', async () => {
    const { vaultId, rotate } = await watchedVault(command, { version: 'v1', body: body('v1') });
    const output = scratch('big.conf');
    const report = scratch('report.json');
    const sidecar = command.start([
      'inject',
      '-i',
      template(
        `BEGIN {{ vault://${vaultId}/app/version }}\n{{ vault://${vaultId}/app/body }}\nEND {{ vault://${vaultId}/app/version }}\n`,
      ),
      '-o',
      output,
      '--watch',
      '--watch-interval',
      '5s',
    ]);
    const result = finished(sidecar);
    await until(() => existsSync(output), 10_000, 'the first file');
    const reader = spawn(process.execPath, ['-e', READER], {
      env: { WATCHED: output, REPORT: report },
      stdio: 'ignore',
    });
    const read = new Promise((resolve) => reader.once('exit', resolve));
    for (const version of ['v2', 'v3']) {
      await rotate({ version, body: body(version) });
      await until(
        () => contents(output)?.startsWith(`BEGIN ${version}\n`) === true,
        15_000,
        version,
      );
    }
    await sleep(300);
    reader.kill('SIGTERM');
    await read;
    sidecar.kill('SIGTERM');
    const { code, stderr } = await result;
    const { reads, bad, example, seen } = JSON.parse(readFileSync(report, 'utf8'));
    expect({ bad, example }).toEqual({ bad: 0, example: '' });
    expect(reads).toBeGreaterThan(100);
    expect(seen).toEqual(['v1', 'v2', 'v3']);
    expect(statSync(output).mode & 0o777).toBe(0o600);
    expect(code).toBe(0);
    expect(ownLines(stderr)).toEqual([
      `secrets-vault: the values changed: rewrote ${output}`,
      `secrets-vault: the values changed: rewrote ${output}`,
    ]);
  }, 60_000);

  it('rewrites only the files a rotation changes, from one read of each vault per poll', async () => {
    const first = await watchedVault(command, { token: 'token-1', other: 'steady' });
    const second = await watchedVault(command, { token: 'second-vault' });
    const rotated = scratch('rotated.conf');
    const sameVault = scratch('same-vault.conf');
    const otherVault = scratch('other-vault.conf');
    const sidecar = command.start(
      [
        'inject',
        '-i',
        template(`token={{ vault://${first.vaultId}/app/token }}\n`),
        '-o',
        rotated,
        '-i',
        template(`other={{ vault://${first.vaultId}/app/other }}\n`),
        '-o',
        sameVault,
        '-i',
        template(`token={{ vault://${second.vaultId}/app/token }}\n`),
        '-o',
        otherVault,
        '--watch',
        '--watch-interval',
        '5s',
      ],
      { SECRETS_VAULT_LOG: 'debug' },
    );
    const result = finished(sidecar);
    await until(() => existsSync(otherVault), 10_000, 'the files');
    const before = [sameVault, otherVault].map((file) => statSync(file));
    // Hostile: a placeholder, a reference and replacement patterns stay text.
    const hostile = `{{ vault://${second.vaultId}/app/token }} vault://${second.vaultId}/app/token $& $1`;
    await first.rotate({ token: hostile, other: 'steady' });
    await until(() => contents(rotated) === `token=${hostile}\n`, 15_000, 'the rotation');
    // Two more intervals pass (each polls at a random point of it, so a window of two holds at
    // least one whole interval, and a poll): nothing else changes.
    await sleep(10_500);
    sidecar.kill('SIGINT');
    const { code, stderr } = await result;
    expect(code).toBe(0);
    expect(contents(sameVault)).toBe('other=steady\n');
    expect(contents(otherVault)).toBe('token=second-vault\n');
    const after = [sameVault, otherVault].map((file) => statSync(file));
    for (const [index, stats] of after.entries()) {
      expect({ ino: stats.ino, mtimeMs: stats.mtimeMs }).toEqual({
        ino: before[index]?.ino,
        mtimeMs: before[index]?.mtimeMs,
      });
    }
    expect(ownLines(stderr)).toEqual([`secrets-vault: the values changed: rewrote ${rotated}`]);
    // The first vault, read for two files, is read as often as the second: once per poll.
    const reads = valueReads(stderr, first.vaultId);
    expect(reads).toBeGreaterThanOrEqual(3);
    expect(valueReads(stderr, second.vaultId)).toBe(reads);
  }, 60_000);

  it('sends --reload-signal to the command once per change, never restarting it', async () => {
    const { vaultId, rotate } = await watchedVault(command, { token: 'reload-1' });
    const output = scratch('reloaded.conf');
    const record = scratch('record.jsonl');
    const child = command.start(
      [
        'inject',
        '-i',
        template(`token={{ vault://${vaultId}/app/token }}\n`),
        '-o',
        output,
        '--watch',
        '--watch-interval',
        '5s',
        '--reload-signal',
        'SIGHUP',
        ...nodeRunning(RECORDER),
      ],
      { RECORD: record, WATCHED: output },
    );
    const result = finished(child);
    await until(() => events(record, 'start').length === 1, 10_000, 'the start');
    await rotate({ token: 'reload-2' });
    await until(() => events(record, 'SIGHUP').length === 1, 15_000, 'the first SIGHUP');
    await rotate({ token: 'reload-3' });
    await until(() => events(record, 'SIGHUP').length === 2, 15_000, 'the second SIGHUP');
    // Another interval passes without a change, and without a signal.
    await sleep(5_500);
    child.kill('SIGTERM');
    const { code, stderr } = await result;
    expect(code).toBe(0);
    const [start, ...rest] = entries(record);
    expect(start).toMatchObject({ event: 'start', file: 'token=reload-1\n' });
    // Each signal came once its file was written; the command was never stopped before ours.
    expect(rest).toEqual([
      { pid: start?.pid, event: 'SIGHUP', file: 'token=reload-2\n' },
      { pid: start?.pid, event: 'SIGHUP', file: 'token=reload-3\n' },
      { pid: start?.pid, event: 'SIGTERM' },
    ]);
    expect(ownLines(stderr)).toEqual([
      `secrets-vault: the values changed: rewrote ${output}; sending SIGHUP to the command`,
      `secrets-vault: the values changed: rewrote ${output}; sending SIGHUP to the command`,
    ]);
  }, 60_000);

  it('restarts the command with the rewritten file when no --reload-signal is given', async () => {
    const { vaultId, rotate } = await watchedVault(command, { token: 'restart-1' });
    const output = scratch('restarted.conf');
    const record = scratch('record.jsonl');
    const child = command.start(
      [
        'inject',
        '-i',
        template(`token={{ vault://${vaultId}/app/token }}\n`),
        '-o',
        output,
        '--watch',
        '--watch-interval',
        '5s',
        '--grace',
        '2s',
        ...nodeRunning(RECORDER),
      ],
      { RECORD: record, WATCHED: output },
    );
    const result = finished(child);
    await until(() => events(record, 'start').length === 1, 10_000, 'the start');
    await rotate({ token: 'restart-2' });
    await until(() => events(record, 'start').length === 2, 15_000, 'the restart');
    child.kill('SIGTERM');
    const { code, stderr } = await result;
    expect(code).toBe(0);
    const [first, term, second] = entries(record);
    expect(first).toMatchObject({ event: 'start', file: 'token=restart-1\n' });
    expect(term).toEqual({ pid: first?.pid, event: 'SIGTERM' });
    expect(second).toMatchObject({ event: 'start', file: 'token=restart-2\n' });
    expect(second?.pid).not.toBe(first?.pid);
    expect(events(record, 'SIGHUP')).toEqual([]);
    expect(ownLines(stderr)).toEqual([
      `secrets-vault: the values changed: rewrote ${output}; restarting the command`,
    ]);
  }, 60_000);

  it('leaves the files and the command as they are through an outage, saying so once when it starts and once when it ends', async () => {
    const { vaultId } = await watchedVault(command, { token: 'through-outage' });
    const output = scratch('outage.conf');
    const record = scratch('record.jsonl');
    const child = command.start(
      [
        'inject',
        '-i',
        template(`token={{ vault://${vaultId}/app/token }}\n`),
        '-o',
        output,
        '--watch',
        '--watch-interval',
        '5s',
        ...nodeRunning(RECORDER),
      ],
      { RECORD: record, WATCHED: output },
    );
    const result = finished(child);
    let stderrSoFar = '';
    child.stderr?.on('data', (chunk) => {
      stderrSoFar += chunk;
    });
    await until(() => events(record, 'start').length === 1, 10_000, 'the start');
    const before = statSync(output);
    const started = performance.now();
    const fault = mock.faults.inject({ path: VALUES_PATH(vaultId) }, { kind: 'network-error' });
    // The polls of intervals 1 and 2 both fail.
    await sleep(15_500 - (performance.now() - started));
    const hits = fault.hits;
    fault.clear();
    await until(
      () => ownLines(stderrSoFar).includes('secrets-vault: the service is back'),
      12_000,
      'the service to be back',
    );
    child.kill('SIGTERM');
    const { code, stderr } = await result;
    expect(hits).toBeGreaterThanOrEqual(2);
    expect(code).toBe(0);
    expect(events(record, 'start')).toHaveLength(1);
    const after = statSync(output);
    expect({ ino: after.ino, mtimeMs: after.mtimeMs }).toEqual({
      ino: before.ino,
      mtimeMs: before.mtimeMs,
    });
    expect(contents(output)).toBe('token=through-outage\n');
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /^secrets-vault: the service is unavailable \(.+\); the files stay as they are, and the command keeps running$/,
    );
    expect(lines[1]).toBe('secrets-vault: the service is back');
    expect(stderr).not.toContain('through-outage');
  }, 60_000);
});

describe('inject -- <command>', () => {
  it('writes the files, then runs the command, exiting with its code, without the token', async () => {
    const { vaultId } = await watchedVault(command, { token: 'for-the-command' });
    const first = scratch('first.conf');
    const second = scratch('second.conf');
    const result = await command.run([
      'inject',
      '-i',
      template(`one={{ vault://${vaultId}/app/token }}\n`),
      '-o',
      first,
      '-i',
      template(`two={{ vault://${vaultId}/app/token }}\n`),
      '-o',
      second,
      ...nodeRunning(
        "const fs = require('node:fs'); process.stdout.write(fs.readFileSync(process.argv[1], 'utf8') + fs.readFileSync(process.argv[2], 'utf8') + String(process.env.SECRETS_VAULT_TOKEN)); process.exit(3)",
        first,
        second,
      ),
    ]);
    expect(result).toEqual({
      code: 3,
      stdout: 'one=for-the-command\ntwo=for-the-command\nundefined',
      stderr: '',
    });
  });

  it('passes a signal on to the command once, and exits with the code it then exits with', async () => {
    const { vaultId } = await watchedVault(command, { token: 'signalled' });
    const output = scratch('signalled.conf');
    const child = command.start([
      'inject',
      '-i',
      template(`token={{ vault://${vaultId}/app/token }}\n`),
      '-o',
      output,
      ...nodeRunning(
        "let count = 0; process.on('SIGTERM', () => { count++; setTimeout(() => { process.stdout.write('SIGTERM x' + count); process.exit(5); }, 300); }); process.stdout.write('ready\\n'); setInterval(() => {}, 1000)",
      ),
    ]);
    const result = finished(child);
    await untilOutput(child.stdout, 'ready\n');
    child.kill('SIGTERM');
    expect(await result).toEqual({ code: 5, stdout: 'ready\nSIGTERM x1', stderr: '' });
  });

  it('exits with 127 when the command cannot be found, the file written all the same', async () => {
    const { vaultId } = await watchedVault(command, { token: 'no-command' });
    const output = scratch('no-command.conf');
    const result = await command.run([
      'inject',
      '-i',
      template(`token={{ vault://${vaultId}/app/token }}\n`),
      '-o',
      output,
      '--',
      'secrets-vault-no-such-program',
    ]);
    expect(result).toEqual({
      code: 127,
      stdout: '',
      stderr: 'secrets-vault: cannot run secrets-vault-no-such-program: ENOENT\n',
    });
    expect(contents(output)).toBe('token=no-command\n');
  });
});

describe('inject --watch usage', () => {
  const closed = () => ({ SECRETS_VAULT_BASE_URL: `http://127.0.0.1:${command.closedPort}` });
  const placeholder = 'token={{ vault://vlt_1/app/token }}\n';

  it.each([
    [['--watch', '--reload-signal', 'SIGNOPE'], true, '--reload-signal takes a signal name'],
    [['--watch', '--reload-signal', 'SIGKILL'], true, '--reload-signal takes a signal name'],
    [['--reload-signal', 'SIGHUP'], true, '--reload-signal needs --watch'],
    [['--watch', '--reload-signal', 'SIGHUP'], false, '--reload-signal needs a command after --'],
    [['--watch', '--grace', '1s'], false, '--grace needs a command after --'],
    [['--grace', '1s'], true, '--grace needs --watch'],
    [['--watch-interval', '10s'], false, '--watch-interval needs --watch'],
    [['--watch', '--watch-interval', '1s'], false, '--watch-interval takes a duration from 5s'],
    [
      ['--watch', '--grace', '1s', '--reload-signal', 'SIGHUP'],
      true,
      '--grace cannot be used with --reload-signal',
    ],
  ] as const)(
    'refuses inject -o %j (a command: %s) before loading anything',
    async (extra, withCommand, message) => {
      const output = scratch('never.conf');
      const result = await command.run(
        [
          'inject',
          '-i',
          template(placeholder),
          '-o',
          output,
          ...extra,
          ...(withCommand ? nodeRunning('process.exit(0)') : []),
        ],
        closed(),
      );
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(message);
      expect(result.stderr).toMatch(/^secrets-vault: .* \(see secrets-vault inject --help\)\n$/);
      expect(existsSync(output)).toBe(false);
    },
  );

  it('needs an -o for each -i with several templates, --watch or a command', async () => {
    const one = template(placeholder);
    const two = template(placeholder);
    for (const args of [
      ['-i', one, '-i', two],
      ['-i', one, '-i', two, '-o', scratch('only-one.conf')],
      ['-i', one, '--watch'],
      ['-i', one, ...nodeRunning('process.exit(0)')],
      ['-i', one, '-o', scratch('a.conf'), '-o', scratch('b.conf')],
    ]) {
      const result = await command.run(['inject', ...args], closed());
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(/-o/);
    }
    const twice = scratch('twice.conf');
    const result = await command.run(['inject', '-i', one, '-o', twice, '-i', two, '-o', twice]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`-o ${twice} is given twice`);
  });

  it('refuses to keep current what is not a regular file, before starting anything', async () => {
    const result = await command.run(
      ['inject', '-i', template(placeholder), '-o', '/dev/null', '--watch'],
      closed(),
    );
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'secrets-vault: cannot keep /dev/null current: it is a character device, and --watch replaces the file at each change\n',
    });
  });

  it('describes the new modes in its help and in the top-level help', async () => {
    const help = await command.run(['inject', '--help']);
    expect(help.code).toBe(0);
    for (const text of [
      '--watch',
      '--watch-interval',
      '--grace',
      '--reload-signal',
      '-- <command>',
    ]) {
      expect(help.stdout).toContain(text);
    }
    const overview = await command.run(['--help']);
    expect(overview.stdout).toContain('[-i <template> -o <file>]... [--watch [--watch-interval D]');
  });
});
