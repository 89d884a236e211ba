/**
 * The SDK's browser build (`dist/browser/`, what the package's `browser` export condition
 * resolves to), imported by its file path since Node would resolve the package's name to the
 * `node` build. It runs on Node's global `fetch` (undici), the native fetch here, as it runs on a
 * browser's. It differs from the Node build in reading bodies with `arrayBuffer()` and checking
 * every response with zod alone (no compiled fast path).
 *
 * A second client, with the SDK's defaults like the first: 30 s timeout per attempt, 2 retries,
 * the retry budget.
 */
import type * as Sdk from '@secrets-vault/sdk';
import {
  CREATE_PARAMS,
  ONE_PAGE_VAULT_ID,
  PAGE_SIZE,
  TOKEN,
  VALUES_VAULT_ID,
  VAULT_ID,
} from '../fixtures.ts';

const BROWSER_BUILD = new URL('../../dist/browser/index.js', import.meta.url).href;

export async function sdkBrowserCalls(base: string) {
  // Typed as the package is: both builds share one declaration file.
  const { SecretsVault } = (await import(BROWSER_BUILD)) as typeof Sdk;
  const client = new SecretsVault({ baseUrl: base, token: TOKEN });
  return {
    get: () => client.vaults.get(VAULT_ID),
    list: () => client.secrets.list(ONE_PAGE_VAULT_ID, { limit: PAGE_SIZE }),
    values: () => client.secrets.listValues(VALUES_VAULT_ID),
    create: () => client.secrets.create(VAULT_ID, CREATE_PARAMS),
  };
}
