/**
 * What the per-resource suites share: the inputs the client must refuse or encode, the
 * assertions on what reached the server, and the table-driven checks of every path parameter.
 */
import { describe, expect, it } from 'vitest';
import { RequestValidationError, type SecretsVault } from '../../src/index.js';
import { createClient, fail, route, type SeenRequest, TOKEN } from '../helpers.js';
import { rejectionOf } from '../rejection.js';

/** An HTTP method as the test server's `route` takes it. */
export type Method = 'get' | 'post' | 'patch' | 'delete';

/** A version 4 UUID, as the SDK generates for an `Idempotency-Key`. */
export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** An idempotency key a caller may choose. */
export const CALLER_KEY = 'job-42/create';

/** Caller keys the service refuses (1 to 255 printable characters), with what is wrong. */
export const INVALID_KEYS: Array<[string, string]> = [
  ['empty', ''],
  ['256 characters long', 'k'.repeat(256)],
  ['not ASCII', 'clé-42'],
  ['holding a newline', 'job\n42'],
  ['starting with a space', ' job-42'],
];

/** Ids that must stay one path segment, and how that segment must reach the server. */
export const ENCODED_IDS: Array<{ id: string; encoded: string }> = [
  { id: '../org', encoded: '..%2Forg' },
  { id: 'a/b?x', encoded: 'a%2Fb%3Fx' },
  { id: '%2F', encoded: '%252F' },
  { id: 'héllo wörld', encoded: 'h%C3%A9llo%20w%C3%B6rld' },
];

/** Ids that would resolve to another route even when percent-encoded. */
export const ESCAPING_IDS = ['', '.', '..'];

/** Two-xx answers a create must accept, with and without `Location`. */
export const SUCCESS_ANSWERS = [200, 201, 202].flatMap((status) => [
  { status, location: true },
  { status, location: false },
]);

/** Asserts what the server saw: method, raw path, query, auth, accept, content type and body. */
export function expectSent(
  request: SeenRequest | undefined,
  expected: { method: string; rawPath: string; search?: string; body?: unknown },
): void {
  expect(request?.method).toBe(expected.method);
  expect(request?.rawPath).toBe(expected.rawPath);
  expect(request?.url.search).toBe(expected.search ?? '');
  expect(request?.headers.get('authorization')).toBe(`Bearer ${TOKEN}`);
  expect(request?.headers.get('accept')).toBe('application/json');
  expect(request?.headers.get('content-type')).toBe(
    expected.body === undefined ? null : 'application/json',
  );
  expect(request?.body).toEqual(expected.body);
}

/** Records every request under /v1, whatever its method or path, to prove nothing was sent. */
export function recordEverything(): () => SeenRequest[] {
  const methods: Method[] = ['get', 'post', 'patch', 'delete'];
  const recorders = methods.map((method) => route(method, '/*', () => fail(418, 'unexpected')));
  return () => recorders.flat();
}

/** Awaits a call that must be refused before sending and returns its error. */
export async function refusal(call: PromiseLike<unknown>): Promise<RequestValidationError> {
  const error = await rejectionOf(call);
  expect(error).toBeInstanceOf(RequestValidationError);
  return error as RequestValidationError;
}

/** The dotted paths of a refusal's issues. */
export function issuePaths(error: RequestValidationError): string[] {
  return error.issues.map((issue) => issue.path.join('.'));
}

/** One path parameter of one method, and how to call it with a given id. */
export interface IdCall {
  readonly call: string;
  readonly param: string;
  readonly method: Method;
  /** The test server's pattern for the route. */
  readonly pattern: string;
  readonly run: (client: SecretsVault, id: string) => PromiseLike<unknown>;
  /** The raw path the server must see when the parameter is `segment`. */
  readonly rawPath: (segment: string) => string;
  readonly answer: () => Response;
}

/** Proves, for each path parameter of a namespace, that ids are encoded and escapes refused. */
export function describePathParameters(namespace: string, idCalls: readonly IdCall[]): void {
  describe(`${namespace} path parameters`, () => {
    const encodingCases = idCalls.flatMap((idCall) =>
      ENCODED_IDS.map(({ id, encoded }) => ({ ...idCall, id, encoded })),
    );

    it.each(encodingCases)(
      '$call keeps the $param $id inside one segment as $encoded',
      async ({ method, pattern, run, rawPath, answer, id, encoded }) => {
        const seen = route(method, pattern, () => answer());
        await run(createClient(), id);
        expect(seen).toHaveLength(1);
        expect(seen[0]?.rawPath).toBe(rawPath(encoded));
      },
    );

    const escapingCases = idCalls.flatMap((idCall) =>
      ESCAPING_IDS.map((id) => ({ ...idCall, id })),
    );

    it.each(escapingCases)(
      '$call refuses the $param $id before sending',
      async ({ run, param, id }) => {
        const sent = recordEverything();
        const error = await refusal(run(createClient(), id));
        expect(issuePaths(error)).toEqual([param]);
        expect(sent()).toEqual([]);
      },
    );
  });
}
