/**
 * A cache of loaded secrets for long-running servers: fresh from memory within `ttl`, served
 * stale while a background refresh runs, and kept through an outage of the service up to
 * `maxStale` (the stale-if-error of HTTP caches, as the AWS Secrets Manager caching client does),
 * but never past a verdict: a refused token or a vault gone ends the cached value. Each vault is
 * refreshed at its own random point between `ttl` and `1.2 × ttl`, so a fleet spreads its load.
 */
import type { SecretsVault } from '../client.js';
import { APIError } from '../core/errors.js';
import { isOutage, now } from '../core/retry.js';
import { type LoadedSecrets, type LoadResult, validateLoaded } from './load.js';
import { ownData, plainCopy } from './redacted.js';
import type { StandardSchemaV1 } from './standard-schema.js';

/** Options of {@link createSecretCache}. */
export interface SecretCacheOptions {
  /**
   * Milliseconds a loaded vault is served from memory without asking the service, measured on
   * a monotonic clock (`performance.now()`), so a wall clock stepped back does not extend it.
   *
   * Each load (first load or refresh) of a vault draws once, at random, the point between `ttl`
   * and `1.2 × ttl` after it at which the vault is refreshed: a fleet of servers started together
   * then spreads its refreshes over that window instead of asking the service in the same second.
   * @example
   * ```ts
   * // Each vault is refreshed between 5 and 6 minutes after it was loaded.
   * const cache = createSecretCache(client, { ttl: 5 * 60_000 });
   * ```
   */
  readonly ttl: number;
  /**
   * Milliseconds past `ttl` that the last good value is still served while refreshes fail;
   * after that, `load` throws the refresh's own error. A verdict (401, 403, 404) ends it at once.
   * A vault whose refresh point (see `ttl`) comes after `ttl + maxStale` is served until that
   * point, then waits for its refresh.
   * @default Infinity (keep serving the last good value while the service is down)
   */
  readonly maxStale?: number | undefined;
  /**
   * How many vaults are kept; loading one more forgets the least recently loaded. A vault whose
   * first load failed is never kept, so unknown vault ids take no room.
   * @default 1000
   */
  readonly maxEntries?: number | undefined;
  /**
   * Milliseconds the first load of a vault waits out an unavailable service, as `wait` of
   * `client.secrets.load`; background refreshes use the client's ordinary retry policy (the
   * cached value is served meanwhile).
   * @default the client's: process.env.SECRETS_VAULT_WAIT where `process` exists, else 60000
   */
  readonly wait?: number | undefined;
  /**
   * Called when a refresh brings values different from the cached ones (values are compared,
   * not objects), with the vault's new record (as `load` without a schema gives it). An error
   * it throws is ignored.
   */
  readonly onChange?: ((vaultId: string, loaded: LoadedSecrets) => void) | undefined;
  /**
   * Called with the error of every failed refresh of a cached vault (a failed first load is
   * the caller's error, not reported here), so an outage or a revoked token shows in the logs
   * while the cache serves the last good value. An error it throws is ignored.
   */
  readonly onError?: ((vaultId: string, error: unknown) => void) | undefined;
}

/** Options of {@link SecretCache.load}. */
export interface SecretCacheLoadOptions<Schema extends StandardSchemaV1 | undefined> {
  /**
   * A Standard Schema to validate and type the loaded secrets, as for `client.secrets.load`.
   * It is applied to the cached record on every call, so a schema written inline still hits
   * the cache, and two schemas loading one vault each get their own output from one request.
   */
  readonly schema?: Schema | undefined;
}

/** Loaded vaults kept in memory; see {@link createSecretCache}. */
export interface SecretCache {
  /**
   * The secrets of a vault: from memory until its refresh point (between `ttl` and `1.2 × ttl`
   * after it was loaded), else the cached value while a refresh runs in the background, or the
   * result of a load when nothing usable is cached. Concurrent callers share one request. Without a schema, every caller gets the same deep-frozen record; with
   * one, each call gets the schema's output of its own. Either way no caller can change what
   * another gets.
   *
   * @throws the error of the load (or of the failing refreshes, once `maxStale` has passed, or
   *   of the refresh that got a verdict, any 4xx but 408 and 429, which drops the vault)
   * @throws {SecretsSchemaError} when `schema` rejects the cached record (which stays cached)
   */
  load<Schema extends StandardSchemaV1 | undefined = undefined>(
    vaultId: string,
    options?: SecretCacheLoadOptions<Schema>,
  ): Promise<LoadResult<Schema>>;
  /**
   * Loads a vault now, whatever its age, and keeps the result: use it when you know the secrets
   * changed (a rotation you just made, a webhook from the service). Calls made while a load of
   * that vault is under way (another `refresh`, the background refresh, the first load) share its
   * request rather than sending another. A successful refresh calls `onChange` when the values
   * differ from the cached ones, and starts the vault's `ttl` over.
   *
   * A vault that is not cached is loaded as its first `load` would be (waiting out an unavailable
   * service for `wait`) and kept; `onChange` is not called then, as there was nothing to compare.
   *
   * When the refresh of a cached vault fails, the promise rejects with its error and `onError`
   * hears of it too. An outage leaves the cached value as it was (still served, under the same
   * `maxStale` rule); a verdict (401, 403, 404) drops the vault, as on a background refresh.
   *
   * @throws the error of the load
   * @example
   * ```ts
   * // After rotating the database password on the service:
   * await cache.refresh(vaultId);
   * const { database } = await cache.load(vaultId); // the new password, from memory
   * ```
   */
  refresh(vaultId: string): Promise<void>;
  /**
   * Forgets one vault: the next `load` of it asks the service. A load or refresh of that vault
   * still under way completes for its callers but keeps nothing and calls neither `onChange` nor
   * `onError`, so it cannot bring the forgotten value back.
   *
   * @returns true when the vault was cached, false when it was not
   * @example
   * ```ts
   * // A tenant left: stop keeping its secrets in memory.
   * cache.delete(tenant.vaultId);
   * ```
   */
  delete(vaultId: string): boolean;
  /** Forgets every cached vault; the next `load` asks the service. */
  clear(): void;
  /** How many loaded vaults are kept: at most `maxEntries`. */
  readonly size: number;
}

interface Entry {
  /** The vault's record, deep-frozen: handed to every caller without a schema. */
  record?: LoadedSecrets;
  /** When the record was loaded, on the monotonic clock, if there is one. */
  loadedAt?: number;
  /** How long after `loadedAt` the record is refreshed: drawn between `ttl` and `1.2 × ttl`. */
  refreshAfter?: number;
  inflight?: Promise<LoadedSecrets>;
}

// Refreshes happen at a random point of [ttl, ttl × (1 + REFRESH_SPREAD)) after each load, so that
// a fleet started together does not ask the service in the same second forever after.
const REFRESH_SPREAD = 0.2;

/**
 * Creates a cache of loaded secrets for a long-running server. Entries are keyed by vault id
 * alone: the cache keeps each vault's record, and applies the schema of each `load` to it.
 *
 * @throws {RangeError} when `ttl` or `maxStale` is not a non-negative number, `maxEntries` is
 *   not a whole number from 1 (or `Infinity`), or `wait` is not a whole number of milliseconds
 *   from 0 (or `Infinity`)
 * @example
 * ```ts
 * const cache = createSecretCache(client, {
 *   ttl: 60_000,
 *   maxStale: 10 * 60_000,
 *   onChange: (vaultId) => console.info(`secrets of ${vaultId} changed`),
 *   onError: (vaultId, error) => console.warn(`refreshing ${vaultId} failed`, error),
 * });
 * app.use(async (request, response, next) => {
 *   const { stripe } = await cache.load(vaultId);
 *   // …
 * });
 * ```
 */
export function createSecretCache(client: SecretsVault, options: SecretCacheOptions): SecretCache {
  const {
    ttl,
    maxStale = Number.POSITIVE_INFINITY,
    maxEntries = 1000,
    wait,
    onChange,
    onError,
  } = options;
  if (!(ttl >= 0) || !(maxStale >= 0)) {
    throw new RangeError('createSecretCache: ttl and maxStale must be milliseconds, 0 or more');
  }
  if (
    !(maxEntries >= 1 && (Number.isInteger(maxEntries) || maxEntries === Number.POSITIVE_INFINITY))
  ) {
    throw new RangeError(
      'createSecretCache: maxEntries must be a whole number from 1, or Infinity',
    );
  }
  if (
    wait !== undefined &&
    !(wait >= 0 && (Number.isInteger(wait) || wait === Number.POSITIVE_INFINITY))
  ) {
    throw new RangeError(
      'createSecretCache: wait must be whole milliseconds, 0 or more, or Infinity',
    );
  }
  // Monotonic: the wall clock can be stepped back (NTP, a resumed VM) and must not keep a value
  // fresh for an hour.
  // Loaded vaults in order of use, least recent first (a Map iterates in insertion order).
  let entries = new Map<string, Entry>();
  // First loads under way, shared by concurrent callers; a vault enters `entries` only once
  // loaded, so a failure (an unknown vault id) neither takes room nor pushes a vault out.
  let firstLoads = new Map<string, Entry>();

  const keep = (vaultId: string, entry: Entry) => {
    if (firstLoads.get(vaultId) !== entry) return; // cleared meanwhile
    firstLoads.delete(vaultId);
    for (const oldest of entries.keys()) {
      if (entries.size < maxEntries) break;
      entries.delete(oldest);
    }
    entries.set(vaultId, entry);
  };

  const refresh = (vaultId: string, entry: Entry): Promise<LoadedSecrets> => {
    // Only a vault with nothing cached makes its caller wait for the service to come back.
    const first = entry.loadedAt === undefined;
    entry.inflight ??= client.secrets
      .load(vaultId, first ? (wait === undefined ? {} : { wait }) : { wait: 0 })
      .then(
        (loaded) => {
          const record = freezeDeep(loaded);
          const changed = !first && !sameData(entry.record, record);
          entry.record = record;
          entry.loadedAt = now();
          entry.refreshAfter = ttl * (1 + REFRESH_SPREAD * Math.random());
          if (first) keep(vaultId, entry);
          // A vault deleted, cleared or pushed out meanwhile is forgotten: no news of it.
          else if (changed && onChange && entries.get(vaultId) === entry) {
            notify(() => onChange(vaultId, record));
          }
          return record;
        },
        (error: unknown) => {
          if (first) {
            if (firstLoads.get(vaultId) === entry) firstLoads.delete(vaultId);
          } else if (entries.get(vaultId) === entry) {
            // An answer that is a verdict on the token or the vault, not an outage: serving the
            // old value after one would outlive a revoked token or a deleted vault.
            if (error instanceof APIError && !isOutage(error)) entries.delete(vaultId);
            if (onError) notify(() => onError(vaultId, error));
          }
          throw error;
        },
      )
      .finally(() => {
        delete entry.inflight;
      });
    return entry.inflight;
  };

  const current = async (vaultId: string, entry: Entry): Promise<LoadedSecrets> => {
    if (entry.loadedAt === undefined || entry.record === undefined) return refresh(vaultId, entry);
    const age = now() - entry.loadedAt;
    if (age < (entry.refreshAfter ?? ttl)) return entry.record;
    if (age - ttl <= maxStale) {
      // Stale but usable: answer now, refresh behind the caller's back (onError hears of it).
      refresh(vaultId, entry).catch(() => undefined);
      return entry.record;
    }
    // Too stale to serve: the caller waits for a refresh, and gets its error if it fails.
    return refresh(vaultId, entry);
  };

  return {
    async load(vaultId, loadOptions = {}) {
      let entry = entries.get(vaultId);
      if (entry === undefined) {
        entry = firstLoads.get(vaultId) ?? {};
        firstLoads.set(vaultId, entry);
      } else {
        // Most recently used: to the end of the line.
        entries.delete(vaultId);
        entries.set(vaultId, entry);
      }

      const record = await current(vaultId, entry);
      const { schema } = loadOptions;
      if (schema === undefined) return record as never;
      // Each call validates a copy: a schema that changes its input cannot change the cache.
      return (await validateLoaded(plainCopy(record), schema)) as never;
    },
    async refresh(vaultId) {
      const entry = entries.get(vaultId) ?? firstLoads.get(vaultId) ?? {};
      // Not cached: a first load like `load`'s, which keeps the vault once it succeeds.
      if (entry.loadedAt === undefined) firstLoads.set(vaultId, entry);
      await refresh(vaultId, entry);
    },
    delete(vaultId) {
      // A first load under way is forgotten too, so that it keeps nothing when it completes.
      firstLoads.delete(vaultId);
      return entries.delete(vaultId);
    },
    clear() {
      entries = new Map();
      firstLoads = new Map();
    },
    get size() {
      return entries.size;
    },
  };
}

/** Calls an observer; an observer must not break the cache. */
function notify(call: () => void): void {
  try {
    call();
  } catch {
    // Ignored, as documented.
  }
}

/** Freezes a loaded record and every object in it, so callers sharing it cannot change it. */
function freezeDeep<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const [, item] of ownData(value)) freezeDeep(item);
  }
  return value;
}

/** Deep equality of plain data: what `onChange` compares (the print hooks are not data). */
function sameData(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const aEntries = ownData(a);
  const bEntries = new Map(ownData(b));
  return (
    aEntries.length === bEntries.size &&
    aEntries.every(([key, item]) => bEntries.has(key) && sameData(item, bEntries.get(key)))
  );
}
