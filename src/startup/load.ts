/**
 * Turning the values of a vault into what a job starts with: a record keyed by secret name, or
 * the output of the caller's schema, printing as `[REDACTED]` either way.
 */
import { SecretsSchemaError } from '../core/errors.js';
import { scrubServerText, sensitiveStrings } from '../core/redaction.js';
import type { LoadedSecrets, NamedValue } from './loaded-record.js';
import { redactWhenPrinted } from './redacted.js';
import type { StandardSchemaV1 } from './standard-schema.js';

export type { LoadedSecrets, NamedValue } from './loaded-record.js';

/** What `load` resolves to: the schema's output, or {@link LoadedSecrets} without one. */
export type LoadResult<Schema extends StandardSchemaV1 | undefined> =
  Schema extends StandardSchemaV1 ? StandardSchemaV1.InferOutput<Schema> : LoadedSecrets;

/**
 * Builds the loaded record from the live secrets of a vault, and validates it with `schema`.
 *
 * @throws {SecretsSchemaError} when two secrets share a name, or the schema rejects the record
 */
export async function buildLoaded(
  secrets: readonly NamedValue[],
  schema: StandardSchemaV1 | undefined,
): Promise<unknown> {
  // Checked before any schema runs: which of the two a record would keep is arbitrary.
  const built = (await loadedRecord()).recordOf(secrets);
  if ('issues' in built) throw new SecretsSchemaError(built.issues);
  return validateLoaded(built.record, schema);
}

/**
 * Validates a loaded record with `schema` (when there is one) and makes the result print as
 * `[REDACTED]`; the cache applies each caller's schema to its cached record through this.
 * `record` is handed to the schema as is: pass a copy of anything shared.
 *
 * @throws {SecretsSchemaError} when the schema rejects the record, or throws: every message is
 *   scrubbed of every value of `record`, and the thrown error is not kept
 */
export async function validateLoaded(
  record: LoadedSecrets,
  schema: StandardSchemaV1 | undefined,
): Promise<unknown> {
  if (schema === undefined) return redactWhenPrinted(record);
  const result = await (await loadedRecord()).runSchema(record, schema);
  if ('value' in result) return redactWhenPrinted(result.value);
  // A validator may quote what it received ("received 'hunter2'"): every value is scrubbed.
  const secrets = sensitiveStrings(Object.values(record).flatMap((value) => Object.values(value)));
  throw new SecretsSchemaError(
    result.issues.map(({ path, message }) => ({
      path,
      message: scrubServerText(message, secrets),
    })),
  );
}

// Loaded on demand: a page that never loads secrets never downloads the code.
const loadedRecord = () => import('./loaded-record.js');
