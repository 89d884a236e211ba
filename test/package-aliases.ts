/**
 * The package by name resolves to the sources in tests, as it resolves to the built package in
 * an application: shared by vitest.config.ts and vitest.browser.config.ts.
 */
import { fileURLToPath } from 'node:url';

const source = (path: string) => fileURLToPath(new URL(`../${path}`, import.meta.url));

/**
 * `@secrets-vault/sdk`, `/mock`, `/mock/node`, `/query` and `/opentelemetry` mapped to their sources, most specific
 * first.
 */
export const packageAliases = [
  { find: '@secrets-vault/sdk/mock/node', replacement: source('src/mock/node.ts') },
  { find: '@secrets-vault/sdk/mock', replacement: source('src/mock/index.ts') },
  { find: '@secrets-vault/sdk/query', replacement: source('src/query/index.ts') },
  {
    find: '@secrets-vault/sdk/opentelemetry',
    replacement: source('src/opentelemetry/index.ts'),
  },
  ...['vaults', 'secrets', 'teams', 'org', 'audit'].map((name) => ({
    find: `@secrets-vault/sdk/${name}`,
    replacement: source(`src/${name}.ts`),
  })),
  { find: /^@secrets-vault\/sdk$/, replacement: source('src/index.ts') },
];
