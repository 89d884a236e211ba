/**
 * The command's waits longer than a timer holds (2^31 − 1 ms, 24.8 days), as real child
 * processes against the served mock: `--wait Infinity` or `--wait 1000h` told to come back in
 * 34 days asks once and waits (a timer past its limit fired at once: over a thousand requests in
 * 3 s from one job, and as many `TimeoutOverflowWarning` lines), and `--watch` told the same
 * mid-run keeps to its interval.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { finished, nodeRunning, untilOutput, useCommand, vaultWith } from './harness.js';

const command = useCommand();
const { mock } = command;
const VALUES_PATH = '/v1/vaults/:vaultId/secrets/values';
const DAY_S = 24 * 60 * 60;

let vaultId = '';
beforeAll(async () => {
  vaultId = await vaultWith(command, 'long-waits', { app: { password: 'long-wait-pw' } });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a Retry-After longer than a timer holds', () => {
  it.each([
    ['ls', '--wait', 'Infinity', 34 * DAY_S],
    ['ls', '--wait', '1000h', Math.ceil(2_147_483_647 / 1000) + 1],
    ['run', '--wait', 'Infinity', 34 * DAY_S],
  ])(
    '%s %s %s told Retry-After: %i asks once, and waits',
    async (name, flag, wait, retryAfter) => {
      const fault = mock.faults.inject(
        { path: VALUES_PATH },
        { kind: 'status', status: 503, retryAfter },
      );
      try {
        const args = name === 'run' ? nodeRunning('process.exit(0)') : [];
        const child = command.start([name, '--vault', vaultId, flag, wait, ...args]);
        const done = finished(child);
        await sleep(1_500);
        child.kill('SIGTERM');
        const result = await done;

        expect(fault.hits).toBe(1);
        expect(result.stderr).not.toContain('TimeoutOverflowWarning');
        expect(result.stdout).toBe('');
      } finally {
        fault.clear();
      }
    },
    20_000,
  );

  it('run --watch told Retry-After: 34 days mid-run keeps polling at its interval', async () => {
    const child = command.start([
      'run',
      '--vault',
      vaultId,
      '--wait',
      'Infinity',
      '--watch',
      '--watch-interval',
      '5s',
      ...nodeRunning('console.log("started"); setInterval(() => {}, 1000)'),
    ]);
    const done = finished(child);
    await untilOutput(child.stdout, 'started');
    const fault = mock.faults.inject(
      { path: VALUES_PATH },
      { kind: 'status', status: 503, retryAfter: 34 * DAY_S },
    );
    try {
      // Polls fall at a random point of each 5 s interval: at most the first two by now.
      await sleep(11_000);
      child.kill('SIGTERM');
      const result = await done;

      expect(fault.hits).toBeGreaterThanOrEqual(1);
      expect(fault.hits).toBeLessThanOrEqual(2);
      expect(result.stderr).not.toContain('TimeoutOverflowWarning');
      // The command kept running through it, as --watch keeps it through an outage.
      expect(result.stdout).toBe('started\n');
    } finally {
      fault.clear();
    }
  }, 30_000);
});
