/**
 * How `run` and `run --exec` find the command: on the job's own PATH, and never relative to the
 * folder the job starts in. `execvp` takes an empty PATH entry (or `.`, or `bin`) as that folder,
 * so a program planted there by whoever can write to it would run with the secrets; like Go's
 * `exec.LookPath`, such a match is refused with a message that names the entry. Real processes,
 * a real planted program.
 */
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { finished, launch, useCommand, vaultWith } from './harness.js';

const command = useCommand();
const { mock } = command;

let vaultId = '';
/** The folder the job starts in, holding programs someone planted. */
let folder = '';

/** A program that says it ran, and prints the secret it was given. */
const PLANTED = '#!/bin/sh\necho "planted ran with $APP_PASSWORD"\n';

beforeAll(async () => {
  vaultId = await vaultWith(command, 'lookup', { app: { password: 'lookup-pw-123' } });
  folder = mkdtempSync(join(tmpdir(), 'secrets-vault-lookup-'));
  mkdirSync(join(folder, 'bin'));
  for (const file of ['planted-tool', 'true', join('bin', 'planted-tool')]) {
    writeFileSync(join(folder, file), PLANTED);
    chmodSync(join(folder, file), 0o755);
  }
});

/** Runs `secrets-vault run [--exec] -- <program>` from the planted folder with `path` as PATH. */
function runFrom(path: string, program: string, exec = false) {
  return finished(
    launch(command.cli, ['run', '--vault', vaultId, ...(exec ? ['--exec'] : []), '--', program], {
      cwd: folder,
      env: {
        PATH: path,
        SECRETS_VAULT_BASE_URL: command.served.url,
        SECRETS_VAULT_TOKEN: mock.principals.adminKey.token,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
}

describe.each([
  ['run', false],
  ['run --exec', true],
])('%s', (_name, exec) => {
  it.each([
    ['an empty first entry', ':/usr/bin:/bin', 'an empty PATH entry'],
    ['an empty last entry', '/usr/bin:/bin:', 'an empty PATH entry'],
    ['an empty middle entry', '/usr/bin::/bin', 'an empty PATH entry'],
    ['a "." entry', '.:/usr/bin:/bin', 'the PATH entry .'],
    ['a relative entry', 'bin:/usr/bin:/bin', 'the PATH entry bin'],
  ])('refuses a program found through %s, naming it', async (_what, path, entry) => {
    const result = await runFrom(path, 'planted-tool', exec);

    expect(result.code).toBe(126);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(
      `secrets-vault: cannot run planted-tool: found through ${entry}, relative to the current folder, which is refused (give its path, such as ./planted-tool, to run it from there)`,
    );
  });

  it('runs the first match when it is in an absolute entry, ahead of an empty one', async () => {
    const result = await runFrom('/usr/bin:/bin:', 'true', exec);

    expect(result.stdout).toBe('');
    expect(result.code).toBe(0);
  });

  it('runs a program named with its path, as asked', async () => {
    const result = await runFrom('/usr/bin:/bin', './planted-tool', exec);

    expect(result.code).toBe(0);
    expect(result.stdout).toBe('planted ran with lookup-pw-123\n');
  });

  it('says a program that is nowhere on PATH is not found', async () => {
    const result = await runFrom('/usr/bin:/bin', 'planted-tool', exec);

    expect(result.code).toBe(127);
    expect(result.stderr).toContain('secrets-vault: cannot run planted-tool: ENOENT');
  });
});
