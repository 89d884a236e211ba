/**
 * The `secrets-vault` command as a user runs it: a real child process (the command bundled the
 * way the package builds it) against the mock served over HTTP on loopback. Exit codes, signals,
 * and no secret value on stdout or stderr except through `export`.
 */
import { readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { beforeEach, describe, expect, it } from 'vitest';
import { SecretsVault } from '../../src/index.js';
import { finished, nodeRunning, untilOutput, useCommand } from './harness.js';

const PASSWORD = 'pa$$word with "quotes" and \'more\'';
const PEM = '-----BEGIN KEY-----\nMIIBOgIBAAJBAK\n-----END KEY-----';
const API_KEY = 'sk_live_cli_test_51HqLyjWDarjtT1zdp';

const command = useCommand();
const { mock } = command;
let vaultId: string;

beforeEach(async () => {
  mock.reset();
  const operator = new SecretsVault({
    baseUrl: command.served.url,
    token: mock.principals.owner.token,
  });
  const vault = await operator.vaults.create({ name: 'job' });
  vaultId = vault.id;
  await operator.secrets.create(vault.id, {
    name: 'database',
    value: { password: PASSWORD, url: 'db.internal' },
  });
  await operator.secrets.create(vault.id, { name: 'tls', value: { key: PEM } });
  await operator.secrets.create(vault.id, { name: 'stripe', value: { apiKey: API_KEY } });
});

const secretsVault = command.run;
const start = command.start;

/** `run` arguments for a child command that is node itself, running `script` with `args`. */
const runNode = (script: string, ...args: string[]) => [
  'run',
  '--vault',
  vaultId,
  ...nodeRunning(script, ...args),
];

/** A child command (node itself) that prints its environment as JSON. */
const printEnv = (...names: string[]) => [
  '--',
  process.execPath,
  '-e',
  `console.log(JSON.stringify(Object.fromEntries(${JSON.stringify(names)}.map((n) => [n, process.env[n]]))))`,
];

function expectNoValue(text: string): void {
  for (const value of [PASSWORD, PEM, API_KEY, 'MIIBOgIBAAJBAK']) expect(text).not.toContain(value);
}

describe('secrets-vault run', () => {
  it('runs the command with the secrets as variables, the existing environment winning', async () => {
    const result = await secretsVault(
      [
        'run',
        '--vault',
        vaultId,
        ...printEnv('DATABASE_PASSWORD', 'TLS_KEY', 'STRIPE_APIKEY', 'DATABASE_URL'),
      ],
      { DATABASE_URL: 'from-the-environment' },
    );
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      DATABASE_PASSWORD: PASSWORD,
      TLS_KEY: PEM,
      STRIPE_APIKEY: API_KEY,
      DATABASE_URL: 'from-the-environment',
    });
    expectNoValue(result.stderr);
  });

  it('lets the vault win with --override, and prefixes names with --prefix', async () => {
    const result = await secretsVault(
      [
        'run',
        '--vault',
        vaultId,
        '--override',
        '--prefix',
        'APP_',
        ...printEnv('APP_DATABASE_URL'),
      ],
      { APP_DATABASE_URL: 'from-the-environment' },
    );
    expect(JSON.parse(result.stdout)).toEqual({ APP_DATABASE_URL: 'db.internal' });
  });

  it('resolves vault:// references already in the environment', async () => {
    const result = await secretsVault(['run', '--vault', vaultId, ...printEnv('STRIPE')], {
      STRIPE: `vault://${vaultId}/stripe/apiKey`,
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ STRIPE: API_KEY });
  });

  it('passes arguments through without a shell', async () => {
    const result = await secretsVault(
      runNode(
        'console.log(JSON.stringify(process.argv.slice(1)))',
        '$HOME',
        '; echo injected',
        '--vault',
      ),
    );
    expect(JSON.parse(result.stdout)).toEqual(['$HOME', '; echo injected', '--vault']);
  });

  it.each([0, 3, 42])('exits with the exit code %i of the command', async (code) => {
    const result = await secretsVault(runNode(`process.exit(${code})`));
    expect(result.code).toBe(code);
  });

  it('exits 127 with one line when the command does not exist', async () => {
    const result = await secretsVault(['run', '--vault', vaultId, '--', 'no-such-command-here']);
    expect(result.code).toBe(127);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('ENOENT');
  });

  it.each(['SIGTERM', 'SIGINT'] as const)(
    'passes %s on to the command, and exits with its code',
    async (signal) => {
      const child = start(
        runNode(
          `process.on('${signal}', () => { console.log('caught'); process.exit(7); }); console.log('ready'); setInterval(() => {}, 1000);`,
        ),
      );
      const outcome = finished(child);
      await untilOutput(child.stdout, 'ready');
      child.kill(signal);
      const result = await outcome;
      expect(result.stdout).toContain('caught');
      expect(result.code).toBe(7);
    },
  );

  it('exits 128 + the signal number when a signal ended the command', async () => {
    const child = start(runNode("console.log('ready'); setInterval(() => {}, 1000);"));
    const outcome = finished(child);
    await untilOutput(child.stdout, 'ready');
    child.kill('SIGTERM');
    expect((await outcome).code).toBe(128 + 15);
  });
});

describe('secrets-vault export', () => {
  it('refuses dotenv for a value no quoting carries, naming its variable only', async () => {
    // The password holds a ' with $ and ": no dotenv quoting reads the same in Node and a shell.
    const result = await secretsVault(['export', '--vault', vaultId, '--format', 'dotenv']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/the value of DATABASE_PASSWORD cannot be written/);
    expectNoValue(result.stderr);
  });

  it('prints dotenv that node reads back exactly', async () => {
    const owner = new SecretsVault({
      baseUrl: command.served.url,
      token: mock.principals.owner.token,
    });
    const secrets = await owner.secrets.list(vaultId).toArray({ max: 10 });
    const database = secrets.find((secret) => secret.name === 'database');
    if (database === undefined) throw new Error('the fixture vault has a database secret');
    const password = 'no single quote: $HOME "x" \\ `id`';
    await owner.secrets.update(database.id, { value: { password, url: 'db.internal' } });

    const result = await secretsVault(['export', '--vault', vaultId, '--format', 'dotenv']);
    expect(result.code).toBe(0);
    expect(parseEnv(result.stdout)).toEqual({
      DATABASE_PASSWORD: password,
      DATABASE_URL: 'db.internal',
      TLS_KEY: PEM,
      STRIPE_APIKEY: API_KEY,
    });
    expect(result.stderr).toBe('');
  });

  it('prints one JSON object with --format json', async () => {
    const result = await secretsVault([
      'export',
      '--vault',
      vaultId,
      '--format',
      'json',
      '--prefix',
      'X_',
    ]);
    expect(JSON.parse(result.stdout)).toMatchObject({ X_TLS_KEY: PEM, X_STRIPE_APIKEY: API_KEY });
  });
});

describe('secrets-vault ls', () => {
  it('lists secret names and their keys, never values', async () => {
    const result = await secretsVault(['ls', '--vault', vaultId]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('database: password, url\nstripe: apiKey\ntls: key\n');
    expectNoValue(result.stdout + result.stderr);
  });
});

describe('help, version and failures', () => {
  it('prints the version of the package', async () => {
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    const result = await secretsVault(['--version']);
    expect(result).toMatchObject({ code: 0, stdout: `${version}\n` });
  });

  it.each([[['--help']], [['run', '--help']], [['export', '-h']], [['ls', '--help']]])(
    'prints help for %j',
    async (args) => {
      const result = await secretsVault(args);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^Usage: secrets-vault/);
    },
  );

  it.each([
    [
      'a missing token',
      ['ls', '--vault', 'v'],
      { SECRETS_VAULT_TOKEN: undefined },
      /SECRETS_VAULT_TOKEN/,
    ],
    [
      'a missing base URL',
      ['ls', '--vault', 'v'],
      { SECRETS_VAULT_BASE_URL: undefined },
      /SECRETS_VAULT_BASE_URL/,
    ],
    ['an unknown vault', ['ls', '--vault', 'vlt_missing'], {}, /NotFoundError/],
    [
      'a refused token',
      ['export', '--vault', 'v', '--format', 'json'],
      { SECRETS_VAULT_TOKEN: 'sv_not_a_token' },
      /AuthenticationError/,
    ],
    [
      'a network failure',
      ['run', '--vault', 'v', '--wait', '1s', '--', 'true'],
      { SECRETS_VAULT_BASE_URL: 'http://127.0.0.1:{closedPort}' },
      /ECONNREFUSED 127\.0\.0\.1:\d+/,
    ],
    ['an unknown command', ['deploy'], {}, /unknown command 'deploy'/],
    ['a missing --vault', ['ls'], {}, /--vault <id> is required/],
    [
      'an unknown option',
      ['ls', '--vault', 'v', '--verbose'],
      {},
      /unknown option '--verbose' \(see secrets-vault ls --help\)/,
    ],
  ] as const)(
    'fails on %s with one line on stderr and no stack',
    async (_case, args, env, pattern) => {
      const settings = Object.fromEntries(
        Object.entries(env).map(([name, value]) => [
          name,
          value?.replace('{closedPort}', String(command.closedPort)),
        ]),
      );
      const result = await secretsVault([...args], settings);
      expect(result.code).not.toBe(0);
      const lines = result.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^secrets-vault: /);
      expect(lines[0]).toMatch(pattern);
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(result.stderr).not.toContain(mock.principals.adminKey.token);
      expect(result.stdout).toBe('');
    },
  );
});
