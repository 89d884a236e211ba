/**
 * The success half of the envelope every /v1 response wears (api-contract.md §4):
 * `{ statusCode, errorCode: null, message: null, data }`, plus `next_cursor` beside `data` on
 * paginated lists. Failures are read by `makeAPIError` in errors.ts.
 */
import * as z from 'zod/mini';
import { ResponseValidationError } from './errors.js';
import { check } from './validation.js';

/** What a route answers with on success. */
export type Expected<T> =
  | { readonly kind: 'nothing' }
  | { readonly kind: 'data'; readonly schema: z.ZodMiniType<T> }
  | { readonly kind: 'page'; readonly schema: z.ZodMiniType<T> };

/** The unwrapped body of a paginated list. */
export interface PageBody<T> {
  readonly items: T[];
  readonly nextCursor: string | null;
}

const SuccessEnvelope = z.object({
  statusCode: z.number(),
  errorCode: z.null(),
  message: z.nullable(z.string()),
  data: z.unknown(),
});

const PageEnvelope = z.object({ next_cursor: z.nullable(z.string()) });

// One array schema per item schema, built on first use rather than on every page.
const arraySchemas = new WeakMap<z.ZodMiniType, z.ZodMiniType<unknown[]>>();

function arrayOf(item: z.ZodMiniType): z.ZodMiniType<unknown[]> {
  let schema = arraySchemas.get(item);
  if (schema === undefined) {
    schema = z.array(item);
    arraySchemas.set(item, schema);
  }
  return schema;
}

/**
 * Reads a 2xx body as the envelope and checks `data` against what the route promises.
 *
 * @throws {ResponseValidationError} when the body is not the envelope or `data` does not fit
 */
export function readSuccess(
  response: Response,
  text: string,
  expected: Expected<unknown>,
): unknown {
  const fail = (path: Array<string | number>, message: string): never => {
    throw new ResponseValidationError(response.status, response.headers, [{ path, message }]);
  };

  if (text.trim() === '') {
    // 204 (and an empty 200) carry no envelope; only routes that return nothing may send one.
    if (expected.kind === 'nothing') return undefined;
    return fail([], `expected a JSON envelope, got an empty body`);
  }

  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return fail([], 'body is not valid JSON');
  }

  const envelope = check(SuccessEnvelope, body);
  if (!envelope.ok) {
    throw new ResponseValidationError(response.status, response.headers, envelope.issues);
  }
  if (envelope.value.statusCode !== response.status) {
    fail(['statusCode'], `does not match the HTTP status ${response.status}`);
  }
  if (expected.kind === 'nothing') return undefined;

  if (expected.kind === 'data') {
    const data = check(expected.schema, envelope.value.data, ['data']);
    if (!data.ok) throw new ResponseValidationError(response.status, response.headers, data.issues);
    return data.value;
  }

  const page = check(PageEnvelope, body);
  const items = check(arrayOf(expected.schema), envelope.value.data, ['data']);
  const issues = [...(page.ok ? [] : page.issues), ...(items.ok ? [] : items.issues)];
  if (!page.ok || !items.ok) {
    throw new ResponseValidationError(response.status, response.headers, issues);
  }
  return { items: items.value, nextCursor: page.value.next_cursor } satisfies PageBody<unknown>;
}
