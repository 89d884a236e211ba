// After tsup: lets the CommonJS declarations of `/mock` type-check under every TypeScript module
// mode. msw is ESM-only; Node 22.12+ can `require` it, but a `.d.cts` that imports msw's types
// with a plain import is a TS1479 error under `node16` resolution, and the declaration bundler
// drops the `resolution-mode` attribute a source file could carry. So the built `.d.cts` files
// import msw's types as ESM explicitly, and lose the empty `import 'msw'` the bundler leaves.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';

const distribution = new URL('../dist/', import.meta.url);
const files = readdirSync(distribution, { recursive: true })
  .map(String)
  .filter((file) => file.endsWith('.d.cts') || file.endsWith('.d.ts'));

let rewritten = 0;
for (const file of files) {
  const url = new URL(file, distribution);
  const source = readFileSync(url, 'utf8');
  let result = source.replace(/^import 'msw';\n/gm, '');
  if (file.endsWith('.d.cts')) {
    result = result.replace(
      /^import (?:type )?(\{[^}]*\}) from 'msw';$/gm,
      "import type $1 from 'msw' with { 'resolution-mode': 'import' };",
    );
  }
  if (result !== source) {
    writeFileSync(url, result);
    rewritten += 1;
  }
}
if (rewritten === 0)
  throw new Error('cjs-types: no declaration imported msw; is the build as expected?');
