/**
 * The command as a shell user meets it, from start to end: one `bash` script
 * (fixtures/shell-journey/journey.sh) that says `secrets-vault` as a CI job does, against the
 * mock served by `secrets-vault mock` itself in the background. It sources the mock's first
 * lines, lists a vault, fills a template from two vaults, runs a command with both vaults, an
 * env file and masked output, writes a snapshot, stops the mock and starts from the snapshot
 * offline, and forgets a `--`. The vaults hold values written to reach the shell; they must
 * come through byte for byte and run nothing.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from './built.js';
import { finished, type Result } from './harness.js';

const CLI = resolve('dist/cli.js');
const SCRIPT = resolve('test/cli/fixtures/shell-journey/journey.sh');
/** A vault id that is well formed but names no vault: resolving it would fail loudly. */
const NOWHERE = '00000000-0000-4000-8000-000000000000';
const APP_URL = 'postgres://app:app-password@db-app/app';
const BASE_URL = 'postgres://base:base-password@db-base/base';
const REGION = 'eu-west-1';
// Values a vault editor might write to reach the job's shell or another vault.
const HOSTILE = {
  cmd: '$(touch pwned) `touch pwned`',
  quotes: `it's "quoted" \\ $HOME`,
  newline: 'line one\nline two',
  lookalike: `{{ vault://${NOWHERE}/database/url }}`,
  reference: `vault://${NOWHERE}/database/url`,
};
const HOSTILE_VARIABLES = {
  HOSTILE_CMD: HOSTILE.cmd,
  HOSTILE_QUOTES: HOSTILE.quotes,
  HOSTILE_NEWLINE: HOSTILE.newline,
  HOSTILE_LOOKALIKE: HOSTILE.lookalike,
  HOSTILE_REFERENCE: HOSTILE.reference,
};
const SEED = {
  vaults: [
    { name: 'base', secrets: { database: { url: BASE_URL }, region: { name: REGION } } },
    { name: 'app', secrets: { database: { url: APP_URL }, hostile: HOSTILE } },
  ],
};
/** The whole journey, mock included: a few seconds when it works. */
const JOURNEY_TIMEOUT_MS = 60_000;

// Every command is a child process whatever the suite's transport: one run of this file is
// enough, and two would build the package at once.
const ONCE = process.env.SECRETS_VAULT_TRANSPORT !== 'fetch';

let directory = '';
let journey: Result | undefined;
let journeyChild: ChildProcess | undefined;
let mockEnv: Record<string, string> = {};

beforeAll(async () => {
  if (!ONCE) return;
  // `npm ci && npm test` on a fresh clone has no dist yet: build it, as `npm run check` does.
  await ensureBuilt();
  directory = mkdtempSync(join(tmpdir(), 'secrets-vault-journey-'));
  // The command under the name a user types, on PATH: a link to the package's bin, as npm
  // makes it, started by the file's own first lines with this Node, first on PATH (the
  // system's may be older than the package supports).
  const bin = join(directory, 'bin');
  mkdirSync(bin);
  symlinkSync(CLI, join(bin, 'secrets-vault'));
  const work = join(directory, 'work');
  mkdirSync(work);
  writeFileSync(join(work, 'seed.json'), JSON.stringify(SEED));
  copyFileSync(SCRIPT, join(work, 'journey.sh'));

  const child = spawn('bash', ['--noprofile', '--norc', 'journey.sh'], {
    cwd: work,
    env: { PATH: [bin, dirname(process.execPath), process.env.PATH].join(delimiter) },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so that a journey that hangs is stopped with the mock it started.
    detached: true,
  });
  journeyChild = child;
  const timer = setTimeout(() => stopGroup(child), JOURNEY_TIMEOUT_MS);
  try {
    journey = await finished(child);
  } finally {
    clearTimeout(timer);
  }
  const lines = readFileSync(join(work, 'mock.env'), 'utf8');
  mockEnv = parseEnv(lines) as Record<string, string>;
}, 360_000);

afterAll(() => {
  if (journeyChild !== undefined) stopGroup(journeyChild);
  // A journey cut short leaves its background mock running: stop it by the id it wrote.
  if (directory !== '' && !existsSync(inWork('out/mock.code')) && existsSync(inWork('mock.pid'))) {
    const pid = Number(readFileSync(inWork('mock.pid'), 'utf8'));
    if (Number.isSafeInteger(pid) && pid > 0) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  }
  if (directory !== '') rmSync(directory, { recursive: true, force: true });
});

/** Kills the journey's process group (bash and the mock it started) if it is still running. */
function stopGroup(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

function inWork(path: string): string {
  return join(directory, 'work', path);
}

/** How the script's command `name` ended, from what the script kept under out/. */
function step(name: string): Result {
  const code = readFileSync(inWork(`out/${name}.code`), 'utf8').trim();
  return {
    code: Number(code),
    stdout: readFileSync(inWork(`out/${name}.out`), 'utf8'),
    stderr: readFileSync(inWork(`out/${name}.err`), 'utf8'),
  };
}

function vault(name: 'VAULT_APP' | 'VAULT_BASE'): string {
  const id = mockEnv[name];
  if (id === undefined) throw new Error(`the mock printed no ${name}`);
  return id;
}

describe.runIf(ONCE)('a shell script around secrets-vault, against secrets-vault mock', () => {
  it('runs to its end, with nothing on its own output', () => {
    expect(journey).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(existsSync(inWork('out/journey.done'))).toBe(true);
  });

  it('starts the mock in the background and sources its first lines', () => {
    expect(readFileSync(inWork('mock.env'), 'utf8')).toMatch(
      /^SECRETS_VAULT_BASE_URL=http:\/\/127\.0\.0\.1:\d+\nSECRETS_VAULT_TOKEN=\S+\nVAULT_BASE=\S+\nVAULT_APP=\S+\n$/,
    );
    expect(readFileSync(inWork('out/mock.err'), 'utf8')).toBe('');
  });

  it('lists the names and keys of a vault as JSON that node reads back', () => {
    const listed = step('ls');
    expect(listed).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(listed.stdout)).toEqual({
      database: ['url'],
      hostile: ['cmd', 'lookalike', 'newline', 'quotes', 'reference'],
    });
    expect(readFileSync(inWork('out/ls-parsed.out'), 'utf8')).toBe(
      'database: url\nhostile: cmd lookalike newline quotes reference\n',
    );
    expect(readFileSync(inWork('out/ls-parsed.err'), 'utf8')).toBe('');
  });

  it('gives export lines that a shell evaluates into the values, byte for byte', () => {
    const evaluated = step('eval');
    expect(evaluated).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(evaluated.stdout)).toEqual(HOSTILE_VARIABLES);
  });

  it('fills a template from two vaults into a file of mode 0600, values exactly as stored', () => {
    expect(step('inject')).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(readFileSync(inWork('config.ini'), 'utf8')).toBe(
      [
        '[database]',
        `url = ${APP_URL}`,
        `base_url = ${BASE_URL}`,
        `region = ${REGION}`,
        '[hostile]',
        `cmd = ${HOSTILE.cmd}`,
        `quotes = ${HOSTILE.quotes}`,
        `newline = ${HOSTILE.newline}`,
        `lookalike = ${HOSTILE.lookalike}`,
        `reference = ${HOSTILE.reference}`,
        'other = {{ not a placeholder }}',
        '',
      ].join('\n'),
    );
    expect(statSync(inWork('config.ini')).mode & 0o777).toBe(0o600);
  });

  it('runs a command with both vaults (the later wins), the env file, and values masked', () => {
    expect(step('run')).toEqual({
      code: 0,
      stdout: [
        'url=<redacted>',
        'from-the-defaults-file',
        '<redacted>',
        "DATABASE_URL is the app vault's",
        'REGION_NAME from the base vault is set',
        '',
      ].join('\n'),
      stderr: '',
    });
  });

  it('writes a snapshot, stops the mock with 0, and starts from the snapshot offline', () => {
    expect(step('export')).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(statSync(inWork('snap')).mode & 0o777).toBe(0o600);
    const snapshot = readFileSync(inWork('snap'));
    for (const value of [APP_URL, HOSTILE.cmd, HOSTILE.lookalike]) {
      expect(snapshot.includes(value)).toBe(false);
    }
    expect(readFileSync(inWork('out/mock.code'), 'utf8')).toBe('0\n');

    // Nothing answers any more: the start below cannot have asked the service.
    const offline = step('offline');
    expect(offline.code).toBe(75);
    expect(offline.stderr).toMatch(/^secrets-vault: the service stayed unavailable for /);

    const started =
      /^secrets-vault: starting from the snapshot snap \(--fallback-only\), saved \d+s ago\n$/;
    const fallback = step('fallback');
    expect(fallback).toMatchObject({ code: 0, stdout: `${APP_URL}\n` });
    expect(fallback.stderr).toMatch(started);
    const hostile = step('fallback-hostile');
    expect(hostile.code).toBe(0);
    expect(hostile.stderr).toMatch(started);
    expect(JSON.parse(hostile.stdout)).toEqual(HOSTILE_VARIABLES);
  });

  it('says to put the command after -- when it was forgotten, and runs nothing', () => {
    expect(step('forgotten')).toEqual({
      code: 2,
      stdout: '',
      stderr: `secrets-vault: put the command after --: secrets-vault run --vault ${vault('VAULT_APP')} -- node -e 1\n`,
    });
  });

  it('executes no value anywhere on the way', () => {
    expect(existsSync(inWork('pwned'))).toBe(false);
    expect(existsSync(join(directory, 'bin', 'pwned'))).toBe(false);
  });
});
