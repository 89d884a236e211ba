/**
 * Signals reach the command of `secrets-vault run` exactly once, whoever sends them: to the
 * job's whole process group (a CI runner cancelling a step, without a terminal), to
 * `secrets-vault` alone, or from a terminal (Ctrl-C, Ctrl-Z). Real child processes, real
 * signals, a real pseudo-terminal (util-linux `script`) and a real job-control shell (bash); the
 * command records each signal to a file.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { platform } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SecretsVault } from '../../src/index.js';
import { finished, launch, nodeRunning, untilOutput, useCommand, withNode } from './harness.js';

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
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGWINCH']) {
    process.on(signal, () => {
      appendFileSync(file, signal + '\\n');
      if (signal === 'SIGTERM') setTimeout(() => process.exit(0), ${SETTLE_MS});
    });
  }
  setInterval(() => {}, 1000);
`;

/**
 * The command: a recorder that starts another (its own child, in its process group), then
 * prints `ready <its pid> <its child's pid> <its parent's pid> <its own group>`, and after that,
 * `read <line>` for each line it reads on stdin.
 */
const COMMAND = `${RECORDER}
  const child = require('node:child_process').spawn(
    process.execPath, ['-e', ${JSON.stringify(`${RECORDER}; console.log('ready');`)}, process.argv[2]],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  child.stdout.once('data', () => {
    const stat = require('node:fs').readFileSync('/proc/self/stat', 'utf8');
    const [, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    console.log(['ready', process.pid, child.pid, process.ppid, pgrp].join(' '));
    require('node:readline').createInterface({ input: process.stdin })
      .on('line', (line) => console.log('read ' + line));
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

/**
 * The same recording command behind `inject … --watch -- <command>`, which supervises it with the
 * same module as `run` does: the file is written first, then the command starts.
 */
function injecting(): string[] {
  const [, , , ...commandArgs] = recording();
  const template = join(command.directory, `signals-${counter}.tmpl`);
  writeFileSync(template, `mode={{ vault://${vaultId}/app/mode }}\n`);
  const output = join(command.directory, `signals-${counter}.conf`);
  return [
    'inject',
    '-i',
    template,
    '-o',
    output,
    '--watch',
    '--watch-interval',
    '5s',
    ...commandArgs,
  ];
}

/** The signals each process recorded. */
function recorded(): { command: string[]; child: string[] } {
  const read = (file: string) =>
    existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
  return { command: read(files.command), child: read(files.child) };
}

/** What the command said once ready. */
interface Ready {
  /** The command's pid and its child's. */
  readonly pids: number[];
  /** `secrets-vault`'s pid (the command's parent). */
  readonly secretsVault: number;
  /** The command's own process group. */
  readonly group: number;
}

async function ready(child: ChildProcess): Promise<Ready> {
  const said = await new Promise<RegExpExecArray>((resolve) => {
    let output = '';
    child.stdout?.on('data', (chunk) => {
      output += chunk;
      const line = /ready (\d+) (\d+) (\d+) (\d+)\r?\n/.exec(output);
      if (line !== null) resolve(line);
    });
  });
  const pids = [Number(said[1]), Number(said[2])];
  started.push(...pids);
  return {
    pids,
    secretsVault: Number(said[3]),
    group: Number(said[4]),
  };
}

/**
 * Starts `secrets-vault` without a terminal, as the leader of a process group of its own, as a
 * CI runner starts a step: the test can signal the whole group.
 */
function startAsGroup(args: readonly string[]): ChildProcess {
  const child = launch(command.cli, args, {
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
const hasBash = spawnSync('bash', ['--version']).status === 0;

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

describe.skipIf(platform() !== 'linux')('inject --watch -- <command>, without a terminal', () => {
  it.each(['SIGINT', 'SIGHUP'] as const)(
    'lets %s reach the command and its child once each, sent to the whole group or to secrets-vault alone',
    async (signal) => {
      for (const toGroup of [true, false]) {
        const secretsVault = startAsGroup(injecting());
        const outcome = finished(secretsVault);
        await ready(secretsVault);
        if (toGroup) process.kill(-(secretsVault.pid ?? 0), signal);
        else secretsVault.kill(signal);
        await sleep(SETTLE_MS);
        expect(recorded()).toEqual({ command: [signal], child: [signal] });
        secretsVault.kill('SIGTERM');
        expect((await outcome).code).toBe(0);
      }
    },
  );

  it('lets SIGTERM reach the command and its child once each, sent to the whole group or to secrets-vault alone', async () => {
    for (const toGroup of [true, false]) {
      const secretsVault = startAsGroup(injecting());
      const outcome = finished(secretsVault);
      await ready(secretsVault);
      if (toGroup) process.kill(-(secretsVault.pid ?? 0), 'SIGTERM');
      else secretsVault.kill('SIGTERM');
      const result = await outcome;
      expect(result).toMatchObject({ code: 0, stderr: '' });
      await sleep(SETTLE_MS);
      expect(recorded()).toEqual({ command: ['SIGTERM'], child: ['SIGTERM'] });
    }
  });
});

/** The fields of `/proc/<pid>/stat` after the command name: state first. */
function stat(pid: number): string[] {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return text.slice(text.lastIndexOf(')') + 2).split(' ');
}

/** The state letter of a process (`T` stopped, `S` sleeping, `R` running). */
function state(pid: number): string {
  return stat(pid)[0] ?? '';
}

/** The foreground process group of the terminal that controls `pid`. */
function foregroundOf(pid: number): number {
  const group = Number(stat(pid)[5]);
  // -1 when it has no terminal: never a group to signal (kill(1) would reach init).
  if (!(group > 1)) throw new Error(`no terminal controls ${pid}`);
  return group;
}

/** Quotes `parts` for a POSIX shell. */
function shellLine(parts: readonly string[]): string {
  return parts.map((part) => `'${part.replaceAll("'", "'\\''")}'`).join(' ');
}

/**
 * Runs `shell` (a command line) in a pseudo-terminal of its own, through util-linux `script`:
 * what the test writes to stdin is typed at that terminal.
 */
function inTerminal(shell: string): ChildProcess {
  const terminal = spawn('script', ['-qfec', shell, '/dev/null'], {
    env: {
      PATH: withNode(process.env.PATH),
      SHELL: '/bin/sh',
      HOME: command.directory,
      SECRETS_VAULT_BASE_URL: command.served.url,
      SECRETS_VAULT_TOKEN: mock.principals.adminKey.token,
    },
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  if (terminal.pid !== undefined) started.push(terminal.pid);
  return terminal;
}

/** Sends `signal` to each of `pids` still running: one that has exited is no failure. */
function killAll(pids: readonly number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
  }
}

/** Resolves once every process of `pids` is in a state that `accepts`. */
async function until(pids: readonly number[], accepts: (state: string) => boolean) {
  for (let tries = 0; !pids.every((pid) => accepts(state(pid))); tries += 1) {
    if (tries > 100) throw new Error(`states: ${pids.map(state).join(' ')}`);
    await sleep(20);
  }
}

// util-linux `script` gives the command a pseudo-terminal; without it there is no terminal to test.
describe.skipIf(platform() !== 'linux' || !hasScript)('signals with a terminal', () => {
  const runLine = () => shellLine([command.cli, ...recording()]);
  // `exec`: the terminal's foreground group is secrets-vault's alone, with no shell in it whose
  // end would hang the terminal up (a SIGHUP of its own).
  const execLine = () => `exec ${runLine()}`;

  it('lets one Ctrl-C reach the command and its child once each', async () => {
    const terminal = inTerminal(execLine());
    const outcome = finished(terminal);
    const { pids, secretsVault, group } = await ready(terminal);
    // The command leads a session of its own; secrets-vault has the terminal.
    expect(group).toBe(pids[0]);
    expect(foregroundOf(secretsVault)).not.toBe(group);
    // The line discipline turns ^C into SIGINT for the whole foreground process group.
    terminal.stdin?.write('\u0003');
    await sleep(SETTLE_MS);
    expect(recorded()).toEqual({ command: ['SIGINT'], child: ['SIGINT'] });
    killAll(pids, 'SIGTERM');
    await outcome;
  });

  it.each([
    ['SIGINT', 'secrets-vault alone'],
    ['SIGTERM', 'the terminal foreground group'],
    ['SIGHUP', 'the terminal foreground group'],
    ['SIGWINCH', 'the terminal foreground group'],
    ['SIGQUIT', 'secrets-vault alone'],
  ] as const)(
    'lets %s sent to %s reach the command and its child once each',
    async (signal, to) => {
      const terminal = inTerminal(execLine());
      const outcome = finished(terminal);
      const { pids, secretsVault } = await ready(terminal);
      process.kill(
        to === 'secrets-vault alone' ? secretsVault : -foregroundOf(secretsVault),
        signal,
      );
      await sleep(SETTLE_MS);
      expect(recorded()).toEqual({ command: [signal], child: [signal] });
      // After SIGTERM the recorders exit by themselves, possibly already.
      killAll(pids, 'SIGKILL');
      await outcome;
    },
  );

  it('lets the command read what is typed at the terminal', async () => {
    const terminal = inTerminal(execLine());
    const outcome = finished(terminal);
    const { pids } = await ready(terminal);
    terminal.stdin?.write('typed at the terminal\r');
    await untilOutput(terminal.stdout, 'read typed at the terminal');
    killAll(pids, 'SIGKILL');
    await outcome;
  });

  it.skipIf(!hasBash)(
    'stops the command, its child and secrets-vault on Ctrl-Z in a job-control shell, and fg continues all three',
    async () => {
      const terminal = inTerminal('bash --norc --noprofile -i');
      const outcome = finished(terminal);
      terminal.stdin?.write(`${runLine()}\r`);
      const { pids, secretsVault } = await ready(terminal);
      const all = [...pids, secretsVault];
      terminal.stdin?.write('\u001a');
      await until(all, (letter) => letter === 'T');
      // The shell has the terminal back: a command typed now runs.
      terminal.stdin?.write('echo "shell $((20 + 22))"\r');
      await untilOutput(terminal.stdout, 'shell 42');
      expect(all.map(state)).toEqual(['T', 'T', 'T']);
      terminal.stdin?.write('fg\r');
      await until(all, (letter) => letter !== 'T');
      // Back in the foreground: Ctrl-C reaches the command once, as before.
      terminal.stdin?.write('\u0003');
      await sleep(SETTLE_MS);
      expect(recorded()).toEqual({ command: ['SIGINT'], child: ['SIGINT'] });
      killAll(all, 'SIGKILL');
      terminal.stdin?.write('exit\r');
      await outcome;
    },
  );
});
