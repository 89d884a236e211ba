/**
 * The files the command reads and writes. Writing one that holds secrets: never half-written,
 * never readable by others, never through a link someone else planted, and never in place of a
 * pipe or a device a reader is waiting on. Reading a text the user gave (a template, an env
 * file): bounded, and refused rather than altered when not UTF-8.
 */
import { randomBytes } from 'node:crypto';
import {
  close,
  closeSync,
  constants,
  createReadStream,
  fstat,
  fsyncSync,
  lstatSync,
  open,
  openSync,
  readlinkSync,
  realpathSync,
  renameSync,
  type Stats,
  statSync,
  unlinkSync,
  write,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { CommandError, shellWord } from './errors.js';

/**
 * @internal Writes `data` to `file`: to a new file beside it, created with `mode` (0600 by
 * default, and never wider than the file it replaces), flushed to disk, then renamed over
 * `file`. A reader sees the old content or the new, never a part; a failure leaves no
 * temporary file behind. The rename replaces whatever is at `file`, a link included (never
 * written through): callers look first ({@link writeOutput}, {@link whyNotARegularFile}), so
 * that it only replaces nothing or a regular file.
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
 * @internal Writes `text` to stdout, or to `file` when one is given, by what is there, followed
 * through links as `open` follows them:
 *
 * - nothing, or a regular file: as {@link writeFileAtomically} writes it (mode 0600, replaced
 *   whole). A link at `file` is replaced, never written through: a link is what someone plants
 *   to make secrets land where they can read them.
 * - a descriptor of this process (`/dev/stdout`, `/dev/fd/3`, a shell's `>(consumer)`): written
 *   to that descriptor, as stdout is when no file is given: the caller opened it for us.
 * - a FIFO or a character device (a `mkfifo` pipeline, `/dev/null`, a terminal): written into,
 *   as a shell's `> file` writes, creating and renaming nothing, once a FIFO has a reader; only
 *   when it, and every link on the way, belongs to this user or to root.
 * - anything else (a directory, a socket, a block device): refused.
 *
 * A FIFO without a reader is waited for as a shell waits, without blocking the event loop: the
 * command still ends on SIGINT or SIGTERM.
 * @throws {CommandError} (exit 1) naming the file and why: what is there, or the system's error
 *   code
 */
export async function writeOutput(file: string | undefined, text: string): Promise<void> {
  if (file === undefined) {
    process.stdout.write(text);
    return;
  }
  try {
    const target = outputTarget(file);
    switch (target.type) {
      case 'nothing':
      case 'regular file':
        writeFileAtomically(file, text);
        return;
      case 'descriptor':
        // Not reopened through `/proc`, as a shell's `>` would: that fails for a socket (ENXIO)
        // and truncates a file the caller opened with `>>`; the descriptor is what was meant.
        await writeAll(target.descriptor, Buffer.from(text));
        return;
      case 'FIFO':
      case 'character device':
        await writeInto(file, target, Buffer.from(text));
        return;
      case 'socket':
        // A shell's `>` cannot open one either (ENXIO): a socket is only ever handed over open.
        throw new CommandError(
          `cannot write ${file}: it ${described(target)}, which cannot be opened for writing`,
          1,
        );
      case 'block device':
        // A disk is overwritten from its first byte, its file system with it: never on purpose.
        throw new CommandError(
          `cannot write ${file}: it ${described(target)}, and secrets are never written onto a disk`,
          1,
        );
      default:
        throw new CommandError(`cannot write ${file}: it ${described(target)}`, 1);
    }
  } catch (error) {
    if (error instanceof CommandError) throw error;
    throw new CommandError(
      `cannot write ${file}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
      1,
    );
  }
}

/**
 * @internal Why {@link writeFileAtomically} must not put a file at `file`, in words that follow
 * "it" (`is a FIFO`, `is a link to a character device`), or undefined when nothing is there or
 * a regular file is (through links or not). For a file that must be a regular file, such as a
 * snapshot read back later: anything else there is refused, never replaced.
 * @throws the file system's error when the path cannot be looked at (its `code` says why)
 */
export function whyNotARegularFile(file: string): string | undefined {
  const target = outputTarget(file);
  if (target.type === 'nothing' || target.type === 'regular file') return undefined;
  if (target.type === 'descriptor') return `is this process's descriptor ${target.descriptor}`;
  return described(target);
}

/** What an output path can lead to, as `lstat` tells them apart. */
type FileType =
  | 'regular file'
  | 'FIFO'
  | 'character device'
  | 'block device'
  | 'socket'
  | 'directory'
  | 'special file';

/** Something at an output path, at the end of its links. */
interface FoundFile {
  readonly type: FileType;
  /** Whether the path is a link (to a link…) to it. */
  readonly throughLink: boolean;
  /** It, as `lstat` saw it: its identity is checked again once it is open. */
  readonly stats: Stats;
  /** The first link on the way, or the file itself, that neither this user nor root owns. */
  readonly foreign:
    | { readonly path: string; readonly uid: number; readonly link: boolean }
    | undefined;
}

/** What is at an output path, followed through its links. */
type OutputTarget =
  | FoundFile
  /** Nothing, or a link to nothing: a file is created (a dangling link is replaced). */
  | { readonly type: 'nothing' }
  /** A descriptor this process holds, reached through `/proc/<pid>/fd/<n>` (`/dev/stdout`). */
  | { readonly type: 'descriptor'; readonly descriptor: number };

// As many links as Linux follows before it gives up with ELOOP.
const MAX_LINKS = 40;

/**
 * What `file` leads to. Links are followed one at a time rather than by `stat`, to see who owns
 * each, and to stop at `/proc/<pid>/fd/<n>`: there the kernel hands over whatever that
 * descriptor is (a pipe, a socket, a file), and reopening it is not what the caller meant.
 */
function outputTarget(file: string): OutputTarget {
  let path = resolve(file);
  let foreign: FoundFile['foreign'];
  for (let links = 0; links <= MAX_LINKS; links++) {
    const descriptor = ownDescriptor(path);
    if (descriptor !== undefined) return { type: 'descriptor', descriptor };
    let stats: Stats;
    try {
      stats = lstatSync(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { type: 'nothing' };
      throw error;
    }
    if (foreign === undefined && !ownedByUsOrRoot(stats)) {
      foreign = { path, uid: stats.uid, link: stats.isSymbolicLink() };
    }
    if (!stats.isSymbolicLink()) {
      return { type: fileTypeOf(stats), throughLink: links > 0, stats, foreign };
    }
    path = resolve(dirname(path), readlinkSync(path));
  }
  throw Object.assign(new Error(`too many links from ${file}`), { code: 'ELOOP' });
}

/**
 * The descriptor `path` names when it is one of this process's: `/proc/self/fd/1` on Linux,
 * where `/dev/fd` links there, or `/dev/fd/1` where `/dev/fd` is a folder of its own (macOS, the
 * BSDs), whose entries are devices that open as a copy of the descriptor, not as what was looked
 * at.
 */
function ownDescriptor(path: string): number | undefined {
  const name = basename(path);
  if (!/^\d+$/.test(name)) return undefined;
  let folder: string;
  try {
    folder = realpathSync(dirname(path));
  } catch {
    return undefined;
  }
  // `/proc/self` and `/proc/thread-self` resolve to the first.
  const ours = new RegExp(`^(/proc/${process.pid}(/task/\\d+)?/fd|/dev/fd)$`);
  return ours.test(folder) ? Number(name) : undefined;
}

/**
 * Whether `stats` belongs to this user or to root. A FIFO or a link anyone else owns may have
 * been put where the user meant a new file, by someone waiting to read what goes into it.
 */
function ownedByUsOrRoot(stats: Stats): boolean {
  return stats.uid === 0 || stats.uid === process.geteuid?.();
}

function fileTypeOf(stats: Stats): FileType {
  if (stats.isFile()) return 'regular file';
  if (stats.isFIFO()) return 'FIFO';
  if (stats.isCharacterDevice()) return 'character device';
  if (stats.isBlockDevice()) return 'block device';
  if (stats.isSocket()) return 'socket';
  if (stats.isDirectory()) return 'directory';
  return 'special file';
}

/** What the path is, after "it": `is a FIFO`, `is a link to a directory`. */
function described({ type, throughLink }: FoundFile): string {
  return `${throughLink ? 'is a link to' : 'is'} a ${type}`;
}

const openFile = promisify(open);
const statDescriptor = promisify(fstat);
const writeDescriptor = promisify(write);
const closeDescriptor = promisify(close);

/**
 * Writes `data` into the FIFO or character device `file` leads to, as a shell's `> file` does:
 * opened for writing, following its links, never created, truncated or renamed.
 */
async function writeInto(file: string, target: FoundFile, data: Buffer): Promise<void> {
  const { foreign } = target;
  if (foreign !== undefined) {
    const owner = foreign.link
      ? `it ${described(target)}, through the link ${foreign.path} owned by uid ${foreign.uid}`
      : `it ${described(target)} owned by uid ${foreign.uid}`;
    throw new CommandError(
      `cannot write ${file}: ${owner}, neither this user nor root, so someone else may be reading it (if it is meant, hand it over open: -o /dev/fd/3 3>${shellWord(file)})`,
      1,
    );
  }
  const descriptor = await openForWriting(file, target.type === 'FIFO');
  try {
    // What was looked at is what is written into: a link changed meanwhile is refused.
    const opened = await statDescriptor(descriptor);
    if (opened.dev !== target.stats.dev || opened.ino !== target.stats.ino) {
      throw new CommandError(`cannot write ${file}: it was replaced while it was being opened`, 1);
    }
    await writeAll(descriptor, data);
  } finally {
    await closeDescriptor(descriptor);
  }
}

/**
 * Opens `file` for writing; a FIFO once it has a reader. The open is non-blocking: a FIFO
 * without a reader then fails at once (ENXIO) and is tried again, where a blocking open would
 * hold a thread until a reader came, which nothing can cancel (exiting itself waits for that
 * thread). So the command waits for a reader as a shell's `> fifo` does, and still ends on a
 * signal.
 */
async function openForWriting(file: string, fifo: boolean): Promise<number> {
  // No O_CREAT, no O_TRUNC: a FIFO or a device is written into as it is; O_NOCTTY: a terminal
  // written to does not become the command's controlling terminal.
  const flags = constants.O_WRONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);
  for (let delay = 10; ; delay = Math.min(delay * 2, 250)) {
    try {
      return await openFile(file, flags);
    } catch (error) {
      if (!fifo || (error as NodeJS.ErrnoException).code !== 'ENXIO') throw error;
    }
    await sleep(delay);
  }
}

/**
 * Writes all of `data` to `descriptor` at its current position. A descriptor opened
 * non-blocking (ours, or one handed over so) says EAGAIN while a pipe is full: it is tried again
 * shortly, as the reader drains it.
 */
async function writeAll(descriptor: number, data: Buffer): Promise<void> {
  let delay = 1;
  for (let offset = 0; offset < data.length; ) {
    try {
      const { bytesWritten } = await writeDescriptor(
        descriptor,
        data,
        offset,
        data.length - offset,
        null,
      );
      offset += bytesWritten;
      delay = 1;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      await sleep(delay);
      delay = Math.min(delay * 2, 100);
    }
  }
}
