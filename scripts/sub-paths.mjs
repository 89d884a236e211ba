// After tsup: the files of the namespace sub-paths (`@secrets-vault/sdk/vaults`, …) that are
// re-exports of the root. Bundlers and the browser get real entries (built by tsup, sharing the
// root's chunks); everywhere else a sub-path must hand out the very classes its root does (one
// `Vaults`, one `SecretsVaultError`), so it re-exports them:
// - `node/<name>.js` and `node/<name>.cjs`, from the Node build's one file;
// - `<name>.cjs`, from `index.cjs`;
// - the declarations `<name>.d.ts` and `<name>.d.cts`, from the root's.
import { readFileSync, writeFileSync } from 'node:fs';

const NAMESPACES = ['vaults', 'secrets', 'teams', 'org', 'audit'];
const distribution = new URL('../dist/', import.meta.url);
const write = (file, text) => writeFileSync(new URL(file, distribution), text);

for (const name of NAMESPACES) {
  // What the sub-path exports: the names of its ES module, types aside (they have no value).
  const values = Object.keys(await import(new URL(`${name}.js`, distribution).href));
  if (values.length === 0) throw new Error(`sub-paths: dist/${name}.js exports nothing`);
  const list = values.join(', ');
  const cjs = (root) =>
    `'use strict';\nconst root = require('${root}');\n${values
      .map((value) => `exports.${value} = root.${value};`)
      .join('\n')}\n`;
  write(`node/${name}.js`, `export { ${list} } from './index.js';\n`);
  write(`node/${name}.cjs`, cjs('./index.cjs'));
  write(`${name}.cjs`, cjs('./index.cjs'));
  // Types and values alike: the declarations re-export every name the source module does, as the
  // root declares it.
  const source = readFileSync(new URL(`../src/${name}.ts`, import.meta.url), 'utf8');
  const names = /export \{([^}]*)\} from/.exec(source)?.[1]?.trim();
  if (!names) throw new Error(`sub-paths: src/${name}.ts has no export list`);
  write(`${name}.d.ts`, `export { ${names} } from './index.js';\n`);
  write(`${name}.d.cts`, `export { ${names} } from './index.cjs';\n`);
}
