/**
 * The browser build's module swaps, for esbuild (tsup's build of dist/browser/, and the browser
 * tests that bundle the sources): each of these modules has a `.browser.ts` twin that drops what
 * only a server needs (the environment, Node's system errors, the fast path of validation),
 * or reads a body the way a browser wants it read.
 */
import { join } from 'node:path';
import type { Plugin } from 'esbuild';

/** Resolves `./env.js`, `./system-error.js`, `./fast-accept.js` and `./body-reader.js` to their `.browser.ts` twins. */
export const browserModules: Plugin = {
  name: 'browser-modules',
  setup(build) {
    build.onResolve(
      { filter: /^(\.\/|\.\.\/core\/)(env|system-error|fast-accept|body-reader)\.js$/ },
      (args) => ({
        path: join(args.resolveDir, args.path.replace(/\.js$/, '.browser.ts')),
      }),
    );
  },
};
