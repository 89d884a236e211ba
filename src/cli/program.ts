/**
 * How a command given after `--` is found and started without a shell: looked up as `execvp`
 * looks (never relative to the current folder), checked as the system would check it, and, for
 * `run --exec`, become (`execve`). Every failure is said as the system would say it, by its code,
 * never with the environment the command would have had.
 */
import {
  accessSync,
  closeSync,
  constants as fileConstants,
  openSync,
  readFileSync,
  readSync,
  statSync,
} from 'node:fs';
import { escapeControlCharacters } from '../core/redaction.js';

/**
 * @internal The line a command that cannot be started gets: its name and the code, never the
 * environment.
 */
export function cannotRun(command: string, code: string): void {
  process.stderr.write(`secrets-vault: cannot run ${escapeControlCharacters(command)}: ${code}\n`);
}

/** @internal The exit code for a command that cannot run because of `code`, as a shell gives it. */
export function cannotRunExitCode(code: string): number {
  return code === 'ENOENT' ? 127 : 126;
}

/** How programs start: ELF (Linux, the BSDs), then Mach-O and universal binaries (macOS). */
const BINARY_MAGIC = ['7f454c46', 'feedface', 'feedfacf', 'cefaedfe', 'cffaedfe', 'cafebabe'].map(
  (hex) => Buffer.from(hex, 'hex'),
);
/** How many scripts may start one another through `#!` lines, as Linux allows. */
const MAX_INTERPRETER_DEPTH = 4;
/** The longest single argument or `NAME=value` Linux passes to a program, its NUL included. */
const MAX_ARGUMENT_BYTES = 32 * 4096;

/**
 * @internal `run --exec`: replaces this process with `command` (`execve`), found as `spawn` finds it, with the
 * environment `run` would give it. Returns only when it cannot, with the exit code to leave with.
 *
 * Node aborts the process when `execve` fails (it has already run its exit handlers), so every
 * failure the system would report is looked for first and reported as `run` reports it.
 */
export function become(
  command: string,
  args: readonly string[],
  env: Record<string, string>,
): number {
  // The job's own PATH chooses the program, never one the vault set with --allow-var PATH.
  const found = findProgram(command, process.env.PATH);
  if (typeof found === 'string') {
    cannotRun(command, found);
    return cannotRunExitCode(found);
  }
  // A file that is neither a binary nor a `#!` script runs in /bin/sh, as `spawn` runs it.
  const [file, argv] = found.direct
    ? [found.file, [command, ...args]]
    : ['/bin/sh', ['/bin/sh', found.file, ...args]];
  const strings = [...argv, ...Object.entries(env).map(([name, value]) => `${name}=${value}`)];
  const sizes = strings.map((text) => Buffer.byteLength(text) + 1);
  const pointers = (strings.length + 1) * 8;
  if (
    sizes.some((size) => size > MAX_ARGUMENT_BYTES) ||
    sizes.reduce((total, size) => total + size, pointers) > argumentSpace()
  ) {
    cannotRun(command, 'E2BIG');
    return 126;
  }
  // Node ignores SIGPIPE and SIGXFSZ, and a program inherits what is ignored: listening makes
  // them caught instead, which execve resets to their default, as a spawned command has them.
  for (const signal of ['SIGPIPE', 'SIGXFSZ'] as const) process.on(signal, () => undefined);
  process.execve?.(file, argv, env);
  return 126;
}

/** A program found: its file, and whether the system runs it (else /bin/sh does). */
export interface Program {
  readonly file: string;
  /** False for a file `execve` would refuse (`ENOEXEC`), which `execvp` hands to /bin/sh. */
  readonly direct: boolean;
}

/**
 * @internal Where `command` is, as `execvp` looks (a name with a `/` as it is, else the first executable
 * regular file of a PATH entry), or why it cannot run: the error code the system would give
 * (ENOENT when there is none, EACCES when the only ones are not executable), or a refusal when
 * the first one is in an entry relative to the current folder (an empty entry, `.`, `bin`).
 * `execvp` would run `./ls` from wherever the job happens to start, a file anyone who can write
 * there planted; like Go's `exec.LookPath` (what `doppler run` and `op run` use), we refuse it,
 * and a user who means it can say `./ls`.
 */
export function findProgram(command: string, path: string | undefined): Program | string {
  if (command.includes('/')) return checkProgram(command, 0);
  if (command === '') return 'ENOENT';
  let failure = 'ENOENT';
  for (const folder of (path ?? '/usr/bin:/bin').split(':')) {
    const found = checkProgram(`${folder === '' ? '.' : folder}/${command}`, 0);
    if (typeof found !== 'string') {
      if (folder.startsWith('/')) return found;
      const entry = folder === '' ? 'an empty PATH entry' : `the PATH entry ${folder}`;
      return `found through ${escapeControlCharacters(entry)}, relative to the current folder, which is refused (give its path, such as ./${escapeControlCharacters(command)}, to run it from there)`;
    }
    if (found !== 'ENOENT') failure = found;
  }
  return failure;
}

/**
 * Whether `file` can be executed: a regular file we may execute, a binary, or a script whose
 * `#!` interpreter can be executed in turn; `direct` is false for a file execve would refuse to
 * run (`ENOEXEC`), which `execvp` hands to /bin/sh.
 */
function checkProgram(file: string, depth: number): Program | string {
  try {
    if (!statSync(file).isFile()) return 'EACCES';
    accessSync(file, fileConstants.X_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? 'ENOENT' : 'EACCES';
  }
  const head = Buffer.alloc(256);
  let length: number;
  try {
    const descriptor = openSync(file, 'r');
    try {
      length = readSync(descriptor, head, 0, head.length, 0);
    } finally {
      closeSync(descriptor);
    }
  } catch {
    // Executable but not readable: only the system can tell, and for binaries it can.
    return { file, direct: true };
  }
  const start = head.subarray(0, length);
  if (start.subarray(0, 2).toString('latin1') !== '#!') {
    return { file, direct: BINARY_MAGIC.some((magic) => magic.equals(start.subarray(0, 4))) };
  }
  if (depth >= MAX_INTERPRETER_DEPTH) return 'ELOOP';
  const interpreter = /^#![ \t]*([^ \t\n]+)/.exec(start.toString('latin1'))?.[1];
  if (interpreter === undefined) return 'ENOEXEC';
  const found = checkProgram(interpreter, depth + 1);
  if (typeof found === 'string') return found;
  return found.direct ? { file, direct: true } : 'ENOEXEC';
}

/**
 * How many bytes of arguments and environment a program may be given, pointers included: a
 * quarter of the stack limit, at most 6 MiB, at least 128 KiB, as Linux counts. Where the limit
 * cannot be read (no `/proc`: macOS, the BSDs), 256 KiB, which they all allow.
 */
function argumentSpace(): number {
  let limits: string;
  try {
    limits = readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return 256 * 1024;
  }
  const stack = /^Max stack size\s+(\S+)/m.exec(limits)?.[1];
  const quarter = Number(stack) / 4;
  // `unlimited` (or a line Linux may word differently one day) leaves the 6 MiB cap.
  const cap = 6 * 1024 * 1024;
  return Math.max(Number.isFinite(quarter) ? Math.min(cap, quarter) : cap, 128 * 1024);
}
