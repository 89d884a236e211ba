/**
 * What the per-resource suites share: one table row per method, and the checks every method of a
 * kind must pass (each path parameter, each list's query, unknown fields, a delete answered 200).
 * wire.test.ts proves what every method sends and returns, and validation.test.ts the input rules
 * for one method each; these checks cover the methods those suites do not.
 */
import { describe, expect, it } from 'vitest';
import {
  type ListParams,
  type RequestOptions,
  RequestValidationError,
  type SecretsVault,
} from '../../src/index.js';
import { createClient, fail, noContent, ok, route, type SeenRequest } from '../helpers.js';
import { rejectionOf } from '../rejection.js';

/** An HTTP method as the test server's `route` takes it. */
type Method = 'get' | 'post' | 'patch' | 'delete';

/** An idempotency key a caller may choose. */
export const CALLER_KEY = 'job-42/create';

/**
 * Ids that must stay one path segment, and how that segment must reach the server. wire.test.ts
 * already sends `a/b?x` through every path parameter, so it is not repeated here.
 */
export const ENCODED_IDS: ReadonlyArray<{ id: string; encoded: string }> = [
  { id: '../org', encoded: '..%2Forg' },
  { id: '%2F', encoded: '%252F' },
  { id: 'héllo wörld', encoded: 'h%C3%A9llo%20w%C3%B6rld' },
];

/** Ids that would resolve to another route even when percent-encoded. */
export const ESCAPING_IDS = ['', '.', '..'];

/** Two-xx answers a create must accept, with and without `Location` (wire.test.ts runs them). */
export const SUCCESS_ANSWERS = [200, 201, 202].flatMap((status) => [
  { status, location: true },
  { status, location: false },
]);

/**
 * Calls `run` on a fresh client, expects a RequestValidationError (naming exactly the dotted
 * `paths`, when given), and proves nothing reached the server, whatever its method or path.
 * Returns the error.
 */
export async function expectRefusedBeforeSending(
  run: (client: SecretsVault) => PromiseLike<unknown>,
  paths?: readonly string[],
): Promise<RequestValidationError> {
  const methods: Method[] = ['get', 'post', 'patch', 'delete'];
  const recorders = methods.map((method) => route(method, '/*', () => fail(418, 'unexpected')));
  const error = await rejectionOf(run(createClient()));

  expect(error).toBeInstanceOf(RequestValidationError);
  if (paths !== undefined) {
    const issues = (error as RequestValidationError).issues;
    expect(issues.map((issue) => issue.path.join('.'))).toEqual(paths);
  }
  expect(recorders.flat()).toEqual([]);
  return error as RequestValidationError;
}

/** Every path parameter of the API. */
export interface PathIds {
  readonly vaultId: string;
  readonly secretId: string;
  readonly teamId: string;
  readonly memberId: string;
}

/** Ordinary ids, for the parameters a check does not vary. */
const ORDINARY_IDS: PathIds = {
  vaultId: 'vlt_1',
  secretId: 'sec_1',
  teamId: 'team_1',
  memberId: 'mem_1',
};

/** What the server answers a method with: one resource, a page of them, or a plain array. */
export interface Answer {
  readonly shape: 'one' | 'page' | 'array';
  /** One resource as the service sends it. */
  readonly sample: Readonly<Record<string, unknown>>;
  /** Fields, or values of open strings, that the SDK has never seen, to add to `sample`. */
  readonly unseen?: Readonly<Record<string, unknown>>;
}

function answerOf(shape: Answer['shape']) {
  return (sample: Answer['sample'], unseen?: Answer['unseen']): Answer =>
    unseen === undefined ? { shape, sample } : { shape, sample, unseen };
}

/** The method answers `sample` itself (with 201 for a create). */
export const one = answerOf('one');
/** The method answers a page of `sample`, with a `next_cursor`. */
export const page = answerOf('page');
/** The method answers a plain array of `sample`, without a `next_cursor`. */
export const array = answerOf('array');

/** One method of a namespace: how to call it and what the server answers. */
export interface ResourceMethod {
  /** The call as a user writes it, e.g. `vaults.members.update`. */
  readonly call: string;
  /** The HTTP method and the path under /v1, with `{name}` for each path parameter. */
  readonly route: `${Uppercase<Method>} /${string}`;
  /** What the server answers; none for a delete, which the service answers 204. */
  readonly answer?: Answer;
  /** Calls the method with these path parameters; a list also takes a query and options. */
  readonly run: (
    client: SecretsVault,
    ids: PathIds,
    query?: ListParams,
    options?: RequestOptions,
  ) => PromiseLike<unknown>;
}

/** Path checks that wire.test.ts already makes, each for one method, so they are skipped here. */
const PROVEN_IN_WIRE = { encoding: 'vaults.get', escaping: 'vaults.members.list' };

/** The route's HTTP method, as the test server's `route` takes it. */
function methodOf(resourceMethod: ResourceMethod): Method {
  return resourceMethod.route.split(' ')[0]?.toLowerCase() as Method;
}

/** The route's path under /v1, each `{name}` replaced by `fill(name)`. */
function pathOf(resourceMethod: ResourceMethod, fill: (name: string) => string): string {
  const template = resourceMethod.route.split(' ')[1] ?? '';
  return template.replace(/\{(\w+)\}/g, (_match, name: string) => fill(name));
}

/** The route as the test server's `route` matches it: `{name}` becomes `:name`. */
function patternOf(resourceMethod: ResourceMethod): string {
  return pathOf(resourceMethod, (name) => `:${name}`);
}

/** The path parameters of the route, in order. */
function paramsOf(resourceMethod: ResourceMethod): Array<keyof PathIds> {
  const template = resourceMethod.route.split(' ')[1] ?? '';
  return [...template.matchAll(/\{(\w+)\}/g)].map((match) => match[1] as keyof PathIds);
}

/** Answers every call of `resourceMethod` with `data`, shaped as the method's answer. */
function serve(
  resourceMethod: ResourceMethod,
  data = resourceMethod.answer?.sample,
): SeenRequest[] {
  const status = methodOf(resourceMethod) === 'post' ? 201 : 200;
  const answers = {
    page: () => ok([data], { nextCursor: null }),
    array: () => ok([data]),
    one: () => ok(data, { status }),
    none: () => noContent(),
  };
  return route(
    methodOf(resourceMethod),
    patternOf(resourceMethod),
    answers[resourceMethod.answer?.shape ?? 'none'],
  );
}

/** What the caller sees of a result: a page's items, or the value itself. */
async function outcomeOf(call: PromiseLike<unknown>): Promise<unknown> {
  const value = await call;
  return typeof value === 'object' && value !== null && 'nextCursor' in value && 'data' in value
    ? value.data
    : value;
}

/** `it.each` over `cases`, or no test at all: a namespace may have no method of a kind. */
function eachOf<T extends object>(
  cases: readonly T[],
  name: string,
  test: (testCase: T) => Promise<void>,
): void {
  if (cases.length > 0) it.each(cases)(name, test);
}

/**
 * Runs the checks every method of a kind must pass, for the methods of one namespace: each path
 * parameter stays one encoded segment and refuses ids that leave their route, each list sends its
 * query and refuses a bad limit, each read keeps what the SDK does not know, and each delete
 * accepts a 200 envelope.
 */
export function describeMethods(namespace: string, methods: readonly ResourceMethod[]): void {
  const pathCases = methods.flatMap((resourceMethod) =>
    paramsOf(resourceMethod).map((param) => ({ ...resourceMethod, param })),
  );
  const idsWith = (param: keyof PathIds, id: string): PathIds => ({ ...ORDINARY_IDS, [param]: id });
  const lists = methods.filter(({ answer }) => answer?.shape === 'page');

  describe(`${namespace}: what every method of its kind does`, () => {
    eachOf(
      pathCases
        .filter(({ call }) => call !== PROVEN_IN_WIRE.encoding)
        .flatMap((pathCase) => ENCODED_IDS.map((encoding) => ({ ...pathCase, ...encoding }))),
      '$call keeps the $param $id inside one segment as $encoded',
      async (testCase) => {
        const seen = serve(testCase);
        await testCase.run(createClient(), idsWith(testCase.param, testCase.id));
        const expected = pathOf(testCase, (name) =>
          name === testCase.param ? testCase.encoded : ORDINARY_IDS[name as keyof PathIds],
        );
        expect(seen.map((request) => request.rawPath)).toEqual([`/v1${expected}`]);
      },
    );

    eachOf(
      pathCases
        .filter(({ call }) => call !== PROVEN_IN_WIRE.escaping)
        .flatMap((pathCase) => ESCAPING_IDS.map((id) => ({ ...pathCase, id }))),
      '$call refuses the $param $id before sending',
      async (testCase) => {
        await expectRefusedBeforeSending(
          (client) => testCase.run(client, idsWith(testCase.param, testCase.id)),
          [testCase.param],
        );
      },
    );

    eachOf(
      lists,
      '$call sends limit and cursor as its query, no Idempotency-Key, and gives the next cursor',
      async (list) => {
        const seen = route(methodOf(list), patternOf(list), () =>
          ok([list.answer?.sample], { nextCursor: 'cur_2' }),
        );
        const firstPage = await list.run(
          createClient(),
          ORDINARY_IDS,
          { limit: 7, cursor: 'cur_1' },
          { idempotencyKey: CALLER_KEY },
        );

        expect(seen).toHaveLength(1);
        expect(seen[0]?.url.search).toBe('?limit=7&cursor=cur_1');
        expect(seen[0]?.headers.has('idempotency-key')).toBe(false);
        expect(firstPage).toMatchObject({ data: [list.answer?.sample], nextCursor: 'cur_2' });
      },
    );

    eachOf(lists, '$call refuses a limit of 0, 101 or 1.5 before sending', async (list) => {
      for (const limit of [0, 101, 1.5]) {
        await expectRefusedBeforeSending(
          (client) => list.run(client, ORDINARY_IDS, { limit }),
          ['limit'],
        );
      }
    });

    eachOf(
      methods.flatMap(({ answer, ...resourceMethod }) =>
        answer?.unseen === undefined
          ? []
          : [{ ...resourceMethod, answer, unknown: { ...answer.sample, ...answer.unseen } }],
      ),
      '$call keeps fields and values it has never seen',
      async (read) => {
        serve(read, read.unknown);
        const outcome = await outcomeOf(read.run(createClient(), ORDINARY_IDS));
        expect(outcome).toEqual(read.answer.shape === 'one' ? read.unknown : [read.unknown]);
      },
    );

    eachOf(
      methods.filter(({ answer }) => answer === undefined),
      '$call resolves to undefined when answered 200 with an empty envelope',
      async (deletion) => {
        route(methodOf(deletion), patternOf(deletion), () => ok(null));
        await expect(deletion.run(createClient(), ORDINARY_IDS)).resolves.toBeUndefined();
      },
    );
  });
}
