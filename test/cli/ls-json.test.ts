/**
 * `secrets-vault ls --format json` as a script reads it: one JSON object, each secret's name
 * mapped to its keys, that gives back exactly the names and keys the vault's editor wrote, however
 * hostile, and never a value.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { SecretsVault } from '../../src/index.js';
import { useCommand } from './harness.js';

const command = useCommand();
const { mock } = command;

/** A vault holding `secrets`, created by its owner; resolves to its id. */
async function vaultWith(secrets: Record<string, Record<string, string>>): Promise<string> {
  const client = new SecretsVault({
    baseUrl: command.served.url,
    token: mock.principals.owner.token,
  });
  const vault = await client.vaults.create({ name: 'listed' });
  for (const [name, value] of Object.entries(secrets)) {
    await client.secrets.create(vault.id, { name, value });
  }
  return vault.id;
}

beforeEach(() => {
  mock.reset();
  mock.faults.clear();
});

describe('ls --format json', () => {
  it('prints one object mapping each secret to its sorted keys, with a trailing newline', async () => {
    const vaultId = await vaultWith({
      stripe: { api_key: 'sk-value-never-printed', webhook: 'whsec-never-printed' },
      database: { url: 'postgres://never-printed', password: 'hunter2-never-printed' },
    });
    const result = await command.run(['ls', '--vault', vaultId, '--format', 'json']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout.endsWith('}\n')).toBe(true);
    expect(result.stdout.split('\n')).toHaveLength(2);
    expect(JSON.parse(result.stdout)).toEqual({
      database: ['password', 'url'],
      stripe: ['api_key', 'webhook'],
    });
    expect(result.stdout).not.toContain('never-printed');
  });

  it('prints {} for a vault without secrets', async () => {
    const vaultId = await vaultWith({});
    const result = await command.run(['ls', '--vault', vaultId, '--format', 'json']);
    expect(result).toEqual({ code: 0, stdout: '{}\n', stderr: '' });
  });

  it('gives back hostile names and keys exactly, as inert text on one line', async () => {
    // Built from entries, so that `__proto__` is a secret of its own, not the object's prototype.
    const hostile: Record<string, Record<string, string>> = Object.fromEntries([
      [`"quoted" 'name'`, { '$(touch pwned)': 'v1', '`id`': 'v2' }],
      ['esc\u001b[31mred\u001b]0;title\u0007', { 'new\nline': 'v3', 'tab\tkey\r': 'v4' }],
      ['c1\u009b31m del\u007f sep\u2028\u2029 bidi\u202e\u2066', { 'back\\slash': 'v5' }],
      ['__proto__', Object.fromEntries([['constructor', 'v6']])],
    ]);
    const vaultId = await vaultWith(hostile);
    const result = await command.run(['ls', '--vault', vaultId, '--format', 'json']);
    expect(result.code).toBe(0);
    // One line, and nothing a terminal acts on: every control character is a JSON escape.
    expect(result.stdout.slice(0, -1)).not.toMatch(
      // biome-ignore lint/suspicious/noControlCharactersInRegex: finding raw control characters is the point.
      /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/,
    );
    const listed = JSON.parse(result.stdout) as Record<string, string[]>;
    expect(Object.keys(listed).sort()).toEqual(Object.keys(hostile).sort());
    for (const [name, value] of Object.entries(hostile)) {
      expect(Object.hasOwn(listed, name), name).toBe(true);
      expect(listed[name]).toEqual(Object.keys(value).sort());
    }
  });

  it('keeps the text listing as the default and under --format text', async () => {
    const vaultId = await vaultWith({ b: { y: '1', x: '2' }, a: { k: '3' } });
    const plain = await command.run(['ls', '--vault', vaultId]);
    expect(plain).toEqual({ code: 0, stdout: 'a: k\nb: x, y\n', stderr: '' });
    expect(await command.run(['ls', '--vault', vaultId, '--format', 'text'])).toEqual(plain);
  });

  it('refuses another format as a usage error naming the ones it takes, before loading', async () => {
    // An unknown vault would fail with 1 once loaded: the 2 shows nothing was loaded.
    const result = await command.run(['ls', '--vault', 'no-such-vault', '--format', 'dotenv']);
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: 'secrets-vault: --format must be text or json (see secrets-vault ls --help)\n',
    });
  });
});
