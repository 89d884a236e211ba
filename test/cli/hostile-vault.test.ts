/**
 * A vault's contents are written by whoever can edit the vault, and read by every job that
 * loads it: the command as real child processes, fed names, keys and values made to reach the
 * job's shell, its token, its other vaults or its terminal, with real `bash` wherever a shell
 * reads what the command wrote, and a real pseudo-terminal for Ctrl-C.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { beforeEach, describe, expect, it } from 'vitest';
import { SecretsVault } from '../../src/index.js';
import { finished, nodeRunning, type Result, untilOutput, useCommand } from './harness.js';

const command = useCommand();
const { mock } = command;

let canary: string;
/** Values no reader may act on; none holds a `'`, so dotenv can carry them all. */
let exportable: Record<string, string>;
let vaultId: string;
let otherVaultId: string;

function operator(): SecretsVault {
  return new SecretsVault({ baseUrl: command.served.url, token: mock.principals.owner.token });
}

/** A vault holding `secrets`; resolves to its id. */
async function vaultWith(secrets: Record<string, Record<string, string>>): Promise<string> {
  const client = operator();
  const vault = await client.vaults.create({ name: 'hostile' });
  for (const [name, value] of Object.entries(secrets)) {
    await client.secrets.create(vault.id, { name, value });
  }
  return vault.id;
}

beforeEach(async (context) => {
  mock.reset();
  mock.faults.clear();
  canary = join(command.directory, `${context.task.id}.pwned`);
  exportable = {
    substitution: `$(touch ${canary})`,
    backticks: `\`touch ${canary}\``,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion, kept literal on purpose.
    expansion: '${HOME} $PATH $$',
    quotes: '"double" # not a comment',
    backslashes: 'C:\\dir\\n\\ and more',
    multiline: 'line one\nline two',
  };
  otherVaultId = await vaultWith({ db: { password: 'other-vault-password' } });
  vaultId = await vaultWith({
    app: exportable,
    pivot: { ref: `vault://${otherVaultId}/db/password`, broken: 'vault://not/a' },
  });
});

/** Runs `bash -c script` with `env`, in the scratch folder. */
function bash(script: string, env: Record<string, string> = {}): Promise<Result> {
  return finished(
    spawn('bash', ['--noprofile', '--norc', '-c', script], {
      env: { PATH: process.env.PATH, ...env },
      cwd: command.directory,
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
}

const expectedVariables = () =>
  Object.fromEntries(
    Object.entries(exportable).map(([key, value]) => [`APP_${key.toUpperCase()}`, value]),
  );

describe('export', () => {
  it('writes dotenv that bash sources without running anything, and Node reads the same', async () => {
    const result = await command.run(['export', '--vault', vaultId, '--format', 'dotenv']);
    expect(result.code).toBe(0);
    const file = join(command.directory, 'exported.env');
    writeFileSync(file, result.stdout);
    const names = Object.keys(expectedVariables());
    const sourced = await bash(
      `set -a; . ./exported.env; node -e 'console.log(JSON.stringify(Object.fromEntries(${JSON.stringify(names)}.map((n) => [n, process.env[n]]))))'`,
    );
    expect(JSON.parse(sourced.stdout)).toEqual(expectedVariables());
    expect(parseEnv(result.stdout)).toMatchObject(expectedVariables());
    expect(existsSync(canary)).toBe(false);
  });

  it('refuses a value no dotenv quoting can carry, naming the variable, and prints nothing', async () => {
    const id = await vaultWith({ app: { note: `it's $(touch ${canary})` } });
    const result = await command.run(['export', '--vault', id, '--format', 'dotenv']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /the value of APP_NOTE cannot be written in this format.*--format json/,
    );
    expect(result.stderr).not.toContain('touch');
  });

  it('writes shell export lines that eval reads exactly, for any value', async () => {
    const id = await vaultWith({ app: { ...exportable, note: `it's '$(touch ${canary})'` } });
    const result = await bash(
      `eval "$(node "$CLI" export --vault ${id} --format shell)"; node -e 'console.log(JSON.stringify({ note: process.env.APP_NOTE, substitution: process.env.APP_SUBSTITUTION, multiline: process.env.APP_MULTILINE }))'`,
      {
        CLI: command.cli,
        SECRETS_VAULT_BASE_URL: command.served.url,
        SECRETS_VAULT_TOKEN: mock.principals.adminKey.token,
      },
    );
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual({
      note: `it's '$(touch ${canary})'`,
      substitution: exportable.substitution,
      multiline: exportable.multiline,
    });
    expect(existsSync(canary)).toBe(false);
  });

  it('writes --output with mode 0600, never wider than the file it replaces, atomically', async () => {
    const fresh = join(command.directory, 'fresh.env');
    const result = await command.run([
      'export',
      '--vault',
      vaultId,
      '--format',
      'dotenv',
      '--output',
      fresh,
    ]);
    expect(result).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(statSync(fresh).mode & 0o777).toBe(0o600);
    expect(parseEnv(readFileSync(fresh, 'utf8'))).toMatchObject(expectedVariables());

    const open = join(command.directory, 'open.env');
    writeFileSync(open, 'OLD=1\n', { mode: 0o666 });
    const narrow = join(command.directory, 'narrow.json');
    writeFileSync(narrow, '{}', { mode: 0o400 });
    for (const [file, format] of [
      [open, 'dotenv'],
      [narrow, 'json'],
    ] as const) {
      expect(
        (await command.run(['export', '--vault', vaultId, '--format', format, '--output', file]))
          .code,
      ).toBe(0);
    }
    expect(statSync(open).mode & 0o777).toBe(0o600);
    expect(statSync(narrow).mode & 0o777).toBe(0o400);
    expect(JSON.parse(readFileSync(narrow, 'utf8'))).toMatchObject(expectedVariables());
    expect(readdirSync(command.directory).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('keeps stdout for the values alone when debug logging is on', async () => {
    const result = await command.run(['export', '--vault', vaultId, '--format', 'json'], {
      SECRETS_VAULT_LOG: 'debug',
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject(expectedVariables());
    expect(result.stderr).toContain('GET');
    for (const secret of Object.values(exportable)) expect(result.stderr).not.toContain(secret);
  });
});

/** `run` arguments whose command prints the named variables as JSON. */
function printing(id: string, flags: readonly string[], ...names: string[]): string[] {
  return [
    'run',
    '--vault',
    id,
    ...flags,
    ...nodeRunning(
      `console.log(JSON.stringify(Object.fromEntries(${JSON.stringify(names)}.map((n) => [n, process.env[n] ?? null]))))`,
    ),
  ];
}

describe('run', () => {
  it("keeps the job's token from the command unless --keep-token, and the fallback key always", async () => {
    const env = { SECRETS_VAULT_FALLBACK_KEY: 'k'.repeat(64) };
    const names = ['SECRETS_VAULT_TOKEN', 'SECRETS_VAULT_FALLBACK_KEY', 'SECRETS_VAULT_BASE_URL'];
    const stripped = await command.run(printing(vaultId, [], ...names), env);
    expect(JSON.parse(stripped.stdout)).toEqual({
      SECRETS_VAULT_TOKEN: null,
      SECRETS_VAULT_FALLBACK_KEY: null,
      SECRETS_VAULT_BASE_URL: command.served.url,
    });
    const kept = await command.run(printing(vaultId, ['--keep-token'], ...names), env);
    expect(JSON.parse(kept.stdout)).toMatchObject({
      SECRETS_VAULT_TOKEN: mock.principals.adminKey.token,
      SECRETS_VAULT_FALLBACK_KEY: null,
    });
  });

  it('reads the token from SECRETS_VAULT_TOKEN_FILE, and keeps that path from the command unless --keep-token', async () => {
    const tokenFile = join(command.directory, 'token');
    writeFileSync(tokenFile, `${mock.principals.adminKey.token}\n`, { mode: 0o600 });
    const env = { SECRETS_VAULT_TOKEN: undefined, SECRETS_VAULT_TOKEN_FILE: tokenFile };
    const names = ['SECRETS_VAULT_TOKEN', 'SECRETS_VAULT_TOKEN_FILE'];
    const stripped = await command.run(printing(vaultId, [], ...names), env);
    expect(stripped.stderr).toBe('');
    expect(JSON.parse(stripped.stdout)).toEqual({
      SECRETS_VAULT_TOKEN: null,
      SECRETS_VAULT_TOKEN_FILE: null,
    });
    const kept = await command.run(printing(vaultId, ['--keep-token'], ...names), env);
    expect(JSON.parse(kept.stdout)).toEqual({
      SECRETS_VAULT_TOKEN: null,
      SECRETS_VAULT_TOKEN_FILE: tokenFile,
    });
  });

  it.each([
    [
      'SECRETS_VAULT_BASE_URL',
      'secrets',
      'vault_base_url',
      ['--override', '--allow-var', 'SECRETS_VAULT_BASE_URL'],
    ],
    ['SECRETS_VAULT_TOKEN', 'secrets', 'vault_token', ['--override']],
    ['NODE_OPTIONS', 'node', 'options', []],
    ['LD_PRELOAD', 'ld', 'preload', []],
    ['BASH_ENV', 'bash', 'env', ['--override']],
    ['HTTPS_PROXY', 'https', 'proxy', []],
  ])(
    'refuses to start the command when the vault would set %s',
    async (name, secret, key, flags) => {
      const id = await vaultWith({ [secret]: { [key]: '/tmp/evil' } });
      const result = await command.run(printing(id, flags, name));
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toContain(`the vault would set ${name}`);
      expect(result.stderr).not.toContain('evil');
    },
  );

  it('lets the job allow a startup variable by name with --allow-var', async () => {
    const id = await vaultWith({ node: { options: '--no-deprecation' } });
    const refused = await command.run(printing(id, [], 'NODE_OPTIONS'));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('--allow-var NODE_OPTIONS');
    const allowed = await command.run(
      printing(id, ['--allow-var', 'NODE_OPTIONS'], 'NODE_OPTIONS'),
    );
    expect(allowed.code).toBe(0);
    expect(JSON.parse(allowed.stdout)).toEqual({ NODE_OPTIONS: '--no-deprecation' });
  });

  it("never resolves a vault's own values as references, nor prints a malformed one", async () => {
    const result = await command.run(
      printing(vaultId, [], 'PIVOT_REF', 'PIVOT_BROKEN', 'FROM_JOB'),
      {
        FROM_JOB: `vault://${otherVaultId}/db/password`,
      },
    );
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      PIVOT_REF: `vault://${otherVaultId}/db/password`,
      PIVOT_BROKEN: 'vault://not/a',
      FROM_JOB: 'other-vault-password',
    });
    expect(result.stderr).toBe('');
  });

  it('refuses a value with a NUL, naming the variable and never the value', async () => {
    const id = await vaultWith({ app: { token: 'sk_live_nul\0tail_secret' } });
    const result = await command.run(printing(id, [], 'APP_TOKEN'));
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('APP_TOKEN holds a NUL');
    expect(result.stderr).not.toContain('sk_live_nul');
    expect(result.stderr).not.toContain('tail_secret');
  });

  it('passes a SIGHUP on and waits for the command instead of orphaning it', async () => {
    const child = command.start([
      'run',
      '--vault',
      vaultId,
      ...nodeRunning(
        "process.on('SIGHUP', () => { console.log('hung up'); setTimeout(() => process.exit(3), 300); }); console.log('ready'); setInterval(() => {}, 1000);",
      ),
    ]);
    const outcome = finished(child);
    await untilOutput(child.stdout, 'ready');
    child.kill('SIGHUP');
    const result = await outcome;
    expect(result.stdout).toContain('hung up');
    expect(result.code).toBe(3);
  });

  it('lets one Ctrl-C in a terminal reach the command once', async () => {
    // A real pseudo-terminal: its line discipline turns ^C into SIGINT for the whole foreground
    // process group, the command included.
    const script = [
      'let count = 0;',
      "process.on('SIGINT', () => { count += 1; });",
      "console.log('ready');",
      "setTimeout(() => { console.log('interrupts=' + count); process.exit(0); }, 1500);",
    ].join(' ');
    const inner = [process.execPath, command.cli, 'run', '--vault', vaultId, ...nodeRunning(script)]
      .map((part) => `'${part.replaceAll("'", "'\\''")}'`)
      .join(' ');
    const terminal = spawn('script', ['-qec', inner, '/dev/null'], {
      env: {
        PATH: process.env.PATH,
        SHELL: '/bin/bash',
        SECRETS_VAULT_BASE_URL: command.served.url,
        SECRETS_VAULT_TOKEN: mock.principals.adminKey.token,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const outcome = finished(terminal);
    await untilOutput(terminal.stdout, 'ready');
    terminal.stdin?.write('\u0003');
    const result = await outcome;
    expect(result.stdout).toMatch(/interrupts=1\b/);
  });
});

describe('ls', () => {
  it('prints terminal escapes in names and keys as text', async () => {
    const id = await vaultWith({ '\u001b]0;owned\u0007title\u001b[2J': { 'key\u009b31m': 'v' } });
    const result = await command.run(['ls', '--vault', id]);
    expect(result.code).toBe(0);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: asserting their absence.
    expect(result.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(result.stdout).toContain('\\u001b]0;owned\\u0007title');
    expect(result.stdout).toContain('key\\u009b31m');
  });
});
