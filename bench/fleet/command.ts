/**
 * The package's command (`dist/cli.js`) as real processes, the way a deployed job uses it:
 * `secrets-vault run --vault <id> -- <cmd>` with the base URL and token in its environment.
 * Each run is a fresh `node` process whose exit code and wall time are all that is measured;
 * every run has a cap after which it is killed and counted as not started.
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

/** The child each run starts: a process that exits 0 at once. */
const CHILD = [process.execPath, '-e', 'process.exit(0)'];

/**
 * Runs `node <cli> run [flags] --vault <id> -- node -e "process.exit(0)"` once, starting at
 * `startAt` (epoch ms; at once when omitted), killed after `capMs`.
 */
export function runCommand(
  target: CommandTarget,
  flags: readonly string[],
  capMs: number,
  startAt = epochNow(),
): Promise<CommandRun> {
  return new Promise((resolve) => {
    const begin = () => {
      const child = spawn(
        process.execPath,
        [target.cli, 'run', ...flags, '--vault', target.vaultId, '--', ...CHILD],
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
