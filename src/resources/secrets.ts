/**
 * Secrets: metadata, archiving, and values. A secret's value is an object of
 * strings; it is returned only by `getValue` and `listValues`, and never appears in an error.
 */
import * as z from 'zod/mini';
import type { APIPromise } from '../core/api-promise.js';
import { SecretReferenceError } from '../core/errors.js';
import { declareFastPath } from '../core/fast-accept.js';
import type { RequestOptions } from '../core/options.js';
import type { PagePromise } from '../core/pagination.js';
import { buildLoaded, type LoadResult } from '../startup/load.js';
import type { StandardSchemaV1 } from '../startup/standard-schema.js';
import { APIResource, ListParams } from './shared.js';

/** The metadata of a secret, without its value. */
export interface Secret {
  /** The secret's identifier. */
  id: string;
  /** The identifier of the vault that holds the secret. */
  vault_id: string;
  /** The secret's name: the key under which {@link Secrets.load} returns its value. */
  name: string;
  /** A short kind label such as `generic` or `login`; an open string: any value may appear. */
  type: string;
  /** When the secret expires: an ISO 8601 UTC timestamp, or `null` when it never expires. */
  expired_at: string | null;
  /** Whether the secret is to be deleted once `expired_at` has passed. */
  delete_after_expired: boolean;
  /**
   * True once the secret has been archived by {@link Secrets.delete}: it has then left
   * listings and the values endpoint.
   */
  is_archived: boolean;
  /** When the secret was created: an ISO 8601 UTC timestamp. */
  created_at: string;
}
/** Checks a `Secret` received from the service; unknown keys are tolerated. */
export const Secret = z.object({
  id: z.string(),
  vault_id: z.string(),
  name: z.string(),
  type: z.string(),
  expired_at: z.nullable(z.string()),
  delete_after_expired: z.boolean(),
  is_archived: z.boolean(),
  created_at: z.string(),
}) satisfies z.ZodMiniType<Secret>;

/** A secret's value: names mapped to string values, such as `{ username, password }`. */
export type SecretValue = Record<string, string>;
/**
 * Checks a `SecretValue`: a plain object whose values are all strings, naming each key whose
 * value is not. (A check of its own rather than `z.record`, whose machinery would weigh 0.6 KB
 * gzip in every browser bundle.)
 */
export const SecretValue = z.custom<SecretValue>().check(
  z.check((payload) => {
    const { value } = payload;
    if (!isPlainObject(value)) {
      payload.issues.push({ code: 'custom', message: 'expected record', input: value });
      return;
    }
    for (const [key, item] of Object.entries(value)) {
      if (typeof item !== 'string') {
        payload.issues.push({
          code: 'custom',
          message: 'expected string',
          input: item,
          path: [key],
        });
      }
    }
  }),
) satisfies z.ZodMiniType<SecretValue>;
// The values endpoint answers hundreds of these: they skip zod's bookkeeping when they pass.
declareFastPath(SecretValue, (value) => {
  if (!isPlainObject(value)) return false;
  // Without the array Object.values would make for each of hundreds of values. An inherited
  // enumerable key (a polluted prototype) is checked too: at worst zod decides.
  for (const key in value) if (typeof value[key] !== 'string') return false;
  return true;
});

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return (
    (prototype === Object.prototype || prototype === null) &&
    Object.getOwnPropertySymbols(value).length === 0
  );
}

/** A secret's metadata together with its decrypted value. */
export interface SecretWithValue extends Secret {
  /** The decrypted value: names mapped to string values. */
  value: SecretValue;
}
/** Checks a `SecretWithValue` received from the service; unknown keys are tolerated. */
export const SecretWithValue = z.object({
  ...Secret.shape,
  value: SecretValue,
}) satisfies z.ZodMiniType<SecretWithValue>;

/** Body of {@link Secrets.create}: a name and a value, and optionally a type and an expiry. */
export interface SecretCreateParams {
  /** The secret's name. */
  name: string;
  /** The value to store: names mapped to string values. */
  value: SecretValue;
  /** A short kind label such as `generic` or `login`; omitted, the service's default. */
  type?: string | undefined;
  /**
   * When the secret expires: an ISO 8601 timestamp, or `null` for never; omitted, the service's
   * default.
   */
  expired_at?: string | null | undefined;
  /** Whether to delete the secret once `expired_at` has passed; omitted, the service's default. */
  delete_after_expired?: boolean | undefined;
}
/** Checks a `SecretCreateParams` body before it is sent. */
export const SecretCreateParams = z.object({
  name: z.string(),
  value: SecretValue,
  type: z.optional(z.string()),
  expired_at: z.optional(z.nullable(z.string())),
  delete_after_expired: z.optional(z.boolean()),
}) satisfies z.ZodMiniType<SecretCreateParams, SecretCreateParams>;

/** Body of {@link Secrets.update}: a new name, and/or a value that replaces the whole stored value. */
export interface SecretUpdateParams {
  /** A new name; omitted, the name is kept. */
  name?: string | undefined;
  /**
   * A value that replaces the whole stored value (keys are not merged); omitted, the value is
   * kept.
   */
  value?: SecretValue | undefined;
}
/** Checks a `SecretUpdateParams` body before it is sent. */
export const SecretUpdateParams = z.object({
  name: z.optional(z.string()),
  value: z.optional(SecretValue),
}) satisfies z.ZodMiniType<SecretUpdateParams, SecretUpdateParams>;

/** Query parameters of {@link Secrets.list}. */
export type SecretListParams = ListParams;
/** Checks `SecretListParams` before they are sent. */
export const SecretListParams = ListParams;

/**
 * Options of the startup calls ({@link Secrets.load}, {@link Secrets.resolveReferences}):
 * request options, and how long to wait out an unavailable service.
 */
export interface StartupOptions extends RequestOptions {
  /**
   * Milliseconds to keep retrying while the service is unavailable (connection failure,
   * timeout, 408, 429, 5xx), with jittered backoff capped at 8 s; then the call fails with the
   * last error. A verdict (400, 401, 403, 404, 422) fails at once, whatever `wait` says. `0`
   * means the client's ordinary retry policy, and so does passing `maxRetries`. A whole number
   * from 0, or `Infinity`. The last attempt may start just before the deadline and run for its
   * `timeout`.
   * @default process.env.SECRETS_VAULT_WAIT (milliseconds, or a duration such as `2m`) where
   *   `process` exists, else 60000
   */
  readonly wait?: number | undefined;
}

/** Options of {@link Secrets.load}: startup options, and a schema for the loaded record. */
export interface LoadOptions<Schema extends StandardSchemaV1 | undefined = undefined>
  extends StartupOptions {
  /**
   * Any Standard Schema (zod, valibot, arktype, or a hand-written `~standard` object) that the
   * record of secrets keyed by name must satisfy; `load` then resolves to its output.
   */
  readonly schema?: Schema | undefined;
}

/** The strings of a value the caller sent, so an error can never echo them back. */
function valueStrings(params: unknown): string[] {
  const value = (params as { value?: unknown } | null | undefined)?.value;
  if (typeof value !== 'object' || value === null) return [];
  return Object.values(value).filter((item): item is string => typeof item === 'string');
}

/** Secrets: `client.secrets`. */
export class Secrets extends APIResource {
  /**
   * Lists the live secrets of a vault (metadata only, no values), newest first.
   *
   * @example
   * ```ts
   * for await (const secret of client.secrets.list(vaultId)) console.log(secret.name);
   * ```
   */
  list(
    vaultId: string,
    params: SecretListParams = {},
    options?: RequestOptions,
  ): PagePromise<Secret> {
    return this.core.list({
      operation: 'secrets.list',
      method: 'GET',
      path: '/vaults/{vaultId}/secrets',
      pathParams: { vaultId },
      query: { value: params, schema: SecretListParams },
      expected: { kind: 'page', schema: Secret },
      options,
    });
  }

  /**
   * Creates a secret in a vault and returns its metadata (never the value). Sent with an
   * `Idempotency-Key`, so retries never create a second secret.
   *
   * @example
   * ```ts
   * const secret = await client.secrets.create(vaultId, {
   *   name: 'stripe',
   *   value: { api_key: process.env.STRIPE_KEY ?? '' },
   *   type: 'api_key',
   * });
   * ```
   */
  create(
    vaultId: string,
    params: SecretCreateParams,
    options?: RequestOptions,
  ): APIPromise<Secret> {
    return this.core.request({
      operation: 'secrets.create',
      method: 'POST',
      path: '/vaults/{vaultId}/secrets',
      pathParams: { vaultId },
      body: { value: params, schema: SecretCreateParams },
      sensitive: valueStrings(params),
      idempotent: true,
      expected: { kind: 'data', schema: Secret },
      options,
    });
  }

  /**
   * Renames a secret and/or replaces its whole value (keys are not merged).
   *
   * @example
   * ```ts
   * await client.secrets.update(secretId, { value: { password: newPassword } });
   * ```
   */
  update(
    secretId: string,
    params: SecretUpdateParams,
    options?: RequestOptions,
  ): APIPromise<Secret> {
    return this.core.request({
      operation: 'secrets.update',
      method: 'PATCH',
      path: '/secrets/{secretId}',
      pathParams: { secretId },
      body: { value: params, schema: SecretUpdateParams },
      sensitive: valueStrings(params),
      expected: { kind: 'data', schema: Secret },
      options,
    });
  }

  /**
   * Archives a secret (a soft delete): it leaves listings and the values endpoint.
   *
   * @example
   * ```ts
   * await client.secrets.delete(secretId);
   * ```
   */
  delete(secretId: string, options?: RequestOptions): APIPromise<void> {
    return this.core.request({
      operation: 'secrets.delete',
      method: 'DELETE',
      path: '/secrets/{secretId}',
      pathParams: { secretId },
      expected: { kind: 'nothing' },
      options,
    });
  }

  /**
   * Reads one secret with its decrypted value.
   *
   * @example
   * ```ts
   * const { value } = await client.secrets.getValue(secretId);
   * connect(value.username, value.password);
   * ```
   */
  getValue(secretId: string, options?: RequestOptions): APIPromise<SecretWithValue> {
    return this.core.request({
      operation: 'secrets.getValue',
      method: 'GET',
      path: '/secrets/{secretId}/value',
      pathParams: { secretId },
      expected: { kind: 'data', schema: SecretWithValue },
      options,
    });
  }

  /**
   * Loads a vault's secrets as configuration, in one request to the values endpoint: a record
   * keyed by secret name whose values are the secrets' value objects, or, with a `schema`, the
   * schema's output. Printing the result (`console.log`, `util.inspect`, `JSON.stringify`, and
   * so every structured logger) shows `[REDACTED]` for every value; reading a property gives the
   * real string.
   *
   * Made for the moment a job starts, which is often when the service is struggling: it waits
   * out an unavailable service for `wait` (default 60 s), retrying with jittered backoff, and
   * fails at once on a verdict (a refused token, an unknown vault).
   *
   * @throws {SecretsSchemaError} when two live secrets share a name (checked first), or the
   *   schema rejects the record: every failing path is listed, never a value
   * @throws {APIConnectionError} (or the error class of the last answer, such as
   *   `InternalServerError`) when the service stayed unavailable for the whole `wait`
   * @example
   * ```ts
   * import * as z from 'zod';
   *
   * const config = await client.secrets.load(vaultId, {
   *   schema: z.object({ database: z.object({ url: z.url(), password: z.string() }) }),
   * });
   * connect(config.database.url, config.database.password);
   * ```
   */
  async load<Schema extends StandardSchemaV1 | undefined = undefined>(
    vaultId: string,
    options: LoadOptions<Schema> = {},
  ): Promise<LoadResult<Schema>> {
    const { schema, wait, ...requestOptions } = options;
    const secrets = await this.#values('secrets.load', vaultId, requestOptions, wait ?? 'default');
    return (await buildLoaded(secrets, schema)) as LoadResult<Schema>;
  }

  /**
   * Returns a copy of a record (such as `process.env`) in which every
   * `vault://<vaultId>/<secret name>/<key>` reference (each part percent-encoded) is replaced by
   * the value it names; other values pass unchanged. Each vault referenced is read once, however
   * many references point into it, at most 8 at a time. Like {@link Secrets.load}, it waits out an
   * unavailable service for `wait`.
   *
   * @throws {SecretReferenceError} for a malformed reference (before any request), or one that
   *   names a secret or key the vault does not have
   * @example
   * ```ts
   * // DATABASE_PASSWORD=vault://vlt_123/database/password node server.js
   * const env = await client.secrets.resolveReferences(process.env);
   * connect(env.DATABASE_PASSWORD);
   * ```
   */
  resolveReferences<Values extends Record<string, string | undefined>>(
    record: Values,
    options: StartupOptions = {},
  ): Promise<{ [Key in keyof Values]: Values[Key] }> {
    const { wait, ...requestOptions } = options;
    // Loaded on demand: a page that never resolves a reference never downloads the code.
    return import('../startup/reference-lookup.js').then(async ({ lookUpReferences }) => {
      const result = await lookUpReferences(record, (vaultId) =>
        this.#values('secrets.resolveReferences', vaultId, requestOptions, wait ?? 'default'),
      );
      if ('problem' in result) throw new SecretReferenceError(result.reference, result.problem);
      return result.resolved;
    });
  }

  /**
   * Reads every live secret of a vault with its value, in one call (not paginated): what a job
   * needs at startup.
   *
   * @example
   * ```ts
   * const secrets = await client.secrets.listValues(vaultId);
   * const config = Object.fromEntries(secrets.map((secret) => [secret.name, secret.value]));
   * ```
   */
  listValues(vaultId: string, options?: RequestOptions): APIPromise<SecretWithValue[]> {
    return this.#values('secrets.listValues', vaultId, options, undefined);
  }

  /**
   * The values endpoint, as an ordinary call or as a startup call that waits (`wait`); reported
   * to telemetry as `operation`, the public method it serves.
   */
  #values(
    operation: 'secrets.listValues' | 'secrets.load' | 'secrets.resolveReferences',
    vaultId: string,
    options: RequestOptions | undefined,
    wait: number | 'default' | undefined,
  ): APIPromise<SecretWithValue[]> {
    return this.core.request<'/vaults/{vaultId}/secrets/values', SecretWithValue[]>({
      operation,
      method: 'GET',
      path: '/vaults/{vaultId}/secrets/values',
      pathParams: { vaultId },
      expected: { kind: 'items', schema: SecretWithValue },
      options,
      wait,
    });
  }
}
