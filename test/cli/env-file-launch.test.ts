/**
 * `run --env-file <file>` is read by secrets-vault alone, never by Node.js as it starts the
 * command. Node looks through its whole command line for `--env-file`, the script's own
 * arguments included, up to the first `--`, and obeys the `NODE_OPTIONS` of each file it finds:
 * the package's bin starts Node with a `--` before its own name. These tests start the built bin
 * as a user's shell does, with real files: a `.env` whose `NODE_OPTIONS` loads code never runs it
 * inside secrets-vault (which holds the job's token), `/dev/zero` meets the command's 1 MiB bound,
 * and a missing file is the command's own error.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { finished, type Result, useCommand, vaultWith } from './harness.js';

/** Where `run` reads a vault's values. */
const VALUES = '/v1/vaults/:vaultId/secrets/values';
/** Far longer than the command needs to refuse a file over 1 MiB, on a busy machine. */
const PROMPTLY_MS = 8_000;
/** A test that runs the command twice, each run well under a second when it works. */
const TWO_RUNS_MS = 30_000;
/** A command that prints the variables it got, one a line, without being Node itself. */
const PRINTING = ['--', 'sh', '-c', 'printf "%s\\n" "$FROM_FILE" "$NODE_OPTIONS" "$DB_PASSWORD"'];
// Every run is a child process whatever the suite's transport: one run of this file is enough.
const ONCE = process.env.SECRETS_VAULT_TRANSPORT !== 'fetch';

describe.runIf(ONCE)('the --env-file of run, which Node.js never reads', () => {
  const command = useCommand({ built: true });
  const { mock } = command;

  let vaultId: string;

  beforeEach(async () => {
    vaultId = await vaultWith(command, 'job', { db: { password: 'vault-pw' } }, { reset: true });
  });

  let paths = 0;
  /** A fresh path in the suite's folder, nothing written there yet. */
  function freshPath(name: string): string {
    paths += 1;
    return join(command.directory, `${paths}-${name}`);
  }

  /**
   * The `NODE_OPTIONS` a committed `.env` could hold to run code in whichever Node loads it: each
   * writes `marker` when it runs.
   */
  const PAYLOADS = {
    '--require of a file': (marker: string) => {
      const script = freshPath('marker.cjs');
      writeFileSync(
        script,
        `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'ran');\n`,
      );
      return `--require ${script}`;
    },
    '--import of a data: URL': (marker: string) => {
      const code = `import { writeFileSync } from 'node:fs'; writeFileSync(${JSON.stringify(marker)}, 'ran');`;
      return `--import=data:text/javascript,${encodeURIComponent(code)}`;
    },
  };

  /** Runs `run` with `flags` and the printing command, killed if it has not ended promptly. */
  async function runWith(flags: readonly string[]): Promise<Result> {
    const child = command.start(['run', '--vault', vaultId, ...flags, ...PRINTING]);
    // Node.js reading /dev/zero itself would never end (and would hold gigabytes a few seconds on).
    const deadline = setTimeout(() => child.kill('SIGKILL'), PROMPTLY_MS);
    try {
      return await finished(child);
    } finally {
      clearTimeout(deadline);
    }
  }

  it.each(Object.entries(PAYLOADS))(
    "never runs the file's NODE_OPTIONS (%s) inside secrets-vault, and hands the command the file's variables",
    async (_, payload) => {
      for (const spelling of [
        (file: string) => ['--env-file', file],
        (file: string) => [`--env-file=${file}`],
      ]) {
        const marker = freshPath('marker');
        const nodeOptions = payload(marker);
        const envFile = freshPath('.env');
        writeFileSync(envFile, `FROM_FILE=from-file\nNODE_OPTIONS=${nodeOptions}\n`);
        const result = await runWith(spelling(envFile));
        expect(existsSync(marker), `${nodeOptions} ran inside secrets-vault`).toBe(false);
        // The file is the job's own: its NODE_OPTIONS reaches the command as written, as every
        // other variable of it does (only a vault is kept from setting NODE_*).
        expect(result).toEqual({
          code: 0,
          stdout: `from-file\n${nodeOptions}\nvault-pw\n`,
          stderr: '',
        });
      }
    },
    TWO_RUNS_MS,
  );

  it('refuses --env-file-if-exists, another name Node.js looks for, without running the file', async () => {
    const marker = freshPath('marker');
    const envFile = freshPath('.env');
    writeFileSync(envFile, `NODE_OPTIONS=${PAYLOADS['--require of a file'](marker)}\n`);
    const result = await runWith(['--env-file-if-exists', envFile]);
    expect(existsSync(marker)).toBe(false);
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr:
        "secrets-vault: unknown option '--env-file-if-exists' (see secrets-vault run --help)\n",
    });
  });

  it(
    'refuses /dev/zero promptly as larger than 1 MiB, exit 1, before any request',
    async () => {
      const reads = mock.faults.inject({ path: VALUES }, { kind: 'delay', ms: 0 });
      const result = await runWith(['--env-file', '/dev/zero']);
      expect(result).toEqual({
        code: 1,
        stdout: '',
        stderr: 'secrets-vault: the env file /dev/zero is larger than 1 MiB\n',
      });
      expect(reads.hits).toBe(0);
    },
    PROMPTLY_MS + 10_000,
  );

  it(
    "names a missing file in the command's own words, exit 1, before any request",
    async () => {
      const reads = mock.faults.inject({ path: VALUES }, { kind: 'delay', ms: 0 });
      const missing = freshPath('missing.env');
      for (const flags of [['--env-file', missing], [`--env-file=${missing}`]]) {
        const result = await runWith(flags);
        expect(result).toEqual({
          code: 1,
          stdout: '',
          stderr: `secrets-vault: cannot read the env file ${missing}: ENOENT\n`,
        });
      }
      expect(reads.hits).toBe(0);
    },
    TWO_RUNS_MS,
  );
});
