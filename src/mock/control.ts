/**
 * The control endpoint of a served mock: what `mock.faults`, `mock.clock` and `mock.reset()`
 * do in-process, as JSON over HTTP, for a test suite in another process or language. The server
 * (`./node.ts`) checks the control token and reads the body; this module validates what the body
 * asks for and does it.
 */
import * as z from 'zod/mini';
import type { InjectedFault, MockFault } from './faults.js';
import type { VaultMock } from './index.js';
import { errorResponse, MockError, serviceHeaders } from './pipeline.js';

/** The most bytes a control request's body may have: a fault is a few hundred. */
export const MAX_CONTROL_BODY_BYTES = 64 * 1024;
/** How far one `POST …/clock` may move the clock: 3,650 days. */
export const MAX_CLOCK_ADVANCE_MS = 3650 * 24 * 60 * 60 * 1000;
// Faults injected and not yet deleted: enough for any suite, and a bound on what a loop can pile up.
const MAX_FAULTS = 1000;

/** Options of the control endpoint of {@link serveVaultMock}: `ServeOptions.control`. */
export interface MockControlOptions {
  /**
   * The secret that the control URL carries (letters, digits, `-` and `_`, at least 16). Keep it
   * unguessable: a web page can send a request to a loopback port, but cannot know this.
   * @default 32 random bytes, base64url
   */
  readonly token?: string | undefined;
  /**
   * Runs after `POST …/reset` has reset the mock and its clock, before it answers: for example to
   * create again, through the served URL, the vaults a harness made at start. With a mock made
   * with a `seed`, the same requests in the same order make the same ids again.
   * @default nothing
   */
  readonly onReset?: (() => Promise<void> | void) | undefined;
}

// What a field must be, said when it is not; "is required" when it is missing. (zod/mini has no
// messages of its own unless the application loads a locale, which the mock must not do for it.)
const must = (what: string) => ({
  error: (issue: { readonly input?: unknown }) =>
    issue.input === undefined ? 'is required' : `must be ${what}`,
});
const integer = (min: number, max: number, what: string) => {
  const message = must(`${what} from ${min} to ${max}`);
  return z.int(message).check(z.gte(min, message), z.lte(max, message));
};
const number = (min: number, max: number, what: string) => {
  const message = must(`${what} from ${min} to ${max}`);
  return z.number(message).check(z.gte(min, message), z.lte(max, message));
};

// The library's fault kinds, as a caller spells them in JSON. Strict objects: a misspelt field
// (`retry_after`) is an error to report, not an option to drop. Bounds keep one request from
// making the mock answer with a status the platform refuses or wait for days.
const Fault = z.discriminatedUnion(
  'kind',
  [
    z.strictObject({ kind: z.literal('network-error') }),
    z.strictObject({ kind: z.literal('network-error-after-commit') }),
    z.strictObject({
      kind: z.literal('status'),
      status: integer(400, 599, 'an HTTP status'),
      retryAfter: z.optional(integer(0, 86_400, 'a number of seconds')),
      errorCode: z.optional(
        z
          .string(must('a string'))
          .check(z.regex(/^[\x21-\x7e]{1,100}$/, must('1 to 100 printable ASCII characters'))),
      ),
    }),
    z.strictObject({ kind: z.literal('delay'), ms: number(0, 600_000, 'milliseconds') }),
    z.strictObject({ kind: z.literal('hold') }),
  ],
  must(
    'an object whose `kind` is one of network-error, network-error-after-commit, status, delay, hold',
  ),
) satisfies z.ZodMiniType<MockFault>;

const InjectRequest = z.strictObject(
  {
    method: z.optional(
      z
        .string(must('a string'))
        .check(z.regex(/^[A-Za-z]{1,20}$/, must('an HTTP method, such as POST'))),
    ),
    path: z
      .string(must('a string'))
      .check(
        z.regex(
          /^\/[^\s?#]{0,999}$/,
          must('a path starting with /, such as /v1/vaults/:vaultId/secrets'),
        ),
      ),
    times: z.optional(integer(1, 1_000_000, 'a count')),
    fault: Fault,
  },
  must('a JSON object'),
);

const ClockRequest = z.strictObject(
  { advanceMs: number(0, MAX_CLOCK_ADVANCE_MS, 'milliseconds') },
  must('a JSON object'),
);

/** A fault injected over HTTP, with what tells that it has run out. */
interface ControlledFault {
  readonly injected: InjectedFault;
  readonly times: number;
}

/** @internal What a served mock's control endpoint does, once the token has been checked. */
export class MockControl {
  readonly #mock: VaultMock;
  readonly #onReset: (() => Promise<void> | void) | undefined;
  // How far the clock was from real time when serving began: where a reset puts it back.
  readonly #clockOffset: number;
  readonly #faults = new Map<string, ControlledFault>();
  #nextFaultNumber = 1;
  // Resets run one at a time: two at once would interleave their seeding, and with it the ids.
  #resetting: Promise<unknown> = Promise.resolve();

  constructor(mock: VaultMock, onReset: (() => Promise<void> | void) | undefined) {
    this.#mock = mock;
    this.#onReset = onReset;
    this.#clockOffset = mock.clock.now() - Date.now();
  }

  /** Answers `method` on `route`, the part of the control path after the token. */
  async answer(method: string, route: string, body: Uint8Array): Promise<Response> {
    try {
      return await this.#route(method, route, body);
    } catch (error) {
      if (error instanceof MockError) return errorResponse(error);
      return errorResponse(new MockError(500, 'internal_error', 'The control request failed'));
    }
  }

  async #route(method: string, route: string, body: Uint8Array): Promise<Response> {
    const faultId = /^\/faults\/([^/]+)$/.exec(route)?.[1];
    if (route === '/faults' && method === 'POST') return this.#inject(body);
    if (faultId !== undefined && method === 'DELETE') return this.#delete(faultId);
    if (faultId !== undefined && method === 'GET') return this.#describe(faultId);
    if (route === '/clock' && method === 'POST') return this.#advance(body);
    if (route === '/reset' && method === 'POST') return this.#reset();
    throw new MockError(404, 'not_found', 'No such control route');
  }

  #inject(body: Uint8Array): Response {
    const request = parse(InjectRequest, body);
    if (this.#faults.size >= MAX_FAULTS) {
      for (const [id, { injected, times }] of this.#faults) {
        if (injected.hits >= times) this.#faults.delete(id);
      }
    }
    if (this.#faults.size >= MAX_FAULTS) {
      throw new MockError(
        409,
        'conflict',
        `At most ${MAX_FAULTS} faults at once: DELETE some, or reset`,
      );
    }
    const { fault, ...target } = request;
    const injected = this.#mock.faults.inject(target, fault);
    const id = `fault_${this.#nextFaultNumber++}`;
    this.#faults.set(id, { injected, times: target.times ?? Number.POSITIVE_INFINITY });
    return json(201, { id });
  }

  #delete(id: string): Response {
    const fault = this.#faults.get(id);
    if (fault === undefined) throw new MockError(404, 'not_found', 'No such fault');
    // Also lets go of the requests a `hold` fault holds.
    fault.injected.clear();
    this.#faults.delete(id);
    return new Response(null, { status: 204, headers: serviceHeaders() });
  }

  #describe(id: string): Response {
    const fault = this.#faults.get(id);
    if (fault === undefined) throw new MockError(404, 'not_found', 'No such fault');
    return json(200, { id, hits: fault.injected.hits });
  }

  #advance(body: Uint8Array): Response {
    const { advanceMs } = parse(ClockRequest, body);
    this.#mock.clock.advance(advanceMs);
    return json(200, { now: new Date(this.#mock.clock.now()).toISOString() });
  }

  async #reset(): Promise<Response> {
    const run = this.#resetting.then(async () => {
      this.#faults.clear();
      this.#mock.reset();
      this.#mock.clock.set(Date.now() + this.#clockOffset);
      await this.#onReset?.();
    });
    this.#resetting = run.catch(() => undefined);
    await run;
    return new Response(null, { status: 204, headers: serviceHeaders() });
  }
}

/**
 * The body as JSON, checked by `schema`.
 *
 * @throws {MockError} 400 `bad_request` naming each problem by where it is, never quoting a value
 */
function parse<Schema extends z.ZodMiniType>(schema: Schema, body: Uint8Array): z.infer<Schema> {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(body));
  } catch {
    throw new MockError(400, 'bad_request', 'The request body must be JSON');
  }
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const where = issue.path.length === 0 ? 'the body' : issue.path.map(String).join('.');
    // Field names are the caller's own words; values are never quoted.
    if (issue.code === 'unrecognized_keys') {
      return `${where}: unknown ${issue.keys.length === 1 ? 'field' : 'fields'} ${issue.keys.join(', ')}`;
    }
    return `${where}: ${issue.message}`;
  });
  throw new MockError(400, 'bad_request', problems.join('; '));
}

function json(status: number, data: unknown): Response {
  const headers = serviceHeaders({ 'Content-Type': 'application/json' });
  return new Response(JSON.stringify(data), { status, headers });
}
