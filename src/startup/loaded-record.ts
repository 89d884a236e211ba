/**
 * Building the record `load` gives and running the caller's schema on it. load.ts loads this on
 * demand, so a page that never loads secrets never downloads it; it imports no code of the SDK
 * for that reason (a bundler would otherwise move what it shares with the page into a chunk of
 * its own), and hands back what went wrong for load.ts to scrub and throw.
 */
import type { ValidationIssue } from '../core/validation.js';
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

/** @internal The record keyed by secret name, or why a record keyed by name cannot hold them. */
export function recordOf(
  secrets: readonly NamedValue[],
): { readonly record: LoadedSecrets } | { readonly issues: ValidationIssue[] } {
  const counts = new Map<string, number>();
  for (const { name } of secrets) counts.set(name, (counts.get(name) ?? 0) + 1);
  const duplicates = [...counts].filter(([, count]) => count > 1);
  if (duplicates.length > 0) {
    return {
      issues: duplicates.map(([name, count]) => ({
        path: [name],
        message: `is the name of ${count} live secrets; a record keyed by name cannot hold them`,
      })),
    };
  }
  // Object.fromEntries defines each key as data, so a secret named `__proto__` is just a key.
  return {
    record: Object.fromEntries(secrets.map((secret) => [secret.name, { ...secret.value }])),
  };
}

/**
 * @internal What `schema` makes of `record`: its output, or its issues (a schema that throws
 * gives one issue with the message it threw). The messages are as the schema wrote them, values
 * and all: the caller scrubs them. The thrown error itself (its stack, its cause) is dropped.
 */
export async function runSchema(
  record: LoadedSecrets,
  schema: StandardSchemaV1,
): Promise<{ readonly value: unknown } | { readonly issues: ValidationIssue[] }> {
  let result: StandardSchemaV1.Result<unknown>;
  try {
    result = await schema['~standard'].validate(record);
  } catch (thrown) {
    // A transform that throws ("cannot parse <value>"): only its message is kept.
    let message = 'a value that cannot be printed';
    try {
      message = String(thrown instanceof Error ? thrown.message : thrown);
    } catch {
      // A thrown object whose toString throws: the placeholder says so.
    }
    return { issues: [{ path: [], message: `the schema threw: ${message}` }] };
  }
  if (result.issues === undefined) return { value: result.value };
  return {
    issues: result.issues.map((issue) => ({
      path: (issue.path ?? []).map(pathKey),
      message: issue.message,
    })),
  };
}

function pathKey(segment: PropertyKey | StandardSchemaV1.PathSegment): string | number {
  const key = typeof segment === 'object' ? segment.key : segment;
  return typeof key === 'symbol' ? String(key) : key;
}
