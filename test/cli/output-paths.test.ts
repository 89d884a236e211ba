/**
 * What the commands that write secrets do with what is already at the output path, as real
 * child processes against the served mock, with real FIFOs (`mkfifo`), readers (`cat`) and
 * `bash` redirections: `inject -o` and `export --output` write into a FIFO or a character device
 * as a shell's `> path` does (and into their own descriptor for `/dev/stdout`), never replacing
 * it with a file of secrets; the snapshot of `export --format snapshot` and `run --fallback` is
 * only ever a regular file, and anything else there is refused and left as it was.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chownSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { finished, type Result, useCommand, vaultWith } from './harness.js';

const command = useCommand();
const { mock } = command;

const KEY = randomBytes(32).toString('base64');
const VALUES_PATH = '/v1/vaults/:vaultId/secrets/values';
const RENDERED = 'password=hunter2-db\n';

let app: string;
let case_ = 0;

/** A fresh path in the scratch folder. */
const scratch = (name: string) => join(command.directory, `${++case_}-${name}`);

/** A fresh FIFO in the scratch folder. */
function fifo(name = 'fifo'): string {
  const path = scratch(name);
  execFileSync('mkfifo', [path]);
  return path;
}

/** A device node made with `mknod` in the scratch folder, or undefined where that is not allowed. */
function deviceNode(type: 'c' | 'b', major: number, minor: number): string | undefined {
  const path = scratch(`device-${type}`);
  try {
    execFileSync('mknod', [path, type, String(major), String(minor)], { stdio: 'ignore' });
    return path;
  } catch {
    return undefined;
  }
}

const isRoot = process.geteuid?.() === 0;

/** Whether `mknod` works here: it needs root, and a container that allows it. */
function canMakeDevices(): boolean {
  if (!isRoot) return false;
  const folder = mkdtempSync(join(tmpdir(), 'secrets-vault-mknod-'));
  try {
    execFileSync('mknod', [join(folder, 'null'), 'c', '1', '3'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
const makesDevices = canMakeDevices();

/** The template `inject` renders to {@link RENDERED}. */
function template(): string {
  const file = scratch('template');
  writeFileSync(file, `password={{ vault://${app}/database/password }}\n`);
  return file;
}

const injectTo = (output: string) => ['inject', '-i', template(), '-o', output];

// Readers and commands a test started: one left waiting on a FIFO (a test that failed) is ended.
const started = new Set<ChildProcess>();
afterEach(() => {
  for (const child of started) if (child.exitCode === null) child.kill('SIGKILL');
  started.clear();
});

/** What `cat <path>` reads, from a reader started now. */
function reader(path: string): Promise<Result> {
  const child = spawn('cat', [path], { stdio: ['ignore', 'pipe', 'pipe'] });
  started.add(child);
  return finished(child);
}

/** The service's settings, for a command started by something other than the harness. */
function serviceEnv(): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    SECRETS_VAULT_BASE_URL: command.served.url,
    SECRETS_VAULT_TOKEN: mock.principals.adminKey.token,
  };
}

/**
 * Runs `script` in `bash`, with `"$NODE" -- "$CLI"` the command (the `--` as its launcher puts
 * it) and `variables` in its environment.
 */
function bash(script: string, variables: Record<string, string> = {}): Promise<Result> {
  return finished(
    spawn('bash', ['-c', script], {
      env: { ...serviceEnv(), NODE: process.execPath, CLI: command.cli, ...variables },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
}

function expectNoTemporaryFile(): void {
  expect(readdirSync(command.directory).filter((name) => name.endsWith('.tmp'))).toEqual([]);
}

/** One line on stderr, matching `pattern`, with no value in it. */
function expectOneLine(result: Result, pattern: RegExp): void {
  const lines = result.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
  expect(result.stderr).not.toContain('hunter2');
}

beforeEach(async () => {
  app = await vaultWith(command, 'app', { database: { password: 'hunter2-db' } }, { reset: true });
});

describe('a FIFO at the output path', () => {
  it('gets the rendering of inject -o, and stays a FIFO, with no file left beside it', async () => {
    const path = fifo();
    const read = reader(path);
    const result = await command.run(injectTo(path));
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(await read).toEqual({ code: 0, stdout: RENDERED, stderr: '' });
    expect(lstatSync(path).isFIFO()).toBe(true);
    expectNoTemporaryFile();
  });

  it('gets what export --output prints, and stays a FIFO', async () => {
    const printed = await command.run(['export', '--vault', app, '--format', 'dotenv']);
    expect(printed.code).toBe(0);
    const path = fifo();
    const read = reader(path);
    const result = await command.run([
      'export',
      '--vault',
      app,
      '--format',
      'dotenv',
      '--output',
      path,
    ]);
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
    expect((await read).stdout).toBe(printed.stdout);
    expect(printed.stdout).toContain('hunter2-db');
    expect(lstatSync(path).isFIFO()).toBe(true);
    expectNoTemporaryFile();
  });

  it('is written through a link to it, the link left as it is', async () => {
    const path = fifo();
    const link = scratch('link-to-fifo');
    symlinkSync(path, link);
    const read = reader(path);
    expect(await command.run(injectTo(link))).toEqual({ code: 0, stdout: '', stderr: '' });
    expect((await read).stdout).toBe(RENDERED);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe(path);
    expect(lstatSync(path).isFIFO()).toBe(true);
    expectNoTemporaryFile();
  });

  it('waits for a reader as a shell does, and a reader that comes late gets the rendering', async () => {
    const path = fifo();
    const child = command.start(injectTo(path));
    started.add(child);
    const result = finished(child);
    await sleep(1_500);
    expect(child.exitCode).toBe(null);
    expect(lstatSync(path).isFIFO()).toBe(true);
    expect((await reader(path)).stdout).toBe(RENDERED);
    expect(await result).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(lstatSync(path).isFIFO()).toBe(true);
    expectNoTemporaryFile();
  }, 20_000);

  it('ends at once on SIGTERM while it waits for a reader, leaving the FIFO as it was', async () => {
    const path = fifo();
    const child = command.start(injectTo(path));
    started.add(child);
    const exited = new Promise((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    await sleep(1_500);
    expect(child.exitCode).toBe(null);
    const signalled = performance.now();
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    expect(await exited).toBe('SIGTERM');
    clearTimeout(timer);
    expect(performance.now() - signalled).toBeLessThan(2_000);
    expect(lstatSync(path).isFIFO()).toBe(true);
    expectNoTemporaryFile();
  }, 20_000);

  it.skipIf(!isRoot)(
    "is refused when another user's, or reached through another user's link: it may be theirs to read",
    async () => {
      const theirs = fifo('their-fifo');
      chownSync(theirs, 65534, 65534);
      const refused = await command.run(injectTo(theirs));
      expect(refused).toMatchObject({ code: 1, stdout: '' });
      expectOneLine(
        refused,
        /^secrets-vault: cannot write .*their-fifo: it is a FIFO owned by uid 65534, neither this user nor root, so someone else may be reading it \(if it is meant, hand it over open: -o \/dev\/fd\/3 3>.*their-fifo\)$/,
      );
      expect(lstatSync(theirs)).toMatchObject({ uid: 65534 });
      expect(lstatSync(theirs).isFIFO()).toBe(true);

      const ours = fifo('our-fifo');
      const planted = scratch('planted-link');
      symlinkSync(ours, planted);
      lchownSync(planted, 65534, 65534);
      const throughLink = await command.run(injectTo(planted));
      expect(throughLink).toMatchObject({ code: 1, stdout: '' });
      expectOneLine(
        throughLink,
        /cannot write .*planted-link: it is a link to a FIFO, through the link .*planted-link owned by uid 65534, neither this user nor root/,
      );
      expect(lstatSync(planted).isSymbolicLink()).toBe(true);
      expect(lstatSync(ours).isFIFO()).toBe(true);
      expectNoTemporaryFile();
    },
  );
});

describe('a descriptor of the command as the output path', () => {
  it('writes -o /dev/stdout to stdout, a pipe or a file, and /dev/stdout stays the system link', async () => {
    const before = lstatSync('/dev/stdout');
    expect(before.isSymbolicLink()).toBe(true);
    const target = readlinkSync('/dev/stdout');
    const file = scratch('stdout-file');
    const template_ = template();

    const toPipe = await bash('"$NODE" -- "$CLI" inject -i "$TEMPLATE" -o /dev/stdout | cat', {
      TEMPLATE: template_,
    });
    expect(toPipe).toEqual({ code: 0, stdout: RENDERED, stderr: '' });
    const toFile = await bash('"$NODE" -- "$CLI" inject -i "$TEMPLATE" -o /dev/stdout > "$OUT"', {
      TEMPLATE: template_,
      OUT: file,
    });
    expect(toFile).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(readFileSync(file, 'utf8')).toBe(RENDERED);

    const after = lstatSync('/dev/stdout');
    expect(after.isSymbolicLink()).toBe(true);
    expect(after.ino).toBe(before.ino);
    expect(readlinkSync('/dev/stdout')).toBe(target);
    expect(readdirSync('/dev').filter((name) => name.startsWith('.stdout.'))).toEqual([]);
  }, 20_000);

  it('writes -o /dev/fd/3 to descriptor 3, appending where the shell opened it to append, and -o >(consumer)', async () => {
    const appended = scratch('appended');
    writeFileSync(appended, 'kept\n');
    const consumed = scratch('consumed');
    const template_ = template();
    const result = await bash(
      [
        '"$NODE" -- "$CLI" inject -i "$TEMPLATE" -o /dev/fd/3 3>>"$APPENDED" || exit 1',
        '"$NODE" -- "$CLI" inject -i "$TEMPLATE" -o >(cat > "$CONSUMED") || exit 1',
        'wait $!',
      ].join('\n'),
      { TEMPLATE: template_, APPENDED: appended, CONSUMED: consumed },
    );
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(readFileSync(appended, 'utf8')).toBe(`kept\n${RENDERED}`);
    expect(readFileSync(consumed, 'utf8')).toBe(RENDERED);
  }, 20_000);
});

describe('a device at the output path', () => {
  it('writes into /dev/null through a link, the link and the device left as they are', async () => {
    const link = scratch('null-link');
    symlinkSync('/dev/null', link);
    const device = lstatSync('/dev/null');
    const result = await command.run(injectTo(link));
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(readlinkSync(link)).toBe('/dev/null');
    expect(lstatSync('/dev/null')).toMatchObject({ ino: device.ino, rdev: device.rdev });
    expect(lstatSync('/dev/null').isCharacterDevice()).toBe(true);
    expectNoTemporaryFile();
  });

  it.skipIf(!makesDevices)('writes into a character device, which stays one', async () => {
    const device = deviceNode('c', 1, 3) as string;
    const before = lstatSync(device);
    const result = await command.run([
      'export',
      '--vault',
      app,
      '--format',
      'json',
      '--output',
      device,
    ]);
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
    const after = lstatSync(device);
    expect(after.isCharacterDevice()).toBe(true);
    expect(after).toMatchObject({ ino: before.ino, rdev: before.rdev, mode: before.mode });
    expectNoTemporaryFile();
  });

  it.skipIf(!makesDevices)('refuses a block device, leaving it as it is', async () => {
    // A number reserved for local use: no disk answers to it, whatever happens.
    const device = deviceNode('b', 240, 0) as string;
    const result = await command.run(injectTo(device));
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expectOneLine(
      result,
      /^secrets-vault: cannot write .*: it is a block device, and secrets are never written onto a disk$/,
    );
    expect(lstatSync(device).isBlockDevice()).toBe(true);
    expectNoTemporaryFile();
  });
});

describe('what cannot be written to', () => {
  it('refuses a directory, for inject and export, naming it', async () => {
    const directory = scratch('a-directory');
    mkdirSync(directory);
    const injected = await command.run(injectTo(directory));
    const exported = await command.run([
      'export',
      '--vault',
      app,
      '--format',
      'shell',
      '--output',
      directory,
    ]);
    for (const result of [injected, exported]) {
      expect(result).toMatchObject({ code: 1, stdout: '' });
      expectOneLine(result, /^secrets-vault: cannot write .*a-directory: it is a directory$/);
    }
    expect(readdirSync(directory)).toEqual([]);
    expectNoTemporaryFile();
  });

  it('refuses a socket, which a shell cannot open either, leaving it as it is', async () => {
    const path = scratch('socket');
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(path, resolve));
    try {
      const result = await command.run(injectTo(path));
      expect(result).toMatchObject({ code: 1, stdout: '' });
      expectOneLine(
        result,
        /^secrets-vault: cannot write .*socket: it is a socket, which cannot be opened for writing$/,
      );
      expect(lstatSync(path).isSocket()).toBe(true);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('the snapshot is only ever a regular file', () => {
  const withKey = { SECRETS_VAULT_FALLBACK_KEY: KEY };
  const exportTo = (output: string) =>
    command.run(['export', '--vault', app, '--format', 'snapshot', '--output', output], withKey);

  it('refuses a FIFO, a directory or a descriptor for export --format snapshot, before any request', async () => {
    const reads = mock.faults.inject({ path: VALUES_PATH }, { kind: 'delay', ms: 0 });
    const path = fifo();
    const directory = scratch('snapshot-directory');
    mkdirSync(directory);
    const cases: [string, string][] = [
      [path, 'is a FIFO'],
      [directory, 'is a directory'],
      ['/dev/fd/1', "is this process's descriptor 1"],
    ];
    for (const [output, what] of cases) {
      const result = await exportTo(output);
      expect(result).toMatchObject({ code: 1, stdout: '' });
      expectOneLine(
        result,
        new RegExp(
          `^secrets-vault: the snapshot ${output} is not written: it ${what}, and a snapshot is only ever a regular file$`,
        ),
      );
    }
    expect(reads.hits).toBe(0);
    expect(lstatSync(path).isFIFO()).toBe(true);
    expect(readdirSync(directory)).toEqual([]);
    expectNoTemporaryFile();
  });

  it('is not written over a FIFO by run --fallback: the job starts, warned, and the FIFO stays', async () => {
    const path = fifo();
    const result = await command.run(
      [
        'run',
        '--vault',
        app,
        '--fallback',
        path,
        '--',
        process.execPath,
        '-e',
        'console.log("started")',
      ],
      withKey,
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('started\n');
    expectOneLine(
      result,
      /^secrets-vault: warning: the snapshot .* is not written: it is a FIFO, and a snapshot is only ever a regular file$/,
    );
    expect(lstatSync(path).isFIFO()).toBe(true);
    expectNoTemporaryFile();
  });

  it('still replaces a regular file through the link at the path, as before', async () => {
    const target = scratch('snapshot-target');
    writeFileSync(target, 'old');
    const link = scratch('snapshot-link');
    symlinkSync(target, link);
    expect((await exportTo(link)).code).toBe(0);
    // The link is replaced by the new snapshot, never written through.
    expect(lstatSync(link).isFile()).toBe(true);
    expect(lstatSync(link).mode & 0o777).toBe(0o600);
    expect(readFileSync(target, 'utf8')).toBe('old');
    expectNoTemporaryFile();
  });
});
