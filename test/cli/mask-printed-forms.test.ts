/**
 * `run --mask` through the package's own build, as a job runs it: a command that prints its
 * secrets the ways loggers do (a PEM key in a JSON log line, line by line behind a prefix, with
 * CRLF line ends, a value with quotes and backslashes through JSON), its token with
 * `--keep-token`, and a reader that stops early (`| head -1`), in a real `bash` pipeline.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { PEM } from './fixtures/pem.js';
import { finished, nodeRunning, type Result, useCommand, vaultWith, withNode } from './harness.js';

const command = useCommand({ built: true });
const { mock } = command;

const PASSWORD = 'pa"ss\\word-42';

let vaultId: string;

beforeEach(async () => {
  vaultId = await vaultWith(
    command,
    'logged',
    { tls: { key: PEM }, db: { password: PASSWORD } },
    { reset: true },
  );
});

/** Runs `script` in `bash` with the service's settings and the built command as `$CLI`. */
function bash(script: string, env: Record<string, string> = {}): Promise<Result> {
  return finished(
    spawn('bash', ['--noprofile', '--norc', '-c', script], {
      env: {
        PATH: withNode(process.env.PATH),
        CLI: command.cli,
        VAULT: vaultId,
        SECRETS_VAULT_BASE_URL: command.served.url,
        SECRETS_VAULT_TOKEN: mock.principals.adminKey.token,
        ...env,
      },
      cwd: command.directory,
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
}

describe('run --mask, as programs print their secrets', () => {
  it('redacts a key and a password however a logger prints them', async () => {
    const result = await command.run([
      'run',
      '--vault',
      vaultId,
      '--mask',
      ...nodeRunning(`
        const { TLS_KEY: key, DB_PASSWORD: password } = process.env;
        console.log(JSON.stringify({ level: 30, msg: 'loaded', key, password }));
        for (const line of key.split('\\n')) console.log('[app] ' + line);
        process.stdout.write(key.replaceAll('\\n', '\\r\\n') + '\\r\\n');
        console.error(JSON.stringify({ level: 50, err: { message: 'bad ' + password } }));
      `),
    ]);
    expect(result.code).toBe(0);
    const [logged, ...rest] = result.stdout.split('\n');
    expect(JSON.parse(logged ?? '')).toEqual({
      level: 30,
      msg: 'loaded',
      key: '<redacted>',
      password: '<redacted>',
    });
    expect(rest.join('\n')).toBe(`${'[app] <redacted>\n'.repeat(4)}<redacted>\r\n`);
    expect(JSON.parse(result.stderr)).toEqual({ level: 50, err: { message: 'bad <redacted>' } });
  });

  it('redacts the token that --keep-token gives the command, from the variable or the file', async () => {
    const token = mock.principals.adminKey.token;
    const printing = nodeRunning(
      `console.log('token=' + (process.env.SECRETS_VAULT_TOKEN ?? require('node:fs').readFileSync(process.env.SECRETS_VAULT_TOKEN_FILE, 'utf8').trim()))`,
    );
    const fromVariable = await command.run([
      'run',
      '--vault',
      vaultId,
      '--mask',
      '--keep-token',
      ...printing,
    ]);
    expect(fromVariable).toEqual({ code: 0, stdout: 'token=<redacted>\n', stderr: '' });

    const file = join(command.directory, 'token');
    writeFileSync(file, `${token}\n`);
    const fromFile = await command.run(
      ['run', '--vault', vaultId, '--mask', '--keep-token', ...printing],
      { SECRETS_VAULT_TOKEN: undefined, SECRETS_VAULT_TOKEN_FILE: file },
    );
    expect(fromFile).toEqual({ code: 0, stdout: 'token=<redacted>\n', stderr: '' });
  });
});

describe('run --mask, when the reader stops early', () => {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's expansion, kept literal.
  const STATUS = 'echo "status=${PIPESTATUS[0]}"';

  it('ends quietly with the status of the command, which the closed pipe stops as a shell would', async () => {
    // `yes` never ends on its own: only its failed write stops it, killed by SIGPIPE (141), or,
    // where the closed end still held unread output, told ECONNRESET (its output is a socket),
    // which it reports on its stderr (dropped here) before exiting 1.
    const result = await bash(
      `"$CLI" run --vault "$VAULT" --mask -- sh -c 'yes "$LINE" 2>/dev/null' | head -1; ${STATUS}`,
      { LINE: `password ${PASSWORD}` },
    );
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/^password <redacted>\nstatus=(141|1)\n$/);
    expect(result.code).toBe(0);
  });

  it('ends quietly when the reader of stdout and stderr goes first, the command ending on its own', async () => {
    const result = await bash(
      `"$CLI" run --vault "$VAULT" --mask -- bash -c 'for i in $(seq 1 20000); do echo "line $i"; echo "err $i" >&2; done; exit 3' 2>&1 | head -1; ${STATUS}`,
    );
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/^(line|err) 1\nstatus=(141|3)\n$/);
  });
});
