/**
 * A Node process that used the client exits by itself after its last call: no timer, socket or
 * listener of the SDK keeps it alive, even after timeouts, retries and a cancelled backoff wait.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createVaultMock } from '../../src/mock/index.js';
import { type ServedVaultMock, serveVaultMock } from '../../src/mock/node.js';

const mock = createVaultMock();
let served: ServedVaultMock;

beforeAll(async () => {
  served = await serveVaultMock(mock);
});
afterAll(async () => {
  await served.close();
});

// The child's own program: a success, a retried 503, a timed-out attempt, and a call aborted
// while it waits 30 s for a Retry-After. Any timer left armed would keep the process alive.
const childProgram = `
import { SecretsVault } from ${JSON.stringify(fileURLToPath(new URL('../../src/index.ts', import.meta.url)))};

const client = new SecretsVault({ maxRetries: 1 });
const vault = await client.vaults.create({ name: 'exit-test' });
await client.vaults.get(vault.id);
await client.vaults.get(vault.id, { timeout: 100 }).catch(() => undefined);
const controller = new AbortController();
setTimeout(() => controller.abort(), 200);
await client.vaults.get('held', { signal: controller.signal }).catch((error) => {
  if (error.name !== 'APIUserAbortError') throw error;
});
console.log('done');
`;

it('lets the process exit by itself after its last call', async () => {
  mock.faults.inject(
    { method: 'GET', path: '/v1/vaults/:vaultId', times: 1 },
    { kind: 'delay', ms: 400 },
  );
  mock.faults.inject(
    { method: 'GET', path: '/v1/vaults/held' },
    { kind: 'status', status: 503, retryAfter: 30 },
  );
  const bundle = await build({
    stdin: { contents: childProgram, resolveDir: process.cwd(), loader: 'ts' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    write: false,
    logLevel: 'silent',
  });
  const directory = await mkdtemp(join(tmpdir(), 'sdk-exit-'));
  const program = join(directory, 'child.mjs');
  await writeFile(program, bundle.outputFiles[0]?.text ?? '');

  const child = spawn(process.execPath, [program], {
    env: {
      ...process.env,
      SECRETS_VAULT_BASE_URL: served.url,
      SECRETS_VAULT_TOKEN: mock.principals.owner.token,
    },
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  // A process kept alive by a 30 s timer would still be running when this fires.
  const watchdog = setTimeout(() => child.kill('SIGKILL'), 15_000);
  const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(
    (resolve) => child.once('exit', (exitCode, signal) => resolve({ code: exitCode, signal })),
  );
  clearTimeout(watchdog);
  await rm(directory, { recursive: true, force: true });

  expect(output).toContain('done');
  expect(exit).toEqual({ code: 0, signal: null });
}, 20_000);
