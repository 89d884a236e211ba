/**
 * Turning the values of a vault into what a job starts with: a record keyed by secret name, or
 * the output of the caller's schema, printing as `[REDACTED]` either way.
 */
import { SecretsSchemaError, type ValidationIssue } from '../core/errors.js';
import { scrubServerText, sensitiveForms } from '../core/redaction.js';
import type { SecretValue, SecretWithValue } from '../resources/secrets.js';
import { redactWhenPrinted } from './redacted.js';
import type { StandardSchemaV1 } from './standard-schema.js';

/** The secrets of a vault keyed by name, each its value object: what `load` gives without a schema. */
export type LoadedSecrets = Record<string, SecretValue>;

/** What `load` resolves to: the schema's output, or {@link LoadedSecrets} without one. */
export type LoadResult<Schema extends StandardSchemaV1 | undefined> =
  Schema extends StandardSchemaV1 ? StandardSchemaV1.InferOutput<Schema> : LoadedSecrets;

/**
 * Builds the loaded record from the live secrets of a vault, and validates it with `schema`.
 *
 * @throws {SecretsSchemaError} when two secrets share a name, or the schema rejects the record
 */
export async function buildLoaded(
  secrets: readonly SecretWithValue[],
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
  if (schema === undefined) return redactWhenPrinted(record);

  const result = await schema['~standard'].validate(record);
  if (result.issues !== undefined) {
    // A validator may quote what it received ("received 'hunter2'"): every value is scrubbed.
    const forms = sensitiveForms(secrets.flatMap((secret) => Object.values(secret.value)));
    throw new SecretsSchemaError(
      result.issues.map(
        (issue): ValidationIssue => ({
          path: (issue.path ?? []).map(pathKey),
          message: scrubServerText(issue.message, forms),
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
