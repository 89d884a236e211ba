/**
 * What `run` withholds from its command, and from whom. It hands the command an environment
 * without the job's token and fallback key, but it stays alive as the command's parent with both
 * in its own environment, which any process of the same user can read on Linux
 * (`/proc/<pid>/environ`): the command included. The security guide says so; this proves it.
 */
import { spawnSync } from 'node:child_process';
import { platform } from 'node:os';
import { describe, expect, it } from 'vitest';
import { SecretsVault } from '../../src/index.js';
import { nodeRunning, useCommand } from './harness.js';

const command = useCommand();
const { mock } = command;

/** The guide's way out: `setpriv` starts the command as another user, which needs root. */
const canSwitchUser = process.getuid?.() === 0 && spawnSync('setpriv', ['--version']).status === 0;

/** A vault for the command to load; resolves to its id. */
async function someVault(): Promise<string> {
  const client = new SecretsVault({
    baseUrl: command.served.url,
    token: mock.principals.owner.token,
  });
  const vault = await client.vaults.create({ name: 'parent-environment' });
  await client.secrets.create(vault.id, { name: 'app', value: { mode: 'job' } });
  return vault.id;
}

describe.skipIf(platform() !== 'linux')("the command and its parent's environment", () => {
  it('cannot see the token in its own environment, but reads it in the environment of secrets-vault', async () => {
    const vaultId = await someVault();
    const fallbackKey = 'f'.repeat(64);
    // The command reads its parent (the `secrets-vault` process, which runs it without a shell)
    // as any process of the same user may.
    const script = `
      const names = ['SECRETS_VAULT_TOKEN', 'SECRETS_VAULT_FALLBACK_KEY'];
      const parent = Object.fromEntries(
        require('node:fs').readFileSync('/proc/' + process.ppid + '/environ', 'utf8')
          .split('\\0').filter(Boolean).map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
      );
      const pick = (env) => Object.fromEntries(names.map((name) => [name, env[name] ?? null]));
      console.log(JSON.stringify({ own: pick(process.env), parent: pick(parent), parentArgs: require('node:fs').readFileSync('/proc/' + process.ppid + '/cmdline', 'utf8') }));
    `;
    const result = await command.run(['run', '--vault', vaultId, ...nodeRunning(script)], {
      SECRETS_VAULT_FALLBACK_KEY: fallbackKey,
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const seen = JSON.parse(result.stdout);
    expect(seen.parentArgs).toContain(command.cli);
    expect(seen.own).toEqual({ SECRETS_VAULT_TOKEN: null, SECRETS_VAULT_FALLBACK_KEY: null });
    expect(seen.parent).toEqual({
      SECRETS_VAULT_TOKEN: mock.principals.adminKey.token,
      SECRETS_VAULT_FALLBACK_KEY: fallbackKey,
    });
  });

  it.skipIf(!canSwitchUser)(
    'cannot read it there once started as another user, as the security guide advises',
    async () => {
      const vaultId = await someVault();
      const script =
        "try { require('node:fs').readFileSync('/proc/' + process.ppid + '/environ'); console.log('read'); } catch (error) { console.log(error.code); }";
      const result = await command.run([
        'run',
        '--vault',
        vaultId,
        '--',
        'setpriv',
        '--reuid=nobody',
        '--regid=nogroup',
        '--init-groups',
        '--',
        ...nodeRunning(script).slice(1),
      ]);
      expect(result).toMatchObject({ code: 0, stdout: 'EACCES\n' });
    },
  );
});
