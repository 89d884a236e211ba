/**
 * Small helpers of the harness: statistics, the server child, and timing child processes.
 */
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The median of a list of numbers (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

/** The q-quantile (0..1) of a list of numbers, linearly interpolated. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const position = (sorted.length - 1) * q;
  const low = Math.floor(position);
  const high = Math.ceil(position);
  const lowValue = sorted[low] ?? Number.NaN;
  const highValue = sorted[high] ?? Number.NaN;
  return lowValue + (highValue - lowValue) * (position - low);
}

/** Milliseconds, from a monotonic clock. */
export function now(): number {
  return performance.now();
}

/** A file of the bench folder, as a path. */
export function benchFile(relative: string): string {
  return fileURLToPath(new URL(relative, import.meta.url));
}

/** The benchmark server, running in its own process. */
export interface ServerChild {
  readonly url: string;
  stop(): Promise<void>;
}

/** Starts bench/server.ts in a child process and waits for its URL. */
export function startServer(): Promise<ServerChild> {
  // No execArgv: the server does not inherit --expose-gc or a --cpu-prof of the harness.
  const child = fork(benchFile('./server.ts'), [], { execArgv: [], stdio: 'inherit' });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`bench server exited early (code ${code})`)));
    child.once('message', (message) => {
      const { url } = message as { url: string };
      child.removeAllListeners('exit');
      resolve({ url, stop: () => stopChild(child) });
    });
  });
}

/** Stops a forked child (closing its IPC channel first) and resolves once it has exited. */
export function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve();
      return;
    }
    child.once('exit', () => resolve());
    if (child.connected) child.disconnect();
    child.kill();
  });
}

/** Runs `node <args>` to its end; resolves to its wall time in ms and its stdout. */
export function runNode(
  args: readonly string[],
  env: Record<string, string>,
): Promise<{ ms: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const started = now();
    const child = spawn(process.execPath, args, {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      stdout += chunk;
    });
    let exitedAt = Number.NaN;
    child.once('exit', () => {
      exitedAt = now();
    });
    child.once('error', reject);
    child.once('close', (code, signal) => {
      // Timed to the process's exit; 'close' only waits for its stdout to drain too.
      const ms = (Number.isNaN(exitedAt) ? now() : exitedAt) - started;
      if (code === 0) resolve({ ms, stdout });
      else reject(new Error(`node ${args.join(' ')} failed (code ${code}, signal ${signal})`));
    });
  });
}

/** Formats a number with a fixed count of decimals and thousands separators. */
export function formatNumber(value: number | null, decimals: number): string {
  if (value === null || !Number.isFinite(value)) return '—';
  return value.toLocaleString('en-US', {
    minimumFractionDigits: decimals,
    maximumFractionDigits: decimals,
  });
}

/** Lines of a Markdown table, columns padded; the first `textColumns` are left-aligned. */
export function markdownTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  textColumns: number,
): string[] {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    `| ${cells
      .map((cell, column) =>
        column < textColumns
          ? cell.padEnd(widths[column] ?? 0)
          : cell.padStart(widths[column] ?? 0),
      )
      .join(' | ')} |`;
  const separator = line(
    widths.map((width, column) =>
      column < textColumns ? '-'.repeat(width) : `${'-'.repeat(width - 1)}:`,
    ),
  );
  return [line(header), separator, ...rows.map(line)];
}
