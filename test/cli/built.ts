/**
 * The package as `npm run build` makes it, for the tests that run the built command (`dist/`):
 * built once per test run however many files ask at once, and again when a source file or the
 * build's configuration is newer than the build, so that a test never runs yesterday's command.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** The built command, as the package's `bin` names it. */
export const BUILT_CLI = resolve('dist/cli.js');

// The files a build is made of must be older than what it made.
const OUTPUTS = [BUILT_CLI, resolve('dist/mock/node.js')];
// Test files run in parallel workers: a folder made atomically is the lock between them.
const LOCK = resolve('dist.build-lock');
const LOCK_STALE_MS = 300_000;

/** The newest modification time of the files under `folder`, in milliseconds. */
function newest(folder: string): number {
  let latest = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true })) {
    if (entry.isFile())
      latest = Math.max(latest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return latest;
}

// What a build is made from: the sources, and how they are built (the command's launcher lines
// are in scripts/).
const INPUT_FOLDERS = [resolve('src'), resolve('scripts')];
const INPUT_FILES = [resolve('tsup.config.ts'), resolve('package.json')];

function upToDate(): boolean {
  if (!OUTPUTS.every((file) => existsSync(file))) return false;
  const built = Math.min(...OUTPUTS.map((file) => statSync(file).mtimeMs));
  const inputs = [
    ...INPUT_FOLDERS.map(newest),
    ...INPUT_FILES.map((file) => statSync(file).mtimeMs),
  ];
  return Math.max(...inputs) <= built;
}

/** Builds the package unless its build is up to date, one test file at a time. */
export async function ensureBuilt(): Promise<void> {
  for (;;) {
    if (upToDate()) return;
    try {
      mkdirSync(LOCK);
    } catch {
      // Another file is building: wait for it, unless it died holding the lock.
      const since = statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs;
      if (since !== undefined && Date.now() - since > LOCK_STALE_MS) rmdirSync(LOCK);
      await sleep(200);
      continue;
    }
    try {
      if (!upToDate()) {
        execFileSync('npm', ['run', 'build', '--silent'], { stdio: 'ignore', timeout: 240_000 });
      }
      return;
    } finally {
      rmdirSync(LOCK);
    }
  }
}
