/**
 * Signals reach the command of `secrets-vault run` exactly once, whoever sends them: to the
 * job's whole process group (a CI runner cancelling a step, without a terminal), to
 * `secrets-vault` alone, or from a terminal (Ctrl-C). Real child processes, real signals, a
 * real pseudo-terminal (util-linux `script`); the command records each signal to a file.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { platform } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SecretsVault } from '../../src/index.js';
import { finished, nodeRunning, useCommand } from './harness.js';

const command = useCommand();
const { mock } = command;

/** Long enough for a second delivery of the same signal to have landed. */
const SETTLE_MS = 500;

/**
 * A process (node -e, its file as first argument) that appends each signal it gets to the file,
 * and exits a while after SIGTERM, so that a duplicate SIGTERM is recorded too.
 */
const RECORDER = `
  const { appendFileSync } = require('node:fs');
  const file = process.argv[1];
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT']) {
    process.on(signal, () => {
      appendFileSync(file, signal + '\\n');
      if (signal === 'SIGTERM') setTimeout(() => process.exit(0), ${SETTLE_MS});
    });
  }
  setInterval(() => {}, 1000);
`;

/**
 * The command: a recorder that starts another (its own child, in its process group), then
 * prints `ready <its pid> <its child's pid> <whether it is in the terminal's foreground group>`.
 */
const COMMAND = `${RECORDER}
  const child = require('node:child_process').spawn(
    process.execPath, ['-e', ${JSON.stringify(`${RECORDER}; console.log('ready');`)}, process.argv[2]],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  child.stdout.once('data', () => {
    const stat = require('node:fs').readFileSync('/proc/self/stat', 'utf8');
    const [, , pgrp, , , tpgid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    console.log('ready ' + process.pid + ' ' + child.pid + ' ' + (pgrp === tpgid));
  });
`;

let vaultId: string;
let files: { command: string; child: string };
const started: number[] = [];

beforeAll(async () => {
  const owner = new SecretsVault({
    baseUrl: command.served.url,
    token: mock.principals.owner.token,
  });
  const vault = await owner.vaults.create({ name: 'signals' });
  await owner.secrets.create(vault.id, { name: 'app', value: { mode: 'signals' } });
  vaultId = vault.id;
});

afterEach(() => {
  // Whatever a failed test left running, in any group.
  for (const pid of started.splice(0)) {
    for (const target of [-pid, pid]) {
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  }
});

let counter = 0;
/** The `run` arguments for the recording command, with fresh files to record in. */
function recording(): string[] {
  counter += 1;
  files = {
    command: join(command.directory, `signals-${counter}.command`),
    child: join(command.directory, `signals-${counter}.child`),
  };
  return ['run', '--vault', vaultId, ...nodeRunning(COMMAND, files.command, files.child)];
}

/** The signals each process recorded. */
function recorded(): { command: string[]; child: string[] } {
  const read = (file: string) =>
    existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
  return { command: read(files.command), child: read(files.child) };
}

/** What the command said once ready: its pid, its child's, and whether it has the terminal. */
async function ready(child: ChildProcess): Promise<{ pids: number[]; foreground: boolean }> {
  const said = await new Promise<RegExpExecArray>((resolve) => {
    let output = '';
    child.stdout?.on('data', (chunk) => {
      output += chunk;
      const line = /ready (\d+) (\d+) (true|false)\r?\n/.exec(output);
      if (line !== null) resolve(line);
    });
  });
  const pids = [Number(said[1]), Number(said[2])];
  started.push(...pids);
  return { pids, foreground: said[3] === 'true' };
}

/**
 * Starts `secrets-vault` without a terminal, as the leader of a process group of its own, as a
 * CI runner starts a step: the test can signal the whole group.
 */
function startAsGroup(args: readonly string[]): ChildProcess {
  const child = spawn(process.execPath, [command.cli, ...args], {
    env: {
      PATH: process.env.PATH,
      SECRETS_VAULT_BASE_URL: command.served.url,
      SECRETS_VAULT_TOKEN: mock.principals.adminKey.token,
    },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid !== undefined) started.push(child.pid);
  return child;
}

const hasScript = spawnSync('script', ['--version']).status === 0;

describe.skipIf(platform() !== 'linux')('signals without a terminal', () => {
  it.each(['SIGINT', 'SIGHUP', 'SIGQUIT'] as const)(
    'lets %s sent to the whole process group reach the command and its child once each',
    async (signal) => {
      const secretsVault = startAsGroup(recording());
      const outcome = finished(secretsVault);
      await ready(secretsVault);
      process.kill(-(secretsVault.pid ?? 0), signal);
      await sleep(SETTLE_MS);
      expect(recorded()).toEqual({ command: [signal], child: [signal] });
      secretsVault.kill('SIGTERM');
      expect((await outcome).code).toBe(0);
    },
  );

  it.each(['SIGINT', 'SIGHUP'] as const)(
    'passes %s sent to secrets-vault alone on to the command and its child, once each',
    async (signal) => {
      const secretsVault = startAsGroup(recording());
      const outcome = finished(secretsVault);
      await ready(secretsVault);
      secretsVault.kill(signal);
      await sleep(SETTLE_MS);
      expect(recorded()).toEqual({ command: [signal], child: [signal] });
      secretsVault.kill('SIGTERM');
      expect((await outcome).code).toBe(0);
    },
  );

  it('lets SIGTERM sent to the whole process group reach the command and its child once each', async () => {
    const secretsVault = startAsGroup(recording());
    const outcome = finished(secretsVault);
    await ready(secretsVault);
    process.kill(-(secretsVault.pid ?? 0), 'SIGTERM');
    const result = await outcome;
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(recorded()).toEqual({ command: ['SIGTERM'], child: ['SIGTERM'] });
  });

  it('passes SIGTERM sent to secrets-vault alone on to the command and its child, once each', async () => {
    const secretsVault = startAsGroup(recording());
    const outcome = finished(secretsVault);
    await ready(secretsVault);
    secretsVault.kill('SIGTERM');
    const result = await outcome;
    expect(result).toMatchObject({ code: 0, stderr: '' });
    await sleep(SETTLE_MS);
    expect(recorded()).toEqual({ command: ['SIGTERM'], child: ['SIGTERM'] });
  });
});

describe.skipIf(platform() !== 'linux')('signals with a terminal', () => {
  it.skipIf(!hasScript)(
    // util-linux `script` gives the command a pseudo-terminal; without it there is no terminal to test.
    'keeps the command in the terminal foreground group, where one Ctrl-C reaches it and its child once each',
    async () => {
      const inner = [process.execPath, command.cli, ...recording()]
        .map((part) => `'${part.replaceAll("'", "'\\''")}'`)
        .join(' ');
      const terminal = spawn('script', ['-qfec', inner, '/dev/null'], {
        env: {
          PATH: process.env.PATH,
          SHELL: '/bin/sh',
          SECRETS_VAULT_BASE_URL: command.served.url,
          SECRETS_VAULT_TOKEN: mock.principals.adminKey.token,
        },
        detached: true,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      if (terminal.pid !== undefined) started.push(terminal.pid);
      const outcome = finished(terminal);
      const { pids, foreground } = await ready(terminal);
      expect(foreground).toBe(true);
      // The line discipline turns ^C into SIGINT for the whole foreground process group.
      terminal.stdin?.write('\u0003');
      await sleep(SETTLE_MS);
      expect(recorded()).toEqual({ command: ['SIGINT'], child: ['SIGINT'] });
      for (const pid of pids) process.kill(pid, 'SIGTERM');
      await outcome;
    },
  );
});
