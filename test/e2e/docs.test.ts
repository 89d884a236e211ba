import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { createVaultMock } from '../../src/mock/index.js';
import { serveVaultMock } from '../../src/mock/node.js';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

describe('docs/testing-with-the-mock.md', () => {
  it.each(['examples/mock-in-tests.test.ts', 'examples/own-http-server.test.ts'])(
    'embeds %s exactly, so the documented example is the tested one',
    (path) => {
      const doc = read('docs/testing-with-the-mock.md');
      expect(doc).toContain(`\`\`\`ts\n${read(path)}\`\`\``);
    },
  );
});

describe('README quick start', () => {
  it('runs as written against the mock', async () => {
    const readme = read('README.md');
    const section = readme.slice(readme.indexOf('## Quick start'));
    const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
    expect(code).toContain('new SecretsVault()');

    const mock = createVaultMock();
    const served = await serveVaultMock(mock);
    await mkdir(fileURLToPath(new URL('../../reports/', import.meta.url)), { recursive: true });
    const directory = await mkdtemp(
      join(fileURLToPath(new URL('../../reports/', import.meta.url)), 'readme-'),
    );
    const file = join(directory, 'quick-start.ts');
    await writeFile(file, code);
    vi.stubEnv('SECRETS_VAULT_BASE_URL', served.url);
    vi.stubEnv('SECRETS_VAULT_TOKEN', mock.principals.owner.token);
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      await import(/* @vite-ignore */ file);
      expect(log).toHaveBeenCalledWith('loaded stripe');
    } finally {
      log.mockRestore();
      vi.unstubAllEnvs();
      await served.close();
      await rm(directory, { recursive: true, force: true });
    }
  });
});
