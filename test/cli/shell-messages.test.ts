/**
 * What the command tells a shell user when something is wrong: the environment variable to set
 * (never a constructor option), the vault it could not find, and, for a usage mistake, the
 * command line that fixes it. Each message is one line, with no token and no value.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SecretsVault } from '../../src/index.js';
import { type Result, useCommand } from './harness.js';

const command = useCommand();
const { mock } = command;
const VALUE = 'value-of-the-job-s3cr3t';
let vaultId: string;
let files = '';

beforeAll(() => {
  files = mkdtempSync(join(tmpdir(), 'secrets-vault-shell-'));
});
afterAll(() => {
  rmSync(files, { recursive: true, force: true });
});

beforeEach(async () => {
  mock.reset();
  const operator = new SecretsVault({
    baseUrl: command.served.url,
    token: mock.principals.owner.token,
  });
  const vault = await operator.vaults.create({ name: 'job' });
  vaultId = vault.id;
  await operator.secrets.create(vault.id, { name: 'db', value: { password: VALUE } });
});

/** The one line the command printed on stderr, checked to hold no token, value or stack. */
function onlyLine(result: Result): string {
  const lines = result.stderr.split('\n').filter((line) => line !== '');
  expect(lines).toHaveLength(1);
  expect(result.stderr).not.toMatch(/\n\s+at /);
  expect(result.stderr).not.toContain(mock.principals.adminKey.token);
  expect(result.stderr).not.toContain(VALUE);
  return lines[0] ?? '';
}

describe('settings, said with environment variables', () => {
  it.each([
    [
      'a missing base URL',
      { SECRETS_VAULT_BASE_URL: undefined },
      'secrets-vault: Missing base URL: set SECRETS_VAULT_BASE_URL',
    ],
    [
      'a missing token',
      { SECRETS_VAULT_TOKEN: undefined },
      'secrets-vault: Missing token: set SECRETS_VAULT_TOKEN or SECRETS_VAULT_TOKEN_FILE',
    ],
    [
      'a base URL ending with /v1',
      { SECRETS_VAULT_BASE_URL: 'http://127.0.0.1:8200/v1' },
      'secrets-vault: Invalid base URL: SECRETS_VAULT_BASE_URL must not end with /v1 (the SDK adds it); use http://127.0.0.1:8200',
    ],
    [
      'a token with a space',
      { SECRETS_VAULT_TOKEN: 'sv two words' },
      'secrets-vault: Invalid token: SECRETS_VAULT_TOKEN must be printable ASCII without spaces',
    ],
    [
      'a malformed timeout',
      { SECRETS_VAULT_TIMEOUT: 'soon' },
      'secrets-vault: Invalid timeout: SECRETS_VAULT_TIMEOUT must be a whole number of milliseconds from 1 to 2147483647, or a duration such as 30s',
    ],
    [
      'an unknown log level',
      { SECRETS_VAULT_LOG: 'loud' },
      'secrets-vault: Invalid log level: SECRETS_VAULT_LOG must be off, error, warn, info or debug',
    ],
  ])('names the variable alone for %s', async (_case, env, expected) => {
    const result = await command.run(['ls', '--vault', vaultId], env);
    expect(result.code).toBe(1);
    const line = onlyLine(result);
    expect(line).toBe(expected);
    expect(line).not.toMatch(/new SecretsVault|`/);
  });
});

describe('SECRETS_VAULT_TOKEN_FILE', () => {
  it('reads the token from the file a platform mounted, and refuses it beside SECRETS_VAULT_TOKEN', async () => {
    const file = join(files, 'token');
    writeFileSync(file, `${mock.principals.adminKey.token}\n`);
    const read = await command.run(['ls', '--vault', vaultId], {
      SECRETS_VAULT_TOKEN: undefined,
      SECRETS_VAULT_TOKEN_FILE: file,
    });
    expect(read.stderr).toBe('');
    expect(read.stdout).toBe('db: password\n');
    expect(read.code).toBe(0);

    const both = await command.run(['ls', '--vault', vaultId], { SECRETS_VAULT_TOKEN_FILE: file });
    expect(both.code).toBe(1);
    expect(onlyLine(both)).toBe(
      'secrets-vault: Conflicting token: SECRETS_VAULT_TOKEN and SECRETS_VAULT_TOKEN_FILE are both set; set only one',
    );
  });

  it('names the variable, the path and the error code of a file it cannot read', async () => {
    const file = join(files, 'not-there');
    const result = await command.run(['ls', '--vault', vaultId], {
      SECRETS_VAULT_TOKEN: undefined,
      SECRETS_VAULT_TOKEN_FILE: file,
    });
    expect(result.code).toBe(1);
    expect(onlyLine(result)).toBe(
      `secrets-vault: Unreadable token file: SECRETS_VAULT_TOKEN_FILE (${JSON.stringify(file)}) cannot be read: ENOENT`,
    );
  });
});

describe('a vault that does not exist', () => {
  it.each([
    [['run', '--vault', 'v_nope', '--', process.execPath, '-e', '0']],
    [['export', '--vault', 'v_nope', '--format', 'json']],
    [['ls', '--vault', 'v_nope']],
  ])('is named by the id given: %j', async (args) => {
    const result = await command.run(args);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(onlyLine(result)).toBe(
      'secrets-vault: NotFoundError: vault v_nope not found (GET /v1/vaults/{vaultId}/secrets/values)',
    );
  });

  it('quotes an id a shell would split', async () => {
    const result = await command.run(['ls', '--vault', "it's gone"]);
    expect(result.code).toBe(1);
    expect(onlyLine(result)).toContain(`vault 'it'\\''s gone' not found`);
  });

  it('is named only when it is the vault given, never when a reference points into it', async () => {
    const given = await command.run(['ls', '--vault', 'v_gone']);
    expect(onlyLine(given)).toContain('vault v_gone not found');
    const result = await command.run(
      ['run', '--vault', vaultId, '--', process.execPath, '-e', '0'],
      { FROM_ELSEWHERE: 'vault://v_gone/db/password' },
    );
    expect(result.code).toBe(1);
    const line = onlyLine(result);
    expect(line).toMatch(/^secrets-vault: NotFoundError/);
    expect(line).not.toContain(vaultId);
  });
});

describe('usage mistakes, with the fix', () => {
  it.each([
    [
      ['run', '--vault', 'v', 'node', '-e', '1'],
      'secrets-vault: put the command after --: secrets-vault run --vault v -- node -e 1',
    ],
    [
      ['run', '--vault', 'v', 'node', 'server.js'],
      'secrets-vault: put the command after --: secrets-vault run --vault v -- node server.js',
    ],
    [
      ['run', '--vault', 'v', '--override', 'sh', '-c', 'echo "$HOME" it\'s'],
      `secrets-vault: put the command after --: secrets-vault run --vault v --override -- sh -c 'echo "$HOME" it'\\''s'`,
    ],
    [
      ['run', '--vault', 'v', 'printf', 'a\nb'],
      "secrets-vault: put the command after --: secrets-vault run --vault v -- printf $'a\\x0ab'",
    ],
  ])('says to put a command given without -- after it: %j', async (args, expected) => {
    const result = await command.run(args);
    expect(result.code).toBe(2);
    expect(onlyLine(result)).toBe(expected);
  });

  it('names an unknown option and points to the command help', async () => {
    const result = await command.run(['run', '--vault', 'v', '--verbose', '--', 'true']);
    expect(result.code).toBe(2);
    expect(onlyLine(result)).toBe(
      "secrets-vault: unknown option '--verbose' (see secrets-vault run --help)",
    );
  });
});
