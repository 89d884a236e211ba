/**
 * The agent's memory of the values it has served: one entry per token and vault, kept in the
 * process only. The key holds a SHA-256 digest of the token, never the token, so that an entry
 * can be found only by presenting the token the service answered it for. Bounded in entries and
 * in bytes (least recently used out), and each entry is dropped once it is too old to be served
 * even as stale.
 */
import { createHash } from 'node:crypto';
import { afterMs } from '../../core/timer.js';

/** @internal The service's answer to a values request, as the agent keeps it. */
export interface CachedValues {
  /** Its status (a 2xx). */
  readonly status: number;
  /** The headers served with it, as a flat list: its content type, request id, cache control. */
  readonly headers: readonly string[];
  /** The body, byte for byte. */
  readonly body: Buffer;
  /** When it was received (`performance.now()`). */
  readonly receivedAt: number;
}

interface Entry {
  readonly values: CachedValues;
  readonly forget: () => void;
}

/** @internal The bounds of a {@link ValuesCache}. */
export interface ValuesCacheBounds {
  /** The most entries kept. */
  readonly maxEntries: number;
  /** The most bytes of bodies kept, all entries together. */
  readonly maxBytes: number;
  /** How long an entry is kept after it was received: past this it can be served in no way. */
  readonly keepMs: number;
}

/** @internal The key of the entry for `token` and `vaultId`: a digest of the token, never it. */
export function entryKey(token: string, vaultId: string): string {
  return `${createHash('sha256').update(token).digest('hex')} ${vaultId}`;
}

/** @internal The cached values, by {@link entryKey}, least recently used first. */
export class ValuesCache {
  // A Map iterates in insertion order: an entry used is moved to the end, so the first is the
  // least recently used.
  readonly #entries = new Map<string, Entry>();
  readonly #bounds: ValuesCacheBounds;
  #bytes = 0;

  constructor(bounds: ValuesCacheBounds) {
    this.#bounds = bounds;
  }

  /** The entry of `key`, now the most recently used; undefined when there is none. */
  get(key: string): CachedValues | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.values;
  }

  /** Keeps `values` under `key`, replacing its entry, then drops the least recently used past a bound. */
  set(key: string, values: CachedValues): void {
    this.delete(key);
    const { maxEntries, maxBytes, keepMs } = this.#bounds;
    // A body that would take the whole budget is served, not kept.
    if (values.body.byteLength > maxBytes) return;
    const forget = afterMs(keepMs, () => this.#drop(key));
    this.#entries.set(key, { values, forget });
    this.#bytes += values.body.byteLength;
    for (const [oldest] of this.#entries) {
      if (this.#entries.size <= maxEntries && this.#bytes <= maxBytes) break;
      this.delete(oldest);
    }
  }

  /** Drops the entry of `key`, if any. */
  delete(key: string): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    entry.forget();
    this.#drop(key);
  }

  /** How many entries are kept. */
  get size(): number {
    return this.#entries.size;
  }

  /** Drops every entry (and its timer). */
  clear(): void {
    for (const key of [...this.#entries.keys()]) this.delete(key);
  }

  #drop(key: string): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#entries.delete(key);
    this.#bytes -= entry.values.body.byteLength;
  }
}
