/**
 * The package's command (`dist/cli.js`) as real processes, the way a deployed job uses it:
 * `secrets-vault run --vault <id> -- <cmd>` with the base URL and token in its environment.
 * Each run is a fresh `node` process whose exit code, wall time and last stderr line are all
 * that is measured; every run has a cap after which it is killed and counted as not started.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { epochNow } from './protocol.ts';

/** One run of the command. */
export interface CommandRun {
  /** The exit code, or null when it was killed at the cap (or by a signal). */
  readonly code: number | null;
  /** Ms from the start instant (or from its spawn, without one) to its exit. */
  readonly ms: number;
  /** The last line it wrote on stderr, for the report. */
  readonly stderr: string;
}

/** Where the command runs from, and against what. */
export interface CommandTarget {
  readonly cli: string;
  readonly baseUrl: string;
  readonly token: string;
  readonly vaultId: string;
  /** The environment to start from, with no SECRETS_VAULT_ variable of the caller's. */
  readonly env: NodeJS.ProcessEnv;
}

/** A command for `run` to start: `node -e "process.exit(<code>)"`, which exits at once. */
export function exitingCommand(code: number): readonly string[] {
  return [process.execPath, '-e', `process.exit(${code})`];
}

/** One call of `run`: its flags, the command it starts, when, and for how long at most. */
export interface CommandCall {
  /** Flags of `run`, before `--vault`. */
  readonly flags?: readonly string[];
  /** The command `run` starts; by default one that exits 0 at once. */
  readonly command?: readonly string[];
  /** Ms after which the run is killed and counted as not started. */
  readonly capMs: number;
  /** Epoch ms at which to spawn it; at once when omitted. */
  readonly startAt?: number;
}

/**
 * Runs `node <cli> run [flags] --vault <id> -- <command>` once, starting at `call.startAt`,
 * killed after `call.capMs`.
 */
export function runCommand(target: CommandTarget, call: CommandCall): Promise<CommandRun> {
  const { flags = [], command = exitingCommand(0), capMs, startAt = epochNow() } = call;
  return new Promise((resolve) => {
    const begin = () => {
      const child = spawn(
        process.execPath,
        [target.cli, 'run', ...flags, '--vault', target.vaultId, '--', ...command],
        {
          env: {
            ...target.env,
            SECRETS_VAULT_BASE_URL: target.baseUrl,
            SECRETS_VAULT_TOKEN: target.token,
          },
          stdio: ['ignore', 'ignore', 'pipe'],
        },
      );
      let stderr = '';
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (chunk: string) => {
        stderr = (stderr + chunk).slice(-2000);
      });
      const cap = setTimeout(() => child.kill('SIGKILL'), capMs);
      child.once('error', (error) => {
        clearTimeout(cap);
        resolve({ code: null, ms: epochNow() - startAt, stderr: error.message });
      });
      // Timed to the exit; 'close' (after it) also waits for stderr to be read to its end.
      let ms = Number.NaN;
      child.once('exit', () => {
        clearTimeout(cap);
        ms = epochNow() - startAt;
      });
      child.once('close', (code) => {
        clearTimeout(cap);
        const last = stderr.trim().split('\n').at(-1) ?? '';
        resolve({ code, ms: Number.isNaN(ms) ? epochNow() - startAt : ms, stderr: last });
      });
    };
    setTimeout(begin, Math.max(0, startAt - epochNow()));
  });
}

/** A loopback port nothing listens on: one the system just handed out and took back. */
export function deadPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
