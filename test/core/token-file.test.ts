/**
 * `SECRETS_VAULT_TOKEN_FILE`: the client's token read from a file, as container platforms mount
 * secrets (Docker and Compose secrets, a Kubernetes secret volume), through the public
 * constructor. The file's content never appears in an error.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { browserModules } from '../../scripts/browser-modules.js';
import { SecretsVault, SecretsVaultError } from '../../src/index.js';
import { BASE_URL, ok, organization, route, TOKEN } from '../helpers.js';

let directory = '';

beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), 'secrets-vault-token-file-'));
});
afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});
afterEach(() => {
  vi.unstubAllEnvs();
});

/** A file holding `content` in the test's folder, and its path. */
function tokenFile(name: string, content: string | Uint8Array): string {
  const path = join(directory, name);
  writeFileSync(path, content);
  return path;
}

/** The environment a job gets from its platform: the base URL, and the token's file. */
function fromFile(path: string): void {
  vi.stubEnv('SECRETS_VAULT_BASE_URL', BASE_URL);
  vi.stubEnv('SECRETS_VAULT_TOKEN', '');
  vi.stubEnv('SECRETS_VAULT_TOKEN_FILE', path);
}

function constructionError(): SecretsVaultError {
  try {
    new SecretsVault();
  } catch (error) {
    if (error instanceof SecretsVaultError) return error;
    throw error;
  }
  throw new Error('expected the constructor to throw');
}

/** The `Authorization` header the client sends. */
async function sentAuthorization(client: SecretsVault): Promise<string | null | undefined> {
  const seen = route('get', '/org', () => ok(organization()));
  await client.org.get();
  return seen[0]?.headers.get('authorization');
}

describe('SECRETS_VAULT_TOKEN_FILE', () => {
  it.each([
    ['a trailing newline', `${TOKEN}\n`],
    ['a trailing CRLF', `${TOKEN}\r\n`],
    ['no newline', TOKEN],
  ])('sends the token read from the file, with %s dropped', async (_case, content) => {
    fromFile(tokenFile('token', content));
    expect(await sentAuthorization(new SecretsVault())).toBe(`Bearer ${TOKEN}`);
  });

  it('drops one trailing newline only: a second one makes the token invalid, named by its variable', () => {
    fromFile(tokenFile('token', `${TOKEN}\n\n`));
    const error = constructionError();
    expect(error.message).toMatch(/^Invalid token: .*SECRETS_VAULT_TOKEN_FILE/);
    expect(error.message).not.toContain(TOKEN);
  });

  it('refuses SECRETS_VAULT_TOKEN and SECRETS_VAULT_TOKEN_FILE set together, naming both and neither token', () => {
    const path = tokenFile('token', 'sv_from_the_file\n');
    fromFile(path);
    vi.stubEnv('SECRETS_VAULT_TOKEN', 'sv_from_the_variable');
    const error = constructionError();
    expect(error.message).toContain('SECRETS_VAULT_TOKEN and SECRETS_VAULT_TOKEN_FILE');
    expect(error.message).not.toContain('sv_from_the_file');
    expect(error.message).not.toContain('sv_from_the_variable');
  });

  it('lets a `token` option win over both variables set together, and over a file it never reads', async () => {
    fromFile(tokenFile('token', 'sv_from_the_file\n'));
    vi.stubEnv('SECRETS_VAULT_TOKEN', 'sv_from_the_variable');
    expect(() => new SecretsVault()).toThrow(SecretsVaultError);
    expect(await sentAuthorization(new SecretsVault({ token: TOKEN }))).toBe(`Bearer ${TOKEN}`);
    vi.stubEnv('SECRETS_VAULT_TOKEN', '');
    vi.stubEnv('SECRETS_VAULT_TOKEN_FILE', join(directory, 'no-such-file'));
    expect(() => new SecretsVault()).toThrow(/ENOENT/);
    expect(await sentAuthorization(new SecretsVault({ token: TOKEN }))).toBe(`Bearer ${TOKEN}`);
  });

  it.each([
    ['empty', ''],
    ['a newline alone', '\n'],
  ])('refuses a file that is %s as a missing token', (_case, content) => {
    const path = tokenFile('empty', content);
    fromFile(path);
    const error = constructionError();
    expect(error.message).toMatch(/^Missing token: SECRETS_VAULT_TOKEN_FILE /);
    expect(error.message).toContain(path);
  });

  it('names the variable, the path and the error code of a file that does not exist', () => {
    const path = join(directory, 'missing-token');
    fromFile(path);
    expect(constructionError().message).toBe(
      `Unreadable token file: SECRETS_VAULT_TOKEN_FILE (${JSON.stringify(path)}) cannot be read: ENOENT`,
    );
  });

  it.skipIf(process.getuid?.() === 0)('names EACCES for a file it may not read', () => {
    const path = tokenFile('locked', `${TOKEN}\n`);
    chmodSync(path, 0o000);
    fromFile(path);
    const error = constructionError();
    expect(error.message).toContain('EACCES');
    expect(error.message).not.toContain(TOKEN);
  });

  it('refuses a directory as not a regular file', () => {
    const path = join(directory, 'a-directory');
    mkdirSync(path);
    fromFile(path);
    expect(constructionError().message).toMatch(
      /SECRETS_VAULT_TOKEN_FILE .* is not a regular file$/,
    );
  });

  it.skipIf(process.platform === 'win32')(
    'refuses a FIFO at once, without waiting for a writer',
    () => {
      const path = join(directory, 'a-fifo');
      execFileSync('mkfifo', [path]);
      fromFile(path);
      expect(constructionError().message).toMatch(/is not a regular file$/);
    },
    5_000,
  );

  it('reads a file of 64 KiB and refuses one byte more, quoting none of it', () => {
    fromFile(tokenFile('at-bound', 'k'.repeat(64 * 1024)));
    expect(() => new SecretsVault()).not.toThrow();
    fromFile(tokenFile('over-bound', 'k'.repeat(64 * 1024 + 1)));
    const error = constructionError();
    expect(error.message).toMatch(/SECRETS_VAULT_TOKEN_FILE .* is larger than 64 KiB$/);
    expect(error.message).not.toContain('kkkk');
  });

  it('reads the file in the Node build only: the browser build has no node:fs and no token file', async () => {
    const bundle = async (plugins: (typeof browserModules)[]) => {
      const result = await build({
        entryPoints: ['src/index.ts'],
        bundle: true,
        write: false,
        format: 'esm',
        platform: 'neutral',
        external: ['ky', 'zod/mini'],
        plugins,
        logLevel: 'silent',
      });
      return result.outputFiles.map((file) => file.text).join('');
    };
    const neutral = await bundle([]);
    expect(neutral).toContain('SECRETS_VAULT_TOKEN_FILE');
    expect(neutral).not.toMatch(/^import .*["']node:/m);
    const browser = await bundle([browserModules]);
    expect(browser).not.toContain('SECRETS_VAULT_TOKEN_FILE');
    expect(browser).not.toContain('node:fs');
  });
});
