/**
 * The files the command reads and writes. Writing one that holds secrets: never half-written,
 * never readable by others, never through a link someone else planted. Reading a text the user
 * gave (a template, an env file): bounded, and refused rather than altered when not UTF-8.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  createReadStream,
  fsyncSync,
  openSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { CommandError } from './errors.js';

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

/** The largest text file the command reads: a template or an env file is a configuration file. */
const MAX_TEXT_BYTES = 1024 * 1024;

/**
 * @internal Reads `source` (`-` for stdin) as UTF-8 text of at most 1 MiB; `what` names it in
 * errors (`the template`). A byte order mark is kept, as the file's own.
 * @throws {CommandError} (exit 1) when it cannot be read, is larger, or is not UTF-8 text
 */
export async function readTextFile(source: string, what: string): Promise<string> {
  const name = source === '-' ? `${what} on the standard input` : `${what} ${source}`;
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of source === '-' ? process.stdin : createReadStream(source)) {
      size += (chunk as Buffer).length;
      if (size > MAX_TEXT_BYTES) throw new CommandError(`${name} is larger than 1 MiB`, 1);
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if (error instanceof CommandError) throw error;
    throw new CommandError(
      `cannot read ${name}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
      1,
    );
  }
  try {
    // `fatal`: a file in another encoding is refused, not read with its bytes replaced.
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(Buffer.concat(chunks));
  } catch {
    throw new CommandError(`${name} is not UTF-8 text`, 1);
  }
}

/**
 * @internal Writes `text` to stdout, or to `file` when one is given, as
 * {@link writeFileAtomically} writes it (mode 0600, replaced whole).
 * @throws {CommandError} (exit 1) naming the file and the system's error code
 */
export function writeOutput(file: string | undefined, text: string): void {
  if (file === undefined) {
    process.stdout.write(text);
    return;
  }
  try {
    writeFileAtomically(file, text);
  } catch (error) {
    throw new CommandError(
      `cannot write ${file}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
      1,
    );
  }
}
