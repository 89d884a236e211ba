/**
 * The browser build's module swaps, for esbuild (tsup's build of dist/browser/, and the browser
 * tests that bundle the sources) and Vite (the end-to-end suite in Chromium): each of these
 * modules has a `.browser.ts` twin that drops what only a server needs (the environment, Node's
 * system errors, the fast path of validation, the node:http sender), or reads a body the way a
 * browser wants it read.
 */
import { dirname, join } from 'node:path';
import type { Plugin } from 'esbuild';

/** The imports, from the sources, of a module that has a browser twin. */
const TWINNED = /^\.{1,2}\/(?:[\w-]+\/)*(env|system-error|fast-accept|body-reader|node-http)\.js$/;

/** The browser twin of `specifier` imported from `directory`, or undefined when it has none. */
export function browserTwin(specifier: string, directory: string): string | undefined {
  return TWINNED.test(specifier)
    ? join(directory, specifier.replace(/\.js$/, '.browser.ts'))
    : undefined;
}

/** An esbuild plugin that resolves each such import to its browser twin. */
export const browserModules: Plugin = {
  name: 'browser-modules',
  setup(build) {
    build.onResolve({ filter: TWINNED }, (args) => ({
      path: browserTwin(args.path, args.resolveDir) ?? args.path,
    }));
  },
};

/** The same for Vite: `resolveId` with the importing file. */
export const browserModulesForVite = {
  name: 'browser-modules',
  enforce: 'pre' as const,
  resolveId(specifier: string, importer: string | undefined): string | undefined {
    return importer === undefined ? undefined : browserTwin(specifier, dirname(importer));
  },
};
