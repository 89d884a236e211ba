/**
 * `--wait` as a deadline for the whole load, and one read per vault, as real child processes:
 * the command keeps trying until its wait is over and ends at it, cutting an attempt still in
 * flight, and `run` reads the vault it loads once, however many references point into it.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretsVault } from '../../src/index.js';
import { nodeRunning, useCommand } from './harness.js';

const command = useCommand();

/** Seconds the command says the service stayed unavailable for. */
function unavailableFor(stderr: string): number {
  const match = /the service stayed unavailable for (\d+(?:\.\d+)?)s/.exec(stderr);
  if (match === null) throw new Error(`no "unavailable for" in: ${stderr}`);
  return Number(match[1]);
}

describe('--wait against a service that accepts connections and never answers', () => {
  let server: Server;
  let url = '';
  const sockets = new Set<Socket>();

  beforeAll(async () => {
    server = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    url = `http://127.0.0.1:${address.port}`;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  it('ends at the wait, not after the 30 s attempt timeout', async () => {
    const started = performance.now();
    const result = await command.run(['ls', '--vault', 'vlt_1', '--wait', '2s'], {
      SECRETS_VAULT_BASE_URL: url,
    });
    const elapsed = performance.now() - started;

    expect(result.code).toBe(75);
    expect(unavailableFor(result.stderr)).toBeGreaterThanOrEqual(1.9);
    expect(unavailableFor(result.stderr)).toBeLessThan(3);
    expect(result.stderr).toContain('when the wait (2000 ms) ended');
    // Generous for a loaded machine; the attempt timeout it used to wait out is 30 s.
    expect(elapsed).toBeLessThan(15_000);
  }, 40_000);
});

describe('--wait against refused connections', () => {
  it('keeps trying to the end of its wait instead of giving up early', async () => {
    const runs = await Promise.all(
      Array.from({ length: 4 }, () =>
        command.run(['ls', '--vault', 'vlt_1', '--wait', '2s'], {
          SECRETS_VAULT_BASE_URL: `http://127.0.0.1:${command.closedPort}`,
        }),
      ),
    );
    for (const result of runs) {
      expect(result.code).toBe(75);
      expect(result.stderr).toContain('ECONNREFUSED');
      // Its last attempt falls in the wait's last 0.75 s, and it ends when the wait does.
      expect(unavailableFor(result.stderr)).toBeGreaterThanOrEqual(1.9);
      expect(unavailableFor(result.stderr)).toBeLessThan(3);
    }
  }, 30_000);
});

describe('run reads each vault once', () => {
  it('resolves references into the vault it loads from that one read', async () => {
    const { mock } = command;
    mock.reset();
    const operator = new SecretsVault({
      baseUrl: command.served.url,
      token: mock.principals.owner.token,
    });
    const vault = await operator.vaults.create({ name: 'job' });
    const other = await operator.vaults.create({ name: 'other' });
    await operator.secrets.create(vault.id, { name: 'db', value: { password: 'pw-of-the-job' } });
    await operator.secrets.create(other.id, { name: 'api', value: { key: 'key-of-another' } });

    const result = await command.run(
      [
        'run',
        '--vault',
        vault.id,
        ...nodeRunning(
          'process.stdout.write(JSON.stringify([process.env.FROM_JOB, process.env.AGAIN, process.env.FROM_OTHER]))',
        ),
      ],
      {
        SECRETS_VAULT_TOKEN: mock.principals.owner.token,
        SECRETS_VAULT_LOG: 'debug',
        FROM_JOB: `vault://${vault.id}/db/password`,
        // The same vault, its id percent-encoded: still the vault the command loaded.
        AGAIN: `vault://${encodeURIComponent(vault.id).replaceAll('_', '%5F')}/db/password`,
        FROM_OTHER: `vault://${other.id}/api/key`,
      },
    );

    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(['pw-of-the-job', 'pw-of-the-job', 'key-of-another']);
    const reads = (vaultId: string) =>
      result.stderr
        .split('\n')
        .filter((line) =>
          line.startsWith(`level=debug msg="→ GET /v1/vaults/${vaultId}/secrets/values"`),
        ).length;
    expect(reads(vault.id)).toBe(1);
    expect(reads(other.id)).toBe(1);
  }, 30_000);
});
