/**
 * A cache of loaded secrets for long-running servers: fresh from memory within `ttl`, served
 * stale while a background refresh runs, and kept through an outage of the service up to
 * `maxStale` (the stale-if-error of HTTP caches, as the AWS Secrets Manager caching client does).
 */
import type { SecretsVault } from '../client.js';
import type { LoadResult } from './load.js';
import type { StandardSchemaV1 } from './standard-schema.js';

/** Options of {@link createSecretCache}. */
export interface SecretCacheOptions {
  /** Milliseconds a loaded vault is served from memory without asking the service. */
  readonly ttl: number;
  /**
   * Milliseconds past `ttl` that the last good value is still served while refreshes fail;
   * after that, `load` throws the refresh's own error.
   * @default Infinity (keep serving the last good value while the service is down)
   */
  readonly maxStale?: number;
  /**
   * Milliseconds the first load of a vault waits out an unavailable service, as `wait` of
   * `client.secrets.load`; background refreshes use the client's ordinary retry policy (the
   * cached value is served meanwhile).
   * @default the client's: process.env.SECRETS_VAULT_WAIT where `process` exists, else 60000
   */
  readonly wait?: number;
  /**
   * Called when a refresh brings values different from the cached ones (values are compared,
   * not objects). An error it throws is ignored.
   */
  readonly onChange?: (vaultId: string, loaded: unknown) => void;
}

/** Options of {@link SecretCache.load}. */
export interface SecretCacheLoadOptions<Schema extends StandardSchemaV1 | undefined> {
  /** A Standard Schema to validate and type the loaded secrets, as for `client.secrets.load`. */
  readonly schema?: Schema;
}

/** Loaded vaults kept in memory; see {@link createSecretCache}. */
export interface SecretCache {
  /**
   * The secrets of a vault: from memory within `ttl`, else the cached value while a refresh runs
   * in the background, or the result of a load when nothing usable is cached. Concurrent callers
   * share one request.
   *
   * @throws the error of the load (or of the failing refreshes, once `maxStale` has passed)
   */
  load<Schema extends StandardSchemaV1 | undefined = undefined>(
    vaultId: string,
    options?: SecretCacheLoadOptions<Schema>,
  ): Promise<LoadResult<Schema>>;
  /** Forgets every cached vault; the next `load` asks the service. */
  clear(): void;
}

interface Entry {
  value?: unknown;
  /** When the cached value was loaded (`Date.now()`), if there is one. */
  loadedAt?: number;
  inflight?: Promise<unknown>;
  /** The error of the latest refresh, cleared by the next success. */
  error?: unknown;
}

/**
 * Creates a cache of loaded secrets for a long-running server.
 *
 * @throws {RangeError} when `ttl` or `maxStale` is not a non-negative number, or `wait` is not a
 *   whole number of milliseconds from 0 (or `Infinity`)
 * @example
 * ```ts
 * const cache = createSecretCache(client, {
 *   ttl: 60_000,
 *   maxStale: 10 * 60_000,
 *   onChange: (vaultId) => console.info(`secrets of ${vaultId} changed`),
 * });
 * app.use(async (request, response, next) => {
 *   const { stripe } = await cache.load(vaultId);
 *   // …
 * });
 * ```
 */
export function createSecretCache(client: SecretsVault, options: SecretCacheOptions): SecretCache {
  const { ttl, maxStale = Number.POSITIVE_INFINITY, wait, onChange } = options;
  if (!(ttl >= 0) || !(maxStale >= 0)) {
    throw new RangeError('createSecretCache: ttl and maxStale must be milliseconds, 0 or more');
  }
  if (
    wait !== undefined &&
    !(wait >= 0 && (Number.isInteger(wait) || wait === Number.POSITIVE_INFINITY))
  ) {
    throw new RangeError(
      'createSecretCache: wait must be whole milliseconds, 0 or more, or Infinity',
    );
  }
  // One map per schema (a schema changes what is cached), then one entry per vault.
  let entries = new WeakMap<object, Map<string, Entry>>();
  const withoutSchema = {};

  const refresh = (vaultId: string, schema: StandardSchemaV1 | undefined, entry: Entry) => {
    // Only a vault with nothing cached makes its caller wait for the service to come back.
    const first = entry.loadedAt === undefined;
    entry.inflight ??= client.secrets
      .load(vaultId, {
        ...(schema === undefined ? {} : { schema }),
        ...(first ? (wait === undefined ? {} : { wait }) : { wait: 0 }),
      })
      .then(
        (value) => {
          const changed = entry.loadedAt !== undefined && !sameData(entry.value, value);
          entry.value = value;
          entry.loadedAt = Date.now();
          delete entry.error;
          if (changed && onChange) {
            try {
              onChange(vaultId, value);
            } catch {
              // An observer must not break the cache.
            }
          }
          return value;
        },
        (error: unknown) => {
          entry.error = error;
          throw error;
        },
      )
      .finally(() => {
        delete entry.inflight;
      });
    return entry.inflight;
  };

  return {
    async load(vaultId, loadOptions = {}) {
      const { schema } = loadOptions;
      const byVault = entries.get(schema ?? withoutSchema) ?? new Map<string, Entry>();
      entries.set(schema ?? withoutSchema, byVault);
      const entry = byVault.get(vaultId) ?? {};
      byVault.set(vaultId, entry);

      if (entry.loadedAt === undefined) return (await refresh(vaultId, schema, entry)) as never;
      const age = Date.now() - entry.loadedAt;
      if (age < ttl) return entry.value as never;
      if (age - ttl <= maxStale) {
        // Stale but usable: answer now, refresh behind the caller's back.
        refresh(vaultId, schema, entry).catch(() => undefined);
        return entry.value as never;
      }
      // Too stale to serve: the caller waits for a refresh, and gets its error if it fails.
      return (await refresh(vaultId, schema, entry)) as never;
    },
    clear() {
      entries = new WeakMap();
    },
  };
}

/** Deep equality of plain data: what `onChange` compares (the print hooks are not data). */
function sameData(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const aKeys = Object.keys(a);
  const bKeys = Object.keys(b);
  return (
    aKeys.length === bKeys.length &&
    aKeys.every(
      (key) =>
        Object.hasOwn(b, key) &&
        sameData((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
    )
  );
}
