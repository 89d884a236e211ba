/**
 * Cursor pagination of every mock list, as the service pages: newest first, `limit` 1 to 100
 * (default 50), opaque cursors that expire after 15 minutes and are valid only on the list that
 * issued them.
 */
import { type HandlerResult, MockError, type RequestContext } from './pipeline.js';

const DEFAULT_LIMIT = 50;
const CURSOR_LIFETIME_MS = 15 * 60 * 1000;

/**
 * Returns the page of `items` that the request's `limit` and `cursor` select.
 *
 * @param list - identifies the list (route, caller, filters) so a cursor cannot cross lists
 * @param sortKey - the timestamp items are ordered by, newest first, ties broken by id
 */
export function paginate<T extends { id: string }>(
  context: RequestContext,
  list: string,
  items: readonly T[],
  sortKey: (item: T) => string,
): HandlerResult {
  const limit = parseLimit(context.query.get('limit'));
  const { store } = context;
  const now = store.clock.now();
  const scopedList = `${context.principal.id}\n${list}`;

  let remaining = [...items].sort((a, b) => compareNewestFirst(sortKey(a), a.id, sortKey(b), b.id));
  const cursor = context.query.get('cursor');
  if (cursor !== null) {
    const record = store.cursors.get(cursor);
    if (record === undefined || record.list !== scopedList || record.expiresAt <= now) {
      throw new MockError(400, 'invalid_cursor', 'The cursor is malformed or expired');
    }
    const { after } = record;
    remaining = remaining.filter(
      (item) => compareNewestFirst(sortKey(item), item.id, after.sortKey, after.id) > 0,
    );
  }

  const page = remaining.slice(0, limit);
  const last = page.at(-1);
  let nextCursor: string | null = null;
  if (remaining.length > limit && last !== undefined) {
    nextCursor = newCursorToken();
    store.cursors.set(nextCursor, {
      list: scopedList,
      after: { sortKey: sortKey(last), id: last.id },
      expiresAt: now + CURSOR_LIFETIME_MS,
    });
  }
  return { status: 200, data: page, nextCursor };
}

function parseLimit(raw: string | null): number {
  if (raw === null) return DEFAULT_LIMIT;
  const limit = /^[0-9]{1,3}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(limit >= 1 && limit <= 100)) {
    throw new MockError(400, 'bad_request', '`limit` must be an integer from 1 to 100');
  }
  return limit;
}

/** Newest first: by timestamp, then by id, so items made in one millisecond keep one order. */
export function compareNewestFirst(aKey: string, aId: string, bKey: string, bId: string): number {
  if (aKey !== bKey) return aKey < bKey ? 1 : -1;
  if (aId !== bId) return aId < bId ? 1 : -1;
  return 0;
}

// Standard base64 of random bytes: opaque, and full of `+ / =` so clients must encode it.
function newCursorToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes));
}
