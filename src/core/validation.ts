/**
 * Checks a value against a zod schema and describes what failed without ever quoting the value:
 * inputs are secret values as often as not.
 */
import * as z from 'zod/mini';
import { acceptsAtOnce } from './fast-accept.js';

/** One rule that a value broke, located by its path in the request or response. */
export interface ValidationIssue {
  /** Where the value sits, such as `['value', 'password']` or `['data', 3, 'created_at']`. */
  readonly path: ReadonlyArray<string | number>;
  /** What was expected, written for people; never the value itself. */
  readonly message: string;
}

/** The most bytes a POST or PATCH body may have: the service accepts at most 1 MB. */
export const MAX_BODY_BYTES = 1_000_000;

/** Result of {@link check}: the value on success, the issues otherwise. */
export type CheckResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly issues: readonly ValidationIssue[] };

/**
 * Validates `value` with `schema`. The caller's own object is returned on success (not zod's
 * copy), so fields a newer server adds stay readable at run time.
 */
export function check<T>(
  schema: z.ZodMiniType<T>,
  value: unknown,
  pathPrefix: ReadonlyArray<string | number> = [],
): CheckResult<T> {
  if (acceptsAtOnce(schema)(value)) return { ok: true, value: value as T };
  const result = z.safeParse(schema, value);
  if (result.success) return { ok: true, value: value as T };
  return {
    ok: false,
    issues: result.error.issues.map((issue) => ({
      path: [
        ...pathPrefix,
        ...issue.path.map((key) => (typeof key === 'symbol' ? String(key) : key)),
      ],
      message: describe(issue, valueAt(value, issue.path)),
    })),
  };
}

// zod/mini ships no messages ("Invalid input"), and zod's full locale would add to the bundle;
// these say what was expected and never echo what was received.
/**
 * @internal Checks that `value` is an array whose every item passes `schema`, item by item:
 * the same issues as `z.array(schema)` would give, without zod's array in the bundle.
 */
export function checkItems<T>(
  schema: z.ZodMiniType<T>,
  value: unknown,
  path: ReadonlyArray<string | number>,
): CheckResult<T[]> {
  if (!Array.isArray(value)) return { ok: false, issues: [{ path, message: 'expected array' }] };
  // A page or a values list has hundreds of items: those the fast path takes cost no result,
  // no path and no lookup of their own.
  const accepts = acceptsAtOnce(schema);
  const issues: ValidationIssue[] = [];
  for (let index = 0; index < value.length; index += 1) {
    const item: unknown = value[index];
    if (accepts(item)) continue;
    const result = check(schema, item, [...path, index]);
    if (!result.ok) issues.push(...result.issues);
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, value: value as T[] };
}

// The SDK's schemas use types, enums and refinements (which carry their own message) and nothing
// else, so these are the only issues to put in words.
function describe(issue: z.core.$ZodIssue, received: unknown): string {
  if (issue.message && issue.message !== 'Invalid input') return issue.message;
  switch (issue.code) {
    case 'invalid_type':
      return received === undefined ? 'is required' : `expected ${issue.expected}`;
    case 'invalid_value':
      return `expected one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`;
    default:
      return 'is invalid';
  }
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let current = root;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}
