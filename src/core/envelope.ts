/**
 * The envelope every /v1 response wears: `{ statusCode, errorCode, message, data }`, plus
 * `next_cursor` beside `data` on paginated lists. Success and failure never mix: on success
 * `errorCode` is null, on failure `data` is null. Both halves are read here, and nothing here
 * throws: callers turn what is found into the right error with the details of their call.
 */
import * as z from 'zod/mini';
import { check, checkItems, type ValidationIssue } from './validation.js';

/** What a route answers with on success. */
export type Expected<T> =
  | { readonly kind: 'nothing' }
  | { readonly kind: 'data'; readonly schema: z.ZodMiniType<T> }
  /** `data` is an array of `schema` (checked item by item, with no zod array in the bundle). */
  | { readonly kind: 'items'; readonly schema: z.ZodMiniType<ItemOf<T>> }
  | { readonly kind: 'page'; readonly schema: z.ZodMiniType<T> };

/** @internal The item type of an array type. */
export type ItemOf<T> = T extends readonly (infer Item)[] ? Item : never;

/** The unwrapped body of a paginated list. */
export interface PageBody<T> {
  readonly items: T[];
  readonly nextCursor: string | null;
}

/** The outcome of reading a success body: the unwrapped data, or what was wrong with it. */
export type SuccessResult =
  | { readonly ok: true; readonly data: unknown }
  | { readonly ok: false; readonly issues: readonly ValidationIssue[] };

// `custom` rather than `null()` and `unknown()`: the SDK's schemas need `custom` anyway, and two
// more zod classes would only add to every browser bundle.
const SuccessEnvelope = z.object({
  statusCode: z.number(),
  errorCode: z.custom<null>((value) => value === null, 'expected null'),
  message: z.nullable(z.string()),
  data: z.custom<unknown>(),
});

const PageEnvelope = z.object({ next_cursor: z.nullable(z.string()) });

const invalid = (path: Array<string | number>, message: string): SuccessResult => ({
  ok: false,
  issues: [{ path, message }],
});

/**
 * Reads a 2xx body as the envelope and checks `data` against what the route promises; a page
 * comes back as a {@link PageBody}.
 */
export function readSuccess(
  status: number,
  text: string,
  expected: Expected<unknown>,
): SuccessResult {
  // A test for any non-space rather than `trim()`, which would copy a body of megabytes.
  if (!/\S/.test(text)) {
    // 204 (and an empty 200) carry no envelope; only routes that return nothing may send one.
    if (expected.kind === 'nothing') return { ok: true, data: undefined };
    return invalid([], 'expected a JSON envelope, got an empty body');
  }

  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return invalid([], 'body is not valid JSON');
  }

  const envelope = check(SuccessEnvelope, body);
  if (!envelope.ok) return envelope;
  if (envelope.value.statusCode !== status) {
    return invalid(['statusCode'], `does not match the HTTP status ${status}`);
  }
  if (expected.kind === 'nothing') return { ok: true, data: undefined };

  if (expected.kind !== 'page') {
    const data =
      expected.kind === 'data'
        ? check(expected.schema, envelope.value.data, ['data'])
        : checkItems(expected.schema, envelope.value.data, ['data']);
    return data.ok ? { ok: true, data: data.value } : data;
  }

  const page = check(PageEnvelope, body);
  const items = checkItems(expected.schema, envelope.value.data, ['data']);
  if (!page.ok || !items.ok) {
    return {
      ok: false,
      issues: [...(page.ok ? [] : page.issues), ...(items.ok ? [] : items.issues)],
    };
  }
  const pageBody: PageBody<unknown> = { items: items.value, nextCursor: page.value.next_cursor };
  return { ok: true, data: pageBody };
}

/** The `errorCode` and `message` of a failure envelope. */
export interface FailureEnvelope {
  readonly errorCode: string;
  readonly message: string | null;
}

/**
 * Reads a non-2xx body (text or already parsed) as the failure envelope; `undefined` when it is
 * not one, or when its `statusCode` disagrees with the HTTP status it came with.
 */
export function readFailureEnvelope(status: number, body: unknown): FailureEnvelope | undefined {
  let parsed = body;
  if (typeof body === 'string') {
    try {
      parsed = JSON.parse(body);
    } catch {
      return undefined;
    }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const { statusCode, errorCode, message, data } = parsed as Record<string, unknown>;
  if (statusCode !== status || typeof errorCode !== 'string' || data != null) return undefined;
  return { errorCode, message: typeof message === 'string' ? message : null };
}
