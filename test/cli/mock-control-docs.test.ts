/**
 * docs/testing-with-the-mock.md as a reader runs it: the shell recipe of "Serving the mock from a
 * shell", taken from the page as written and run by a real `bash` in a project that has the
 * package installed (its `npx` and all), and the Python suite the page shows, which must be
 * test/python/test_mock_control.py byte for byte and pass under `python3 -m unittest`.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from './built.js';
import { finished, launch, withNode } from './harness.js';

const PAGE = 'docs/testing-with-the-mock.md';
const PYTHON_SUITE = 'test/python/test_mock_control.py';
const ONCE = process.env.SECRETS_VAULT_TRANSPORT !== 'fetch';
const children: ChildProcess[] = [];

beforeAll(async () => {
  if (ONCE) await ensureBuilt();
}, 300_000);
afterEach(() => {
  // Each child leads a process group of its own: whatever it left running goes with it.
  for (const child of children.splice(0)) {
    if (child.pid !== undefined && child.exitCode === null) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {}
    }
  }
});

/** The body of the first ```<language> block under the page's heading `heading`. */
function blockUnder(heading: string, language: string): string {
  const lines = readFileSync(PAGE, 'utf8').split('\n');
  const level = /^#+/.exec(heading)?.[0].length ?? 2;
  let inSection = false;
  let body: string[] | undefined;
  for (const line of lines) {
    if (body !== undefined) {
      if (line === '```') return `${body.join('\n')}\n`;
      body.push(line);
    } else if (line === heading) {
      inSection = true;
    } else if (inSection && line === `\`\`\`${language}`) {
      body = [];
    } else if (inSection && new RegExp(`^#{1,${level}} `).test(line)) {
      // The section ends at the next heading of its level or higher (never one inside a block:
      // a block's lines are read above).
      break;
    }
  }
  throw new Error(`${PAGE} has no ${language} block under ${heading}`);
}

/** A project with the package installed as npm installs it: a link, and its bin's link. */
function projectWithThePackage(): string {
  const project = mkdtempSync(join(tmpdir(), 'secrets-vault-recipe-'));
  mkdirSync(join(project, 'node_modules', '@secrets-vault'), { recursive: true });
  mkdirSync(join(project, 'node_modules', '.bin'));
  symlinkSync(resolve('.'), join(project, 'node_modules', '@secrets-vault', 'sdk'));
  symlinkSync(
    '../@secrets-vault/sdk/dist/cli.js',
    join(project, 'node_modules', '.bin', 'secrets-vault'),
  );
  writeFileSync(join(project, 'package.json'), '{ "name": "project", "private": true }\n');
  return project;
}

/** The processes whose command line names `text`, by id. */
function processesNaming(text: string): string[] {
  return readdirSync('/proc').filter((entry) => {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) return false;
    try {
      return readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(text);
    } catch {
      return false; // it ended meanwhile
    }
  });
}

function refusesConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

describe.runIf(ONCE)('docs/testing-with-the-mock.md', () => {
  it.runIf(process.platform === 'linux')(
    'runs the shell recipe as written: wait returns 0, the port is free, nothing is left running',
    { timeout: 60_000 },
    async () => {
      const recipe = blockUnder('## Serving the mock from a shell', 'sh');
      expect(recipe).toContain('kill -TERM "$mock"; wait "$mock"');
      const project = projectWithThePackage();
      try {
        writeFileSync(
          join(project, 'seed.json'),
          JSON.stringify({ vaults: [{ name: 'app', secrets: { database: { url: 'pg://x' } } }] }),
        );
        writeFileSync(join(project, 'my-job'), '#!/bin/sh\necho "job sees $DATABASE_URL"\n');
        chmodSync(join(project, 'my-job'), 0o755);
        const bash = spawn(
          'bash',
          [
            '--noprofile',
            '--norc',
            '-c',
            `${recipe}echo "wait returned $?"\necho "base=$SECRETS_VAULT_BASE_URL"\n`,
          ],
          {
            cwd: project,
            env: { PATH: withNode(process.env.PATH), HOME: process.env.HOME ?? project },
            stdio: ['ignore', 'pipe', 'pipe'],
            detached: true,
          },
        );
        children.push(bash);
        const result = await finished(bash);
        expect(result.code).toBe(0);
        expect(result.stdout).toContain('job sees pg://x\n');
        expect(result.stdout).toContain('wait returned 0\n');
        const port = Number(new URL(/^base=(.*)$/m.exec(result.stdout)?.[1] ?? '').port);
        expect(port).toBeGreaterThan(0);
        expect(await refusesConnections(port)).toBe(true);
        expect(processesNaming(project)).toEqual([]);
      } finally {
        rmSync(project, { recursive: true, force: true });
      }
    },
  );

  it('steers the mock with the curl lines the page shows', { timeout: 30_000 }, async () => {
    const lines = blockUnder('## Steering the mock over HTTP', 'sh');
    const mock = launch(resolve('dist/cli.js'), ['mock', '--port', '0'], {
      env: { PATH: process.env.PATH },
      stdio: ['ignore', 'pipe', 'ignore'],
      detached: true,
    });
    children.push(mock);
    const printed = await new Promise<string>((resolve) => {
      let seen = '';
      mock.stdout?.on('data', (chunk) => {
        seen += chunk;
        if (/^SECRETS_VAULT_MOCK_CONTROL=.*\n/m.test(seen)) resolve(seen);
      });
    });
    const env = parseEnv(printed) as Record<string, string>;
    const bash = spawn('bash', ['--noprofile', '--norc', '-e', '-c', lines], {
      env: { PATH: process.env.PATH, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    children.push(bash);
    const result = await finished(bash);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const [failed, moved] = result.stdout.split(/(?<=})/);
    expect(JSON.parse(failed ?? '')).toMatchObject({ statusCode: 503 });
    const now = Date.parse((JSON.parse(moved ?? '') as { now: string }).now);
    expect(now - Date.now()).toBeGreaterThan(7 * 24 * 60 * 60 * 1000 - 60_000);
    mock.kill('SIGTERM');
    expect((await finished(mock)).code).toBe(0);
  });

  it('shows the Python suite of test/python as it is', () => {
    const shown = blockUnder('## A test suite in another language', 'python');
    expect(shown).toBe(readFileSync(PYTHON_SUITE, 'utf8'));
  });

  it('passes the Python suite (standard library only) against the built command', {
    timeout: 60_000,
  }, async (context) => {
    const python = spawnSync('python3', ['--version'], { stdio: 'ignore' });
    if (python.error !== undefined || python.status !== 0) {
      context.skip('python3 is not on PATH: the Python suite cannot run here (CI has it)');
    }
    const suite = spawn('python3', ['-m', 'unittest', '-v', 'test_mock_control'], {
      cwd: resolve('test/python'),
      env: {
        ...process.env,
        PATH: withNode(process.env.PATH),
        PYTHONDONTWRITEBYTECODE: '1',
        SECRETS_VAULT_MOCK_COMMAND: resolve('dist/cli.js'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    children.push(suite);
    const result = await finished(suite);
    // unittest reports on stderr.
    expect(result.stderr).toMatch(/\nRan 4 tests in .*\n\nOK\n$/);
    expect(result.code).toBe(0);
  });
});
