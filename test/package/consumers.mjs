// Installs the packed tarball into scratch consumer projects, as a new user would, and proves it
// works there: one smoke script (create a vault and a secret, paginate with limit 1, read values,
// catch a typed error) on Node 22 and Node 24 (ESM and CommonJS), Bun, Deno with network access
// to the mock alone, and workerd (through miniflare), against the mock served over HTTP; and TypeScript consumers under bundler, nodenext and node16 resolution, ESM and .cts,
// all strict with skipLibCheck off. Run after `npm run build` (see `npm run check`).
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const scratch = mkdtempSync(join(tmpdir(), 'secrets-vault-consumers-'));
const results = [];

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', ...options });
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} exited ${result.status}\n${result.stdout}\n${result.stderr}`,
    );
  }
  return result.stdout;
}

function write(path, text) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

try {
  // A second Node (the oldest line the package supports), Bun, Deno and workerd (through
  // miniflare), from the registry's packages that ship their binaries, installed apart so that this repository's `node` stays 24.
  const node22 = join(scratch, 'node22');
  write(
    join(node22, 'package.json'),
    JSON.stringify({
      name: 'runtimes',
      private: true,
      allowScripts: { node: true, bun: true, deno: true, workerd: true },
    }),
  );
  run(
    'npm',
    [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      'node@22',
      'bun@1',
      'deno@2',
      'miniflare@4',
    ],
    {
      cwd: node22,
    },
  );
  const bin = (name) => join(node22, 'node_modules/.bin', name);
  const node22Version = run(bin('node'), ['--version']).trim();
  assert.match(node22Version, /^v22\./);
  assert.match(process.version, /^v24\./);

  // The package exactly as npm would publish it.
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', scratch], {
      cwd: root,
      encoding: 'utf8',
    }),
  );
  const tarball = join(scratch, packed[0].filename);

  const consumer = join(scratch, 'consumer');
  write(
    join(consumer, 'package.json'),
    JSON.stringify({
      name: 'consumer',
      private: true,
      type: 'module',
      dependencies: {
        '@secrets-vault/sdk': `file:${tarball}`,
        msw: manifest.devDependencies.msw,
        '@types/node': manifest.devDependencies['@types/node'],
        typescript: manifest.devDependencies.typescript,
      },
    }),
  );
  // From npm's cache, which `npm ci` of this repository has just filled.
  run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: consumer,
  });

  // `clientOptions` is empty where the runtime may read the environment, as most jobs do.
  const smoke = (clientOptions = '') => `
    const { NotFoundError, SecretsVault } = sdk;
    const client = new SecretsVault(${clientOptions});
    const vault = await client.vaults.create({ name: 'smoke' });
    await client.vaults.create({ name: 'second' });
    await client.secrets.create(vault.id, { name: 'db', value: { password: 'smoke-pw' } });
    const pages = [];
    for await (const page of client.vaults.list({ limit: 1 }).pages()) pages.push(page.data.length);
    if (pages.length < 2 || pages.some((size) => size !== 1)) throw new Error('pagination: ' + pages);
    const [secret] = await client.secrets.listValues(vault.id);
    if (secret.value.password !== 'smoke-pw') throw new Error('values');
    const loaded = await client.secrets.load(vault.id);
    if (!JSON.stringify(loaded).includes('[REDACTED]')) throw new Error('redaction');
    try {
      await client.vaults.get('00000000-0000-4000-8000-000000000000');
      throw new Error('expected NotFoundError');
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }
    console.log('smoke ok');
  `;
  write(join(consumer, 'smoke.mjs'), `import * as sdk from '@secrets-vault/sdk';\n${smoke()}`);
  write(
    join(consumer, 'smoke.cjs'),
    `const sdk = require('@secrets-vault/sdk');\n(async () => {${smoke()}})().catch((error) => { console.error(error); process.exitCode = 1; });`,
  );

  // The mock from CommonJS: msw is ESM-only, and Node 22.12+ loads it through require.
  write(
    join(consumer, 'mock.cjs'),
    `const { createVaultMock } = require('@secrets-vault/sdk/mock');
    const { serveVaultMock } = require('@secrets-vault/sdk/mock/node');
    if (typeof serveVaultMock !== 'function' || !createVaultMock().baseUrl) throw new Error('mock');
    console.log('smoke ok');`,
  );
  const { createVaultMock } = await import(join(root, 'dist/mock/index.js'));
  const { serveVaultMock } = await import(join(root, 'dist/mock/node.js'));
  const mock = createVaultMock();
  const served = await serveVaultMock(mock);
  const port = new URL(served.url).port;
  const environment = {
    PATH: process.env.PATH,
    SECRETS_VAULT_BASE_URL: served.url,
    SECRETS_VAULT_TOKEN: mock.principals.owner.token,
  };
  // Deno gets network access to the mock and nothing else: no environment, no files, no
  // prompts. The client must then take its settings as options and never touch `process.env`.
  write(
    join(consumer, 'smoke-deno.mjs'),
    `import * as sdk from '@secrets-vault/sdk';\n${smoke(
      JSON.stringify({ baseUrl: served.url, token: mock.principals.owner.token }),
    )}`,
  );
  const bunVersion = run(bin('bun'), ['--version']).trim();
  const runs = [
    [`node ${node22Version}`, bin('node'), ['smoke.mjs'], environment],
    [`node ${node22Version}`, bin('node'), ['smoke.cjs'], environment],
    [`node ${process.version}`, process.execPath, ['smoke.mjs'], environment],
    [`node ${process.version}`, process.execPath, ['smoke.cjs'], environment],
    [`node ${node22Version}`, bin('node'), ['mock.cjs'], environment],
    [`node ${process.version}`, process.execPath, ['mock.cjs'], environment],
    [`bun ${bunVersion}`, bin('bun'), ['smoke.mjs'], environment],
    [`bun ${bunVersion}`, bin('bun'), ['smoke.cjs'], environment],
    [
      `deno ${run(bin('deno'), ['--version']).split(' ')[1]}`,
      bin('deno'),
      [
        'run',
        '--no-prompt',
        '--node-modules-dir=manual',
        `--allow-net=127.0.0.1:${port}`,
        'smoke-deno.mjs',
      ],
      { PATH: process.env.PATH, DENO_NO_UPDATE_CHECK: '1' },
    ],
  ];
  try {
    for (const [runtime, binary, args, env] of runs) {
      mock.reset();
      // Async: the served mock answers from this process while the smoke script runs.
      const output = await new Promise((resolve, reject) => {
        const child = spawn(binary, args, { cwd: consumer, env });
        let text = '';
        child.stdout.on('data', (chunk) => (text += chunk));
        child.stderr.on('data', (chunk) => (text += chunk));
        child.on('error', reject);
        child.on('close', (code) =>
          code === 0 ? resolve(text) : reject(new Error(`${runtime} ${args.at(-1)}: ${text}`)),
        );
      });
      assert.match(output, /smoke ok/);
      results.push(`${runtime} ${args.at(-1)}`);
    }

    // workerd, the runtime of Cloudflare Workers: the smoke script bundled as a worker (as a
    // user's bundler would, from the installed package), without Node compatibility.
    const worker = `import * as sdk from '@secrets-vault/sdk';
      export default {
        async fetch() {
          try {
            ${smoke(JSON.stringify({ baseUrl: served.url, token: mock.principals.owner.token })).replace("console.log('smoke ok');", "return new Response('smoke ok');")}
          } catch (error) {
            return new Response(String(error?.stack ?? error), { status: 500 });
          }
        },
      };`;
    write(join(consumer, 'worker.mjs'), worker);
    const { build } = await import(join(root, 'node_modules/esbuild/lib/main.js'));
    const bundled = await build({
      entryPoints: [join(consumer, 'worker.mjs')],
      absWorkingDir: consumer,
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      mainFields: ['module', 'main'],
      write: false,
      logLevel: 'silent',
    });
    const { Miniflare } = createRequire(join(node22, 'package.json'))('miniflare');
    mock.reset();
    const miniflare = new Miniflare({
      modules: true,
      script: bundled.outputFiles[0].text,
      compatibilityDate: '2026-01-01',
    });
    try {
      const answer = await miniflare.dispatchFetch('http://worker.test/');
      const text = await answer.text();
      assert.equal(answer.status, 200, `workerd: ${text}`);
      assert.match(text, /smoke ok/);
    } finally {
      await miniflare.dispose();
    }
    results.push('workerd (miniflare) worker.mjs');
  } finally {
    await served.close();
  }

  // TypeScript consumers: strict, skipLibCheck off, under each resolution mode.
  const typed = `
    import { NotFoundError, SecretsVault, toEnv, type Vault, type SecretWithValue } from '@secrets-vault/sdk';
    const client = new SecretsVault({ baseUrl: 'https://vault.example.com', token: 't' });
    const vault: Promise<Vault> = client.vaults.get('v');
    const values: Promise<SecretWithValue[]> = client.secrets.listValues('v');
    export const checks = [vault, values, NotFoundError] as const;
    // The wrapper every app writes: optional settings forwarded as given, undefined included.
    export async function forward(given: {
      signal?: AbortSignal | undefined;
      timeout?: number | undefined;
      max?: number | undefined;
      wait?: number | undefined;
      prefix?: string | undefined;
    }) {
      await client.vaults.get('v', { signal: given.signal, timeout: given.timeout });
      await client.vaults.list().toArray({ max: given.max });
      const loaded = await client.secrets.load('v', { wait: given.wait, signal: given.signal });
      return toEnv(loaded, { prefix: given.prefix });
    }
  `;
  const typedMock = `
    import { createVaultMock } from '@secrets-vault/sdk/mock';
    export const mockBaseUrl: string = createVaultMock().baseUrl;
  `;
  const configs = {
    bundler: { module: 'esnext', moduleResolution: 'bundler', files: ['esm.ts', 'esm-mock.ts'] },
    nodenext: {
      module: 'nodenext',
      moduleResolution: 'nodenext',
      files: ['esm.ts', 'esm-mock.ts', 'common.cts', 'common-mock.cts'],
    },
    node16: {
      module: 'node16',
      moduleResolution: 'node16',
      files: ['esm.ts', 'esm-mock.ts', 'common.cts', 'common-mock.cts'],
    },
  };
  write(join(consumer, 'esm.ts'), typed);
  write(join(consumer, 'esm-mock.ts'), typedMock);
  // CommonJS may use the mock too: msw is ESM-only, which Node 22.12+ can \`require\`, and the
  // declarations import its types as ESM so that even node16 resolution accepts them.
  write(
    join(consumer, 'common-mock.cts'),
    `${typedMock.replace('mockBaseUrl', 'mockBaseUrlCjs')}
    import { serveVaultMock } from '@secrets-vault/sdk/mock/node';
    export const serve: typeof serveVaultMock = serveVaultMock;
    `,
  );
  write(
    join(consumer, 'common.cts'),
    typed.replace('export const checks', 'export const checksCjs'),
  );
  for (const [name, { files, ...options }] of Object.entries(configs)) {
    write(
      join(consumer, `tsconfig.${name}.json`),
      JSON.stringify({
        compilerOptions: {
          ...options,
          target: 'es2022',
          lib: ['es2022', 'dom', 'dom.iterable'],
          types: ['node'],
          strict: true,
          skipLibCheck: false,
          noEmit: true,
          exactOptionalPropertyTypes: true,
          noUncheckedIndexedAccess: true,
        },
        files,
      }),
    );
    run(
      process.execPath,
      [join(consumer, 'node_modules/typescript/bin/tsc'), '-p', `tsconfig.${name}.json`],
      {
        cwd: consumer,
      },
    );
    results.push(`typescript ${name}: ${files.join(', ')}`);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

console.log(`consumers: ${results.join('; ')}`);
