/**
 * The agent's memory of values, on its own: keyed by a digest of the token, bounded in entries
 * and bytes with the least recently used out, and each entry forgotten once too old to serve.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type CachedValues, entryKey, ValuesCache } from '../../src/cli/agent/values-cache.js';

const values = (text: string): CachedValues => ({
  status: 200,
  headers: ['content-type', 'application/json'],
  body: Buffer.from(text),
  receivedAt: 0,
});

describe('the values cache of the agent', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('keys an entry by a digest of the token, never the token', () => {
    const key = entryKey('sv_secret_token', 'vault-1');
    expect(key).not.toContain('sv_secret_token');
    expect(key).toMatch(/^[0-9a-f]{64} vault-1$/);
    expect(entryKey('sv_secret_token', 'vault-1')).toBe(key);
    expect(entryKey('sv_other_token', 'vault-1')).not.toBe(key);
  });

  it('drops the least recently used entry past the most entries', () => {
    const cache = new ValuesCache({ maxEntries: 3, maxBytes: 1_000, keepMs: 60_000 });
    for (const name of ['a', 'b', 'c']) cache.set(name, values(name));
    // `a` is used: `b` is now the least recently used.
    expect(cache.get('a')?.body.toString()).toBe('a');
    cache.set('d', values('d'));
    expect(cache.size).toBe(3);
    expect(cache.get('b')).toBeUndefined();
    expect(['a', 'c', 'd'].map((name) => cache.get(name)?.body.toString())).toEqual([
      'a',
      'c',
      'd',
    ]);
    cache.clear();
    expect(cache.size).toBe(0);
  });

  it('drops the least recently used entries past the most bytes, and never keeps a body over it', () => {
    const cache = new ValuesCache({ maxEntries: 100, maxBytes: 10, keepMs: 60_000 });
    cache.set('a', values('aaaa'));
    cache.set('b', values('bbbb'));
    cache.set('c', values('cccc'));
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(2);
    cache.set('huge', values('x'.repeat(11)));
    expect(cache.get('huge')).toBeUndefined();
    expect(cache.size).toBe(2);
  });

  it('forgets an entry once it is older than it may be served, and a replaced one on its own time', () => {
    const cache = new ValuesCache({ maxEntries: 100, maxBytes: 1_000, keepMs: 60_000 });
    cache.set('a', values('first'));
    vi.advanceTimersByTime(30_000);
    cache.set('a', values('second'));
    vi.advanceTimersByTime(30_000);
    expect(cache.get('a')?.body.toString()).toBe('second');
    vi.advanceTimersByTime(30_000);
    expect(cache.get('a')).toBeUndefined();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('holds an entry for a keep past the longest timer, and clears its timer when dropped', () => {
    const cache = new ValuesCache({ maxEntries: 100, maxBytes: 1_000, keepMs: 40 * 86_400_000 });
    cache.set('a', values('kept'));
    vi.advanceTimersByTime(30 * 86_400_000);
    expect(cache.get('a')?.body.toString()).toBe('kept');
    cache.delete('a');
    expect(vi.getTimerCount()).toBe(0);
  });
});
