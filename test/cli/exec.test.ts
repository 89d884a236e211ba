/**
 * `secrets-vault run --exec`: the command replaces the `secrets-vault` process (same pid, no
 * parent left running), with exactly the environment `run` would give it, found on the job's
 * PATH as `run` finds it. Real child processes against the served mock.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { SecretsVault } from '../../src/index.js';
import { finished, nodeRunning, useCommand } from './harness.js';

const command = useCommand();
const { mock } = command;

/** Hostile values: each must reach the command's environment byte for byte. */
const HOSTILE = {
  quotes: `'single' "double" \`back\``,
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion, kept literal on purpose.
  substitution: '$(id) ${HOME} $PATH',
  newlines: 'line one\nline two\r\n',
  escapes: '\u001b]0;owned\u0007\u001b[2J\u009b31m',
  reference: 'vault://vlt_other/db/password',
  large: 'x'.repeat(64 * 1024),
};

let vaultId: string;

beforeAll(async () => {
  const owner = new SecretsVault({
    baseUrl: command.served.url,
    token: mock.principals.owner.token,
  });
  const vault = await owner.vaults.create({ name: 'exec' });
  await owner.secrets.create(vault.id, { name: 'app', value: HOSTILE });
  vaultId = vault.id;
});

/** A child command (node itself) that prints its pid, its parent's pid and its environment. */
const printSelf = nodeRunning(
  'console.log(JSON.stringify({ pid: process.pid, ppid: process.ppid, env: process.env }))',
);

const expectedVariables = Object.fromEntries(
  Object.entries(HOSTILE).map(([key, value]) => [`APP_${key.toUpperCase()}`, value]),
);

/** An executable file at `file` holding `text`. */
function executable(file: string, text: string, mode = 0o755): string {
  writeFileSync(file, text);
  chmodSync(file, mode);
  return file;
}

describe('secrets-vault run --exec', () => {
  it('becomes the command: same pid, its parent is ours, the vault in its environment verbatim', async () => {
    const child = command.start(['run', '--vault', vaultId, '--exec', ...printSelf]);
    const result = await finished(child);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const seen = JSON.parse(result.stdout);
    expect(seen.pid).toBe(child.pid);
    // No secrets-vault process stands between the test and the command.
    expect(seen.ppid).toBe(process.pid);
    expect(seen.env).toMatchObject(expectedVariables);
  });

  it.each([
    ['without', []],
    ['with', ['--keep-token']],
  ])(
    'gives the command exactly the environment run gives it, %s --keep-token',
    async (_, flags) => {
      const env = { SECRETS_VAULT_FALLBACK_KEY: 'f'.repeat(64), JOB_SETTING: 'kept' };
      const spawned = await command.run(['run', '--vault', vaultId, ...flags, ...printSelf], env);
      const replaced = await command.run(
        ['run', '--vault', vaultId, ...flags, '--exec', ...printSelf],
        env,
      );
      expect(replaced.stderr).toBe('');
      const environment = JSON.parse(replaced.stdout).env;
      expect(environment).toEqual(JSON.parse(spawned.stdout).env);
      expect(environment.JOB_SETTING).toBe('kept');
      expect(environment.SECRETS_VAULT_FALLBACK_KEY).toBeUndefined();
      expect(environment.SECRETS_VAULT_TOKEN).toBe(
        flags.length > 0 ? mock.principals.adminKey.token : undefined,
      );
    },
  );

  it.each([0, 3, 42])('exits with the exit code %i of the command', async (code) => {
    const result = await command.run([
      'run',
      '--vault',
      vaultId,
      '--exec',
      ...nodeRunning(`process.exit(${code})`),
    ]);
    expect(result).toMatchObject({ code, stderr: '' });
  });

  it('finds a bare name on the job PATH, skipping a file there that is not executable', async () => {
    const first = join(command.directory, 'path-first');
    const second = join(command.directory, 'path-second');
    mkdirSync(first, { recursive: true });
    mkdirSync(second, { recursive: true });
    executable(join(first, 'print-pid'), '#!/bin/sh\necho wrong\n', 0o644);
    executable(join(second, 'print-pid'), '#!/bin/sh\necho "$$ $0 $1 $APP_QUOTES"\n');
    const child = command.start(['run', '--vault', vaultId, '--exec', '--', 'print-pid', 'arg'], {
      PATH: `${first}:${second}:${process.env.PATH}`,
    });
    const result = await finished(child);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toBe(`${child.pid} ${second}/print-pid arg ${HOSTILE.quotes}\n`);
  });

  it('runs an executable file without a #! line in /bin/sh, as run does', async () => {
    const file = executable(join(command.directory, 'no-shebang'), 'echo "sh ran $1"\n');
    const result = await command.run(['run', '--vault', vaultId, '--exec', '--', file, 'it']);
    expect(result).toMatchObject({ code: 0, stdout: 'sh ran it\n', stderr: '' });
  });

  it.each([
    ['a command that does not exist', () => 'no-such-command-here', 127, 'ENOENT'],
    [
      'a script whose interpreter does not exist',
      () => executable(join(command.directory, 'lost'), '#!/no/such/interpreter\n'),
      127,
      'ENOENT',
    ],
    [
      'a file that is not executable',
      () => executable(join(command.directory, 'plain'), 'echo no\n', 0o644),
      126,
      'EACCES',
    ],
    ['a folder', () => command.directory, 126, 'EACCES'],
  ])('exits %s with one line naming the code', async (_, name, code, errno) => {
    const target = name();
    const result = await command.run(['run', '--vault', vaultId, '--exec', '--', target]);
    expect(result.code).toBe(code);
    expect(result.stderr).toBe(`secrets-vault: cannot run ${target}: ${errno}\n`);
  });

  it('refuses an environment too large for a program, rather than aborting', async () => {
    const owner = new SecretsVault({
      baseUrl: command.served.url,
      token: mock.principals.owner.token,
    });
    const vault = await owner.vaults.create({ name: 'exec-large' });
    // Linux passes no single NAME=value longer than 128 KiB.
    await owner.secrets.create(vault.id, { name: 'big', value: { blob: 'y'.repeat(200 * 1024) } });
    const result = await command.run(['run', '--vault', vault.id, '--exec', ...printSelf]);
    expect(result.code).toBe(126);
    expect(result.stderr).toBe(`secrets-vault: cannot run ${process.execPath}: E2BIG\n`);
  });

  it('writes the --fallback snapshot, mode 0600, before the command starts', async () => {
    const file = join(command.directory, 'exec.snapshot');
    const script = `const { statSync } = require('node:fs'); console.log((statSync(process.argv[1]).mode & 0o777).toString(8));`;
    const result = await command.run(
      ['run', '--vault', vaultId, '--fallback', file, '--exec', ...nodeRunning(script, file)],
      { SECRETS_VAULT_FALLBACK_KEY: '0123456789abcdef'.repeat(4) },
    );
    expect(result).toMatchObject({ code: 0, stdout: '600\n', stderr: '' });
  });

  it('exits 2 with one line, loading nothing, when Node.js has no process.execve', async () => {
    // The service is unreachable: had the vault been loaded first, the exit would be 75.
    const result = await command.run(['run', '--vault', vaultId, '--exec', ...printSelf], {
      NODE_OPTIONS: '--import=data:text/javascript,delete%20process.execve',
      SECRETS_VAULT_BASE_URL: `http://127.0.0.1:${command.closedPort}`,
    });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^secrets-vault: --exec needs process\.execve, which Node\.js v[\d.]+ on \w+ does not have: upgrade to Node\.js 22\.15 or later \(not on Windows\), or run without --exec\n$/,
    );
  });

  it('is listed in the top-level help', async () => {
    const result = await command.run(['--help']);
    expect(result.stdout).toContain('[--mask | --exec]');
  });
});
