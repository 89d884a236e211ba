/**
 * Bounds on what a caller did not say: `toArray()` without `max` does not collect an endless
 * list into memory, and a base URL with stray whitespace is refused when the client is made
 * rather than failing every call later.
 */
import { describe, expect, it } from 'vitest';
import { SecretsVault, SecretsVaultError } from '../../src/index.js';
import { createClient, ok, route, TOKEN, vault } from '../helpers.js';

// Far past any bound: as far as toArray() can tell, the list never runs out. (It does end, so
// that a toArray() without a bound fails this test instead of filling memory.)
const PAGES = 200;

/** A list that keeps going: every page is full and hands out a fresh cursor. */
function serveEndlessList() {
  return route('get', '/vaults', (_call, request) => {
    const limit = Number(request.url.searchParams.get('limit') ?? 50);
    const page = Number(request.url.searchParams.get('cursor')?.replace('page-', '') ?? 0);
    const items = Array.from({ length: limit }, (_, index) =>
      vault({ id: `vlt_${page * limit + index}` }),
    );
    return ok(items, { nextCursor: page + 1 < PAGES ? `page-${page + 1}` : null });
  });
}

describe('toArray() on a list that never ends', () => {
  it('stops at 10 000 items and names max, and collects more only when max asks for it', async () => {
    const seen = serveEndlessList();
    const error = await createClient()
      .vaults.list({ limit: 100 })
      .toArray()
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    expect(error).toBeInstanceOf(SecretsVaultError);
    expect((error as Error).message).toBe(
      'toArray() stopped at 10000 items: pass { max } to collect more, or iterate with for await',
    );
    // 100 pages of 100: no page past the bound was requested.
    expect(seen).toHaveLength(100);

    const more = await createClient().vaults.list({ limit: 100 }).toArray({ max: 10_050 });
    expect(more).toHaveLength(10_050);
    expect(more.at(-1)?.id).toBe('vlt_10049');
  });
});

describe('a base URL with surrounding whitespace', () => {
  it.each([
    ['a leading space', ' https://vault.example.com'],
    ['a trailing newline', 'https://vault.example.com\n'],
    ['a trailing tab', 'https://vault.example.com\t'],
  ])('is refused at construction when it has %s, without quoting it', (_what, baseUrl) => {
    let error: unknown;
    try {
      new SecretsVault({ baseUrl, token: TOKEN });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(SecretsVaultError);
    const { message } = error as Error;
    expect(message).toContain('`baseUrl`');
    expect(message).toContain('SECRETS_VAULT_BASE_URL');
    expect(message).toContain('whitespace');
    expect(message).not.toContain('vault.example.com');
  });
});
