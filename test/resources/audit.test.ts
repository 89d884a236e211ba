import { describe, expect, it } from 'vitest';
import { auditEntry, createClient, ok, route, type SeenRequest } from '../helpers.js';
import { expectSent, issuePaths, recordEverything, refusal } from './resource-helpers.js';

/** The query the server saw, as name/value pairs in the order sent. */
function queryOf(request: SeenRequest | undefined): Array<[string, string]> {
  return [...(request?.url.searchParams.entries() ?? [])];
}

describe('client.audit', () => {
  it('lists audit entries with GET /v1/audit and no query, returning the first page', async () => {
    const entries = [auditEntry(), auditEntry({ id: 'aud_2', type: 'write', success: false })];
    const seen = route('get', '/audit', () => ok(entries, { nextCursor: null }));
    const page = await createClient().audit.list();

    expect(seen).toHaveLength(1);
    expectSent(seen[0], { method: 'GET', rawPath: '/v1/audit', search: '' });
    expect(seen[0]?.headers.has('idempotency-key')).toBe(false);
    expect(page.data).toEqual(entries);
    expect(page.nextCursor).toBeNull();
  });

  it('sends action, resource, limit and cursor as query parameters', async () => {
    const seen = route('get', '/audit', () => ok([auditEntry()], { nextCursor: 'cur_2' }));
    const page = await createClient().audit.list({
      action: 'vault.secret_value.read',
      resource: 'secret:sec_1',
      limit: 25,
      cursor: 'cur_1',
    });

    expectSent(seen[0], {
      method: 'GET',
      rawPath: '/v1/audit',
      search: '?action=vault.secret_value.read&resource=secret%3Asec_1&limit=25&cursor=cur_1',
    });
    expect(Object.fromEntries(queryOf(seen[0]))).toEqual({
      action: 'vault.secret_value.read',
      resource: 'secret:sec_1',
      limit: '25',
      cursor: 'cur_1',
    });
    expect(queryOf(seen[0])).toHaveLength(4);
    expect(page.data).toEqual([auditEntry()]);
    expect(page.nextCursor).toBe('cur_2');
  });

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
    expect(seen[0]?.url.searchParams.get('action')).toBe('a+b&c');
    expect(seen[0]?.url.searchParams.get('resource')).toBe('secret:sec 1/%2F');
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

  it.each([0, 101, 1.5])('refuses limit %s on an audit list before sending', async (limit) => {
    const sent = recordEverything();
    const error = await refusal(createClient().audit.list({ action: 'x', limit }));
    expect(issuePaths(error)).toEqual(['limit']);
    expect(sent()).toEqual([]);
  });

  it('accepts actions and types it has never seen', async () => {
    const entry = auditEntry({ action: 'vault.secret.rotate', type: 'admin' });
    route('get', '/audit', () => ok([entry], { nextCursor: null }));
    const page = await createClient().audit.list();
    expect(page.data).toEqual([entry]);
    expect(page.data[0]?.action).toBe('vault.secret.rotate');
    expect(page.data[0]?.type).toBe('admin');
  });

  it('keeps fields it does not know on audit entries', async () => {
    const entry = auditEntry({ user_agent: 'curl/8.0', geo: { country: 'FR' } });
    route('get', '/audit', () => ok([entry], { nextCursor: null }));
    const page = await createClient().audit.list();
    expect(page.data).toEqual([entry]);
  });
});
