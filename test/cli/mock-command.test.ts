/**
 * `secrets-vault mock` as a shell script or another language's test suite uses it: the command
 * as the package ships it (`dist/cli.js`, which imports the built mock by the package's name, so
 * `npm run build` must have run), started as a real child process, its first lines read as
 * dotenv, the other commands and a real `bash` pointed at it, and a signal to stop it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from './built.js';
import { finished, launch, nodeRunning, type Result } from './harness.js';

const CLI = resolve('dist/cli.js');
const SEED = {
  vaults: [
    {
      name: 'app',
      secrets: {
        database: { url: 'postgres://app:seeded-password@db/app' },
        stripe: { key: 'sk_seeded' },
      },
    },
    { name: 'my-other app.v2', secrets: {} },
  ],
};

// The command is a child process whatever the suite's transport: one run of this file is enough,
// and two would build the package at once.
const ONCE = process.env.SECRETS_VAULT_TRANSPORT !== 'fetch';

let directory = '';
let seedFile = '';
const children: ChildProcess[] = [];

beforeAll(async () => {
  if (!ONCE) return;
  // `npm ci && npm test` on a fresh clone has no dist yet: build it, as `npm run check` does.
  await ensureBuilt();
  directory = mkdtempSync(join(tmpdir(), 'secrets-vault-mock-'));
  seedFile = join(directory, 'seed.json');
  writeFileSync(seedFile, JSON.stringify(SEED));
}, 300_000);
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});
afterAll(() => {
  if (directory !== '') rmSync(directory, { recursive: true, force: true });
});

/** Starts `secrets-vault <args>` (the file `cli`, by default the built one) with only PATH. */
function start(args: readonly string[], env: Record<string, string> = {}, cli = CLI): ChildProcess {
  const child = launch(cli, args, {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return child;
}

/** Resolves to the first `count` lines of the child's stdout, or rejects if it ends first. */
function firstLines(child: ChildProcess, count: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    let stderr = '';
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    child.stdout?.on('data', (chunk) => {
      seen += chunk;
      const lines = seen.split('\n');
      if (lines.length > count) resolve(`${lines.slice(0, count).join('\n')}\n`);
    });
    child.once('exit', (code) => reject(new Error(`the mock ended (${code}): ${stderr}${seen}`)));
  });
}

/** The mock serving SEED, and the variables its first lines set. */
async function seededMock(): Promise<{
  child: ChildProcess;
  lines: string;
  env: Record<string, string>;
}> {
  const child = start(['mock', '--port', '0', '--seed', seedFile]);
  const lines = await firstLines(child, 4);
  return { child, lines, env: parseEnv(lines) as Record<string, string> };
}

function bash(script: string): Promise<Result> {
  return finished(
    spawn('bash', ['--noprofile', '--norc', '-c', script], {
      env: { PATH: process.env.PATH, CLI, SEED_FILE: seedFile, NODE: process.execPath },
      cwd: directory,
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
}

describe.runIf(ONCE)('secrets-vault mock', () => {
  it('prints the URL, the owner token and the seeded vaults as dotenv lines, and serves them', async () => {
    const { child, lines, env } = await seededMock();
    expect(lines).toMatch(
      /^SECRETS_VAULT_BASE_URL=http:\/\/127\.0\.0\.1:\d+\nSECRETS_VAULT_TOKEN=\S+\nVAULT_APP=\S+\nVAULT_MY_OTHER_APP_V2=\S+\n$/,
    );
    expect(Object.keys(env)).toEqual([
      'SECRETS_VAULT_BASE_URL',
      'SECRETS_VAULT_TOKEN',
      'VAULT_APP',
      'VAULT_MY_OTHER_APP_V2',
    ]);
    const { VAULT_APP, VAULT_MY_OTHER_APP_V2, ...service } = env;
    const run = await finished(
      start(
        [
          'run',
          '--vault',
          VAULT_APP ?? '',
          ...nodeRunning('console.log(process.env.DATABASE_URL, process.env.STRIPE_KEY)'),
        ],
        service,
      ),
    );
    expect(run).toEqual({
      code: 0,
      stdout: 'postgres://app:seeded-password@db/app sk_seeded\n',
      stderr: '',
    });
    const other = await finished(
      start(['ls', '--vault', VAULT_MY_OTHER_APP_V2 ?? '', '--format', 'json'], service),
    );
    expect(other).toEqual({ code: 0, stdout: '{}\n', stderr: '' });

    child.kill('SIGTERM');
    expect(await finished(child)).toMatchObject({ code: 0, stderr: '' });
    // Closed: the next command finds nothing listening.
    const after = await finished(start(['ls', '--vault', VAULT_APP ?? '', '--wait', '0'], service));
    expect(after.code).toBe(75);
  });

  it('serves a bash script that starts it in the background and sources its first lines', async () => {
    const result = await bash(`
      set -eu
      "$NODE" "$CLI" mock --port 0 --seed "$SEED_FILE" > mock.env &
      mock=$!
      for _ in $(seq 100); do [ "$(wc -l < mock.env)" -ge 4 ] && break; sleep 0.1; done
      set -a; . ./mock.env; set +a
      "$NODE" "$CLI" ls --vault "$VAULT_APP" --format json
      "$NODE" "$CLI" run --vault "$VAULT_APP" -- sh -c 'echo "url=$DATABASE_URL"'
      kill -TERM "$mock"
      status=0; wait "$mock" || status=$?
      echo "mock exited $status"
    `);
    expect(result).toEqual({
      code: 0,
      stdout:
        '{"database":["url"],"stripe":["key"]}\nurl=postgres://app:seeded-password@db/app\nmock exited 0\n',
      stderr: '',
    });
  });

  it('ends with 0 on SIGINT too', async () => {
    const child = start(['mock', '--port', '0']);
    expect(await firstLines(child, 2)).toMatch(
      /^SECRETS_VAULT_BASE_URL=\S+\nSECRETS_VAULT_TOKEN=\S+\n$/,
    );
    child.kill('SIGINT');
    expect((await finished(child)).code).toBe(0);
  });

  it('refuses an address other machines can reach, in one line', async () => {
    const result = await finished(start(['mock', '--port', '0', '--host', '0.0.0.0']));
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr:
        "secrets-vault: --host must be a loopback address (127.0.0.1, ::1 or localhost): the mock's tokens are public (see secrets-vault mock --help)\n",
    });
  });

  it('refuses a malformed seed file, naming the problem and never a value', async () => {
    const broken = join(directory, 'broken.json');
    writeFileSync(
      broken,
      '{ "vaults": [ { "name": "app", "secrets": { "db": { "password": "leaked-if-printed" ',
    );
    const notJson = await finished(start(['mock', '--port', '0', '--seed', broken]));
    expect(notJson).toEqual({
      code: 1,
      stdout: '',
      stderr: `secrets-vault: ${broken} is not valid JSON\n`,
    });

    const wrong = join(directory, 'wrong.json');
    writeFileSync(
      wrong,
      JSON.stringify({
        vaults: [{ name: 'app', secrets: { db: { password: 'leaked-if-printed', port: 5432 } } }],
      }),
    );
    const notString = await finished(start(['mock', '--port', '0', '--seed', wrong]));
    expect(notString).toEqual({
      code: 1,
      stdout: '',
      stderr: `secrets-vault: ${wrong}: vaults[0].secrets["db"]["port"] must be a string\n`,
    });

    const unnamed = join(directory, 'unnamed.json');
    writeFileSync(unnamed, JSON.stringify({ vaults: [{ secrets: {} }] }));
    const noName = await finished(start(['mock', '--port', '0', '--seed', unnamed]));
    expect(noName.code).toBe(1);
    expect(noName.stderr).toBe(
      `secrets-vault: ${unnamed}: vaults[0].name must be a non-empty string\n`,
    );
  });

  it('says to install msw when it is missing, while the other commands work without it', async () => {
    // The package as installed without its optional peer dependency: no node_modules at all.
    const installed = join(directory, 'installed');
    cpSync('dist', join(installed, 'dist'), { recursive: true });
    cpSync('package.json', join(installed, 'package.json'));
    const cli = join(installed, 'dist', 'cli.js');
    const missing = await finished(start(['mock', '--port', '0'], {}, cli));
    expect(missing).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'secrets-vault: secrets-vault mock needs the msw package: npm install --save-dev msw\n',
    });

    const { child, env } = await seededMock();
    const { VAULT_APP, VAULT_MY_OTHER_APP_V2: _, ...service } = env;
    const listed = await finished(
      start(['ls', '--vault', VAULT_APP ?? '', '--format', 'json'], service, cli),
    );
    expect(listed).toEqual({
      code: 0,
      stdout: '{"database":["url"],"stripe":["key"]}\n',
      stderr: '',
    });
    child.kill('SIGTERM');
    expect((await finished(child)).code).toBe(0);
  });
});
