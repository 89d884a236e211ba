/**
 * Writing a file that holds secrets: never half-written, never readable by others, never
 * through a link someone else planted.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  openSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * @internal Writes `data` to `file`: to a new file beside it, created with `mode` (0600 by
 * default, and never wider than the file it replaces), flushed to disk, then renamed over
 * `file`. A reader sees the old content or the new, never a part; a failure leaves no
 * temporary file behind.
 * @throws the file system's error (its `code` says why)
 */
export function writeFileAtomically(file: string, data: string | Uint8Array, mode = 0o600): void {
  let existing: number | undefined;
  try {
    existing = statSync(file).mode & 0o777;
  } catch {
    // A new file: `mode` as given.
  }
  const temporary = join(
    dirname(file),
    `.${basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`,
  );
  let descriptor: number | undefined;
  try {
    // `wx`: never follow a link or reuse a file someone else made.
    descriptor = openSync(temporary, 'wx', existing === undefined ? mode : mode & existing);
    writeFileSync(descriptor, data);
    fsyncSync(descriptor);
    closeSync(descriptor);
    descriptor = undefined;
    renameSync(temporary, file);
  } catch (error) {
    if (descriptor !== undefined) closeSync(descriptor);
    try {
      unlinkSync(temporary);
    } catch {
      // Nothing was created.
    }
    throw error;
  }
}
