import { describe, expect, it } from 'vitest';
import { auditEntry, createClient, ok, route, type SeenRequest } from '../helpers.js';
import { describeMethods, page } from './resource-helpers.js';

describeMethods('client.audit', [
  {
    call: 'audit.list',
    route: 'GET /audit',
    answer: page(auditEntry(), {
      action: 'vault.secret.rotate',
      type: 'admin',
      user_agent: 'curl/8.0',
      geo: { country: 'FR' },
    }),
    run: (client, _ids, query, options) => client.audit.list(query, options),
  },
]);

/** The query the server saw, as name/value pairs in the order sent. */
function queryOf(request: SeenRequest | undefined): Array<[string, string]> {
  return [...(request?.url.searchParams.entries() ?? [])];
}

describe('client.audit filters', () => {
  it('sends only the filters the caller gives', async () => {
    const seen = route('get', '/audit', () => ok([], { nextCursor: null }));
    await createClient().audit.list({ action: 'org.member.update' });
    expect(queryOf(seen[0])).toEqual([['action', 'org.member.update']]);
  });

  it.each(['a+b/c=d%e f', '%2B%25', 'x&limit=1', 'é#frag', '==', 'cur?x=1;y'])(
    'passes the cursor %j to the server byte for byte',
    async (cursor) => {
      const seen = route('get', '/audit', () => ok([], { nextCursor: null }));
      await createClient().audit.list({ cursor, limit: 10 });

      expect(seen).toHaveLength(1);
      expect(seen[0]?.url.searchParams.get('cursor')).toBe(cursor);
      expect(seen[0]?.url.searchParams.getAll('limit')).toEqual(['10']);
    },
  );

  it('passes filter values with reserved characters through unchanged', async () => {
    const seen = route('get', '/audit', () => ok([], { nextCursor: null }));
    await createClient().audit.list({ action: 'a+b&c', resource: 'secret:sec 1/%2F' });
    expect(queryOf(seen[0])).toEqual([
      ['action', 'a+b&c'],
      ['resource', 'secret:sec 1/%2F'],
    ]);
  });

  it('follows next_cursor byte for byte and keeps the filters on the next page', async () => {
    const next = 'a+b/c=d%e f';
    const seen = route('get', '/audit', (call) =>
      call === 0
        ? ok([auditEntry()], { nextCursor: next })
        : ok([auditEntry({ id: 'aud_2' })], { nextCursor: null }),
    );
    const first = await createClient().audit.list({ action: 'vault.secret.create', limit: 1 });
    const second = await first.getNextPage();

    expect(seen).toHaveLength(2);
    expect(seen[1]?.url.searchParams.get('cursor')).toBe(next);
    expect(seen[1]?.url.searchParams.get('action')).toBe('vault.secret.create');
    expect(seen[1]?.url.searchParams.get('limit')).toBe('1');
    expect(second.data).toEqual([auditEntry({ id: 'aud_2' })]);
    expect(second.nextCursor).toBeNull();
  });
});
