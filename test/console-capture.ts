/**
 * What a real `Console` prints (vitest replaces the global one in tests), for tests that prove
 * a value never shows up in a log line.
 */
import { Console } from 'node:console';
import { Writable } from 'node:stream';

/** Runs `print` with a real console writing to memory, and returns everything it wrote. */
export function printedByConsole(print: (console: Console) => void): string {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  print(new Console({ stdout: stream, stderr: stream }));
  return lines.join('');
}
