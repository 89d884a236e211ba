/**
 * Turning the values of a vault into what a job starts with: a record keyed by secret name, or
 * the output of the caller's schema, printing as `[REDACTED]` either way.
 */
import { SecretsSchemaError, type ValidationIssue } from '../core/errors.js';
import { scrubServerText, sensitiveStrings } from '../core/redaction.js';
import { redactWhenPrinted } from './redacted.js';
import type { StandardSchemaV1 } from './standard-schema.js';

/**
 * The secrets of a vault keyed by name, each its value (names mapped to string values): what
 * `load` gives without a schema.
 */
export type LoadedSecrets = Record<string, Record<string, string>>;

/**
 * @internal What loading reads of a secret: its name and its value. Declared here rather than
 * imported from the resource, which calls down into this file.
 */
export interface NamedValue {
  readonly name: string;
  readonly value: Readonly<Record<string, string>>;
}

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
  const counts = new Map<string, number>();
  for (const { name } of secrets) counts.set(name, (counts.get(name) ?? 0) + 1);
  const duplicates = [...counts].filter(([, count]) => count > 1);
  if (duplicates.length > 0) {
    // Checked before any schema runs: which of the two a record would keep is arbitrary.
    throw new SecretsSchemaError(
      duplicates.map(([name, count]) => ({
        path: [name],
        message: `is the name of ${count} live secrets; a record keyed by name cannot hold them`,
      })),
    );
  }
  // Object.fromEntries defines each key as data, so a secret named `__proto__` is just a key.
  const record: LoadedSecrets = Object.fromEntries(
    secrets.map((secret) => [secret.name, { ...secret.value }]),
  );
  return validateLoaded(record, schema);
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

  // A validator may quote what it received ("received 'hunter2'"): every value is scrubbed.
  const scrub = (text: string) =>
    scrubServerText(
      text,
      sensitiveStrings(Object.values(record).flatMap((value) => Object.values(value))),
    );
  let result: StandardSchemaV1.Result<unknown>;
  try {
    result = await schema['~standard'].validate(record);
  } catch (thrown) {
    // A transform that throws ("cannot parse <value>"): only its message is kept, scrubbed, as
    // an issue; the error itself (its stack, its cause) may hold the value, and is dropped.
    let message = 'a value that cannot be printed';
    try {
      message = String(thrown instanceof Error ? thrown.message : thrown);
    } catch {
      // A thrown object whose toString throws: the placeholder says so.
    }
    throw new SecretsSchemaError([{ path: [], message: scrub(`the schema threw: ${message}`) }]);
  }
  if (result.issues !== undefined) {
    throw new SecretsSchemaError(
      result.issues.map(
        (issue): ValidationIssue => ({
          path: (issue.path ?? []).map(pathKey),
          message: scrub(issue.message),
        }),
      ),
    );
  }
  return redactWhenPrinted(result.value);
}

function pathKey(segment: PropertyKey | StandardSchemaV1.PathSegment): string | number {
  const key = typeof segment === 'object' ? segment.key : segment;
  return typeof key === 'symbol' ? String(key) : key;
}
