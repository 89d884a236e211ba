/**
 * The `secrets-vault` command as a user runs it: built the way the package builds it (one
 * self-contained ESM file that starts as a shell script), started as a real child process the
 * way a shell starts it, against the mock served over HTTP on loopback. Each suite that calls
 * {@link useCommand} gets its own build, mock and server.
 */
import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll } from 'vitest';
import { CLI_LAUNCHER } from '../../scripts/cli-launcher.js';
import { SecretsVault } from '../../src/index.js';
import { createVaultMock, type VaultMock } from '../../src/mock/index.js';
import { type ServedVaultMock, serveVaultMock } from '../../src/mock/node.js';
import { BUILT_CLI, ensureBuilt } from './built.js';

/** How a run of the command ended. */
export interface Result {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A suite's command, mock and scratch folder, ready once `beforeAll` has run. */
export interface CommandContext {
  readonly mock: VaultMock;
  /** The served mock (valid inside tests). */
  readonly served: ServedVaultMock;
  /** A scratch folder, removed after the suite. */
  readonly directory: string;
  /** The built command: an executable file, as the package's `bin` is (see {@link launch}). */
  readonly cli: string;
  /** A loopback port nothing listens on: connections to it are refused. */
  readonly closedPort: number;
  /** Starts the command with the service's settings in its environment unless replaced. */
  start(args: readonly string[], env?: Record<string, string | undefined>): ChildProcess;
  /** Runs the command to its end. */
  run(args: readonly string[], env?: Record<string, string | undefined>): Promise<Result>;
}

/** Which build of the command a suite runs. */
export interface CommandOptions {
  /**
   * Run the package's own build, `dist/cli.js` as `npm run build` makes it (built first when
   * out of date), rather than a bundle of the sources made for the suite: for the tests of what
   * the package ships, such as how the file starts Node.
   * @default false
   */
  readonly built?: boolean;
}

/** Builds the command and serves a fresh mock for the suite that calls it. */
export function useCommand(options: CommandOptions = {}): CommandContext {
  const mock = createVaultMock();
  let served: ServedVaultMock | undefined;
  let directory = '';
  let cli = '';
  let closedPort = 0;

  beforeAll(
    async () => {
      directory = mkdtempSync(join(tmpdir(), 'secrets-vault-cli-'));
      if (options.built) {
        await ensureBuilt();
        cli = BUILT_CLI;
      } else {
        cli = join(directory, 'cli.mjs');
        // The command as tsup builds it, launcher lines included, but self-contained, so the
        // test needs no prior build.
        await build({
          entryPoints: ['src/cli/bin.ts'],
          bundle: true,
          platform: 'node',
          format: 'esm',
          target: 'node22',
          outfile: cli,
          banner: {
            js: `${CLI_LAUNCHER}\nimport { createRequire } from 'node:module'; const require = createRequire(import.meta.url);`,
          },
          logLevel: 'silent',
        });
        chmodSync(cli, 0o755);
      }
      served = await serveVaultMock(mock);
      const probe = createServer();
      await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
      closedPort = (probe.address() as AddressInfo).port;
      await new Promise((resolve) => probe.close(resolve));
    },
    // A build of the package takes minutes on a busy machine; the suite's own bundle, seconds.
    options.built ? 300_000 : 30_000,
  );
  afterAll(async () => {
    await served?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  const start = (args: readonly string[], env: Record<string, string | undefined> = {}) => {
    const environment: Record<string, string | undefined> = {
      PATH: process.env.PATH,
      SECRETS_VAULT_BASE_URL: served?.url,
      SECRETS_VAULT_TOKEN: mock.principals.adminKey.token,
      ...env,
    };
    return launch(cli, args, {
      env: Object.fromEntries(
        Object.entries(environment).filter(([, value]) => value !== undefined),
      ),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  };
  return {
    mock,
    get served() {
      if (served === undefined) throw new Error('the mock is served from beforeAll on');
      return served;
    },
    get directory() {
      return directory;
    },
    get cli() {
      return cli;
    },
    get closedPort() {
      return closedPort;
    },
    start,
    run: (args, env) => finished(start(args, env)),
  };
}

/**
 * Starts the command file `cli` as a shell or npm's bin link does: the file itself, whose first
 * lines start Node with a `--` before the file's name. Never `node <cli>`, which lets Node read
 * an `--env-file` meant for the command. The Node running the tests comes first on `PATH` (the
 * one the launcher finds), so that the command never runs on an older system Node.
 */
export function launch(
  cli: string,
  args: readonly string[],
  options: SpawnOptions & { readonly env: NodeJS.ProcessEnv },
): ChildProcess {
  return spawn(cli, args, {
    ...options,
    env: { ...options.env, PATH: withNode(options.env.PATH) },
  });
}

/** `path` with the directory of the Node running the tests first. */
export function withNode(path: string | undefined): string {
  const node = dirname(process.execPath);
  if (path === undefined || path === '') return node;
  return path.startsWith(`${node}${delimiter}`) ? path : `${node}${delimiter}${path}`;
}

/** Collects a child's output until it closes. */
export function finished(child: ChildProcess): Promise<Result> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The part of `run`'s arguments after `--` that runs `script` in node itself. */
export function nodeRunning(script: string, ...args: string[]): string[] {
  return ['--', process.execPath, '-e', script, ...args];
}

/** Resolves once `text` has appeared on `stream`. */
export function untilOutput(
  stream: NodeJS.ReadableStream | null | undefined,
  text: string,
): Promise<void> {
  return new Promise((resolve) => {
    let seen = '';
    stream?.on('data', (chunk) => {
      seen += chunk;
      if (seen.includes(text)) resolve();
    });
  });
}

/** What {@link jobVaults} made: an owner's client, the job's vault and another one. */
export interface JobVaults {
  readonly operator: SecretsVault;
  /** The vault the job loads, empty: each suite puts its own secrets in it. */
  readonly vaultId: string;
  /** Another vault, with `db.password` = `other-vault-pw`: what a reference may point into. */
  readonly otherVaultId: string;
}

/** Resets the suite's mock (faults too) and makes the two vaults the fallback suites start from. */
export async function jobVaults(command: CommandContext): Promise<JobVaults> {
  const { mock } = command;
  mock.reset();
  mock.faults.clear();
  const operator = new SecretsVault({
    baseUrl: command.served.url,
    token: mock.principals.owner.token,
  });
  const other = await operator.vaults.create({ name: 'other' });
  await operator.secrets.create(other.id, { name: 'db', value: { password: 'other-vault-pw' } });
  const vault = await operator.vaults.create({ name: 'job' });
  return { operator, vaultId: vault.id, otherVaultId: other.id };
}

/**
 * Makes a vault named `name` in the suite's mock, as its owner, holding `secrets` (secret name to
 * value), and resolves to its id. With `reset`, the mock (faults too) is emptied first.
 */
export async function vaultWith(
  command: CommandContext,
  name: string,
  secrets: Record<string, Record<string, string>>,
  { reset = false } = {},
): Promise<string> {
  const { mock } = command;
  if (reset) {
    mock.reset();
    mock.faults.clear();
  }
  const owner = new SecretsVault({
    baseUrl: command.served.url,
    token: mock.principals.owner.token,
  });
  const vault = await owner.vaults.create({ name });
  for (const [secret, value] of Object.entries(secrets)) {
    await owner.secrets.create(vault.id, { name: secret, value });
  }
  return vault.id;
}

/** A vault and the way its owner rotates the one secret in it, for the suites that watch it. */
export interface WatchedVault {
  readonly vaultId: string;
  /** Replaces the value of the secret `app`, as its owner would. */
  readonly rotate: (next: Record<string, string>) => Promise<unknown>;
}

/**
 * Makes a vault of its own in the suite's mock (cases run at once against one mock) holding the
 * secret `app` = `value`, for the suites that rotate it under a watching command.
 */
export async function watchedVault(
  command: CommandContext,
  value: Record<string, string>,
): Promise<WatchedVault> {
  const owner = new SecretsVault({
    baseUrl: command.served.url,
    token: command.mock.principals.owner.token,
  });
  const vault = await owner.vaults.create({ name: 'watched' });
  const secret = await owner.secrets.create(vault.id, { name: 'app', value });
  return {
    vaultId: vault.id,
    rotate: (next) => owner.secrets.update(secret.id, { value: next }),
  };
}
