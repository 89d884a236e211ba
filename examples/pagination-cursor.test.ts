import { InvalidCursorError, SecretsVault } from '@secrets-vault/sdk';
import { createVaultMock } from '@secrets-vault/sdk/mock';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// A web app that pages through the URL: its "Next page" link carries the cursor, and the
// request that link makes reads it back from the query string, with URLSearchParams.
const nextPageLink = (cursor: string) => `/vaults?cursor=${encodeURIComponent(cursor)}`;
const cursorOf = (link: string) => new URL(link, 'https://app.example').searchParams.get('cursor');

const mock = createVaultMock();
const server = setupServer(...mock.handlers);
const client = new SecretsVault({
  baseUrl: mock.baseUrl,
  token: mock.principals.owner.token,
  maxRetries: 0,
});

/** A first page of vaults whose cursor holds `+` and `/`, as the service's cursors may. */
async function firstPageWithAwkwardCursor() {
  // Each request for the first page gets a fresh opaque cursor: ask until one has both.
  for (let attempt = 0; attempt < 500; attempt += 1) {
    const page = await client.vaults.list({ limit: 1 });
    if (page.nextCursor?.includes('+') && page.nextCursor.includes('/')) {
      return { page, cursor: page.nextCursor };
    }
  }
  throw new Error('the mock handed out no cursor with both + and /');
}

describe('a cursor in a URL', () => {
  beforeAll(async () => {
    server.listen({ onUnhandledFrame: 'error' });
    await client.vaults.create({ name: 'checkout' });
    await client.vaults.create({ name: 'payments' });
  });
  afterAll(() => server.close());

  it('comes back unchanged when percent-encoded, and fetches the next page', async () => {
    const { page, cursor } = await firstPageWithAwkwardCursor();

    const readBack = cursorOf(nextPageLink(cursor));
    expect(readBack).toBe(cursor);

    const next = await client.vaults.list({ limit: 1, cursor: readBack ?? undefined });
    const names = [...page.data, ...next.data].map((vault) => vault.name);
    expect(names.sort()).toEqual(['checkout', 'payments']);
  });

  it('loses its + unencoded, and the service refuses what is left', async () => {
    const { cursor } = await firstPageWithAwkwardCursor();

    const readBack = cursorOf(`/vaults?cursor=${cursor}`); // a `+` in a query means a space
    expect(readBack).toBe(cursor.replaceAll('+', ' '));

    await expect(
      client.vaults.list({ limit: 1, cursor: readBack ?? undefined }),
    ).rejects.toBeInstanceOf(InvalidCursorError);
  });
});
