/**
 * What every /v1 request goes through in the mock, in the order a real service would apply it:
 * faults, authentication, query and body checks, idempotency, the route's own handler, the audit
 * log, and the envelope with its headers.
 */
import { afterMs } from '../core/timer.js';
import type { ActiveFault, MockFault, MockFaults } from './faults.js';
import type { MockStore, OrgRole, PrincipalRecord } from './store.js';
import { ORG_ROLES } from './store.js';

/** The most bytes a request body may have: the service's limit of 1 MB, as 1,000,000 bytes. */
export const MAX_BODY_BYTES = 1_000_000;
const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;
const VALID_IDEMPOTENCY_KEY = /^[\x20-\x7e]{1,255}$/;

/** An error answer: thrown anywhere in a handler, turned into the failure envelope. */
export class MockError extends Error {
  readonly status: number;
  readonly errorCode: string;
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    errorCode: string,
    message: string,
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.status = status;
    this.errorCode = errorCode;
    this.headers = headers;
  }
}

export const notFound = (what = 'Resource'): MockError =>
  new MockError(404, 'not_found', `${what} not found`);
export const forbidden = (): MockError =>
  new MockError(403, 'forbidden', 'Your role does not allow this operation');
export const validation = (message: string): MockError =>
  new MockError(422, 'validation_error', message);

/** What a handler returns on success. */
export type HandlerResult =
  | {
      status: 200 | 201;
      data: unknown;
      nextCursor?: string | null;
      location?: string;
      resource?: string;
    }
  | { status: 204; resource?: string };

/** What a handler knows about the request it serves. */
export interface RequestContext {
  readonly store: MockStore;
  readonly principal: PrincipalRecord;
  readonly orgRole: OrgRole;
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  /** The parsed JSON object body of a POST or PATCH; `{}` otherwise. */
  readonly body: Readonly<Record<string, unknown>>;
  /** Throws 403 unless the caller's org role is at least `minimum`. */
  requireOrgRole(minimum: OrgRole): void;
  /** The audit `resource` of the request, when known before the handler finishes. */
  setResource(resource: string): void;
}

/** One endpoint of the mock. */
export interface RouteDefinition {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Path under /v1 with `:param` segments. */
  readonly path: string;
  /** Audit `action`, `<resource>.<subject>.<verb>`. */
  readonly action: string;
  /** Audit `type`: read, write or delete. */
  readonly auditType: 'read' | 'write' | 'delete';
  /** Resource-creating POSTs honour `Idempotency-Key`. */
  readonly idempotent?: boolean;
  /** The audit `resource` before the handler runs, from the path parameters. */
  readonly resource: (params: Readonly<Record<string, string>>, orgId: string) => string;
  readonly handle: (context: RequestContext) => Promise<HandlerResult> | HandlerResult;
}

/** Shared by the pipeline of one mock instance. */
export interface PipelineDeps {
  readonly store: MockStore;
  readonly faults: MockFaults;
}

/** Headers the service sends on every /v1 response, replays too: a new request id, no caching. */
export function serviceHeaders(extra: Record<string, string> = {}): Headers {
  const headers = new Headers(extra);
  headers.set('X-Request-Id', `req_${crypto.randomUUID()}`);
  headers.set('Cache-Control', 'no-store');
  return headers;
}

/** The failure envelope of an error. */
export function errorResponse(error: MockError): Response {
  const headers = serviceHeaders(error.headers);
  headers.set('Content-Type', 'application/json');
  return new Response(
    JSON.stringify({
      statusCode: error.status,
      errorCode: error.errorCode,
      message: error.message,
      data: null,
    }),
    { status: error.status, headers },
  );
}

/** Runs one request through the whole pipeline. */
export async function runRoute(
  deps: PipelineDeps,
  route: RouteDefinition,
  request: Request,
  params: Record<string, string>,
  pathname: string,
): Promise<Response> {
  deps.store.sweepExpired();
  const active = deps.faults.take(request.method, pathname);
  const find = <K extends MockFault['kind']>(kind: K) =>
    active?.fault.kind === kind ? (active.fault as Extract<MockFault, { kind: K }>) : undefined;

  // The platform's network error (msw's `HttpResponse.error()` is this one): no msw import here,
  // so the builds that take only this module's errors (`/mock/node`) import nothing unused.
  if (find('network-error')) return Response.error();
  const delay = find('delay');
  if (delay) await new Promise<void>((resolve) => afterMs(delay.ms, () => resolve()));
  const statusFault = find('status');
  if (statusFault) {
    const { status, retryAfter, errorCode } = statusFault;
    const headers: Record<string, string> =
      retryAfter === undefined ? {} : { 'Retry-After': String(retryAfter) };
    const code =
      errorCode ??
      (status === 429 ? 'rate_limited' : status >= 500 ? 'internal_error' : 'injected_fault');
    return errorResponse(new MockError(status, code, `Injected fault: ${status}`, headers));
  }

  const response = await authenticatedResponse(deps, route, request, params, active);
  if (find('network-error-after-commit')) return Response.error();
  return response;
}

async function authenticatedResponse(
  deps: PipelineDeps,
  route: RouteDefinition,
  request: Request,
  params: Record<string, string>,
  active: ActiveFault | undefined,
): Promise<Response> {
  const { store } = deps;
  const principal = authenticate(store, request);
  if (principal === undefined) {
    return errorResponse(new MockError(401, 'unauthorized', 'Missing or invalid bearer token'));
  }
  const orgRole = store.orgRoleOf(principal);
  if (orgRole === undefined) {
    return errorResponse(new MockError(401, 'unauthorized', 'Missing or invalid bearer token'));
  }

  let resource = route.resource(params, principal.orgId);
  const audit = (success: boolean) => {
    const id = store.newId();
    store.audit.set(id, {
      id,
      org_id: principal.orgId,
      action: route.action,
      resource,
      user_name: principal.name,
      ip_address: '127.0.0.1',
      success,
      type: route.auditType,
      time: store.timestamp(),
    });
  };

  let idempotencyScope: string | undefined;
  try {
    const url = new URL(request.url);
    const body = await readBody(route, request);
    const key = request.headers.get('Idempotency-Key');
    if (route.idempotent && key !== null) {
      if (!VALID_IDEMPOTENCY_KEY.test(key)) {
        throw new MockError(
          400,
          'bad_request',
          'Idempotency-Key must be 1 to 255 printable characters',
        );
      }
      // Scoped to the route and its decoded parameters, not to how the path was spelled:
      // `/v1/vaults/` and `/v1/%76aults` reach the same handler and must share one record.
      const target = `${route.path}\n${JSON.stringify(Object.entries(params).sort())}`;
      const scope = [principal.orgId, principal.id, route.method, target, key].join('\n');
      const replay = checkIdempotency(store, scope, canonicalJson(body));
      if (replay) {
        audit(true);
        return replay;
      }
      // From here this request owns the key's "running" marker.
      idempotencyScope = scope;
    }

    if (active?.fault.kind === 'hold') {
      active.onHeld();
      await active.gate;
    }

    const context: RequestContext = {
      store,
      principal,
      orgRole,
      params,
      query: url.searchParams,
      body,
      requireOrgRole(minimum) {
        if (ORG_ROLES.indexOf(orgRole) < ORG_ROLES.indexOf(minimum)) throw forbidden();
      },
      setResource(value) {
        resource = value;
      },
    };
    const result = await route.handle(context);
    if (result.resource !== undefined) resource = result.resource;
    const response = successResponse(result);
    if (idempotencyScope !== undefined) {
      await storeIdempotentResponse(store, idempotencyScope, response.clone());
    }
    audit(true);
    return response;
  } catch (error) {
    // A failed request stores nothing, so a retry with its key runs again: drop the marker it set.
    if (idempotencyScope !== undefined) store.idempotency.delete(idempotencyScope);
    audit(false);
    if (error instanceof MockError) return errorResponse(error);
    return errorResponse(new MockError(500, 'internal_error', 'Unexpected fault in the mock'));
  }
}

function authenticate(store: MockStore, request: Request): PrincipalRecord | undefined {
  const header = request.headers.get('Authorization') ?? '';
  const match = /^Bearer ([^\s]+)$/.exec(header);
  return match?.[1] === undefined ? undefined : store.principals.get(match[1]);
}

async function readBody(
  route: RouteDefinition,
  request: Request,
): Promise<Record<string, unknown>> {
  if (route.method !== 'POST' && route.method !== 'PATCH') return {};
  const bytes = new Uint8Array(await request.arrayBuffer());
  if (bytes.byteLength > MAX_BODY_BYTES) {
    throw new MockError(
      413,
      'payload_too_large',
      `Request body must be at most ${MAX_BODY_BYTES} bytes`,
    );
  }
  const text = new TextDecoder().decode(bytes);
  if (text.trim() === '')
    throw new MockError(400, 'bad_request', 'Request body must be a JSON object');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new MockError(400, 'bad_request', 'Request body must be a JSON object');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new MockError(400, 'bad_request', 'Request body must be a JSON object');
  }
  return body as Record<string, unknown>;
}

function successResponse(result: HandlerResult): Response {
  const headers = serviceHeaders();
  if (result.status === 204) return new Response(null, { status: 204, headers });
  if (result.location !== undefined) headers.set('Location', result.location);
  headers.set('Content-Type', 'application/json');
  const envelope: Record<string, unknown> = {
    statusCode: result.status,
    errorCode: null,
    message: null,
    data: result.data,
  };
  if (result.nextCursor !== undefined) envelope.next_cursor = result.nextCursor;
  return new Response(JSON.stringify(envelope), { status: result.status, headers });
}

/**
 * Replays the stored response (same key, same body), refuses the key (a different body, or the
 * first request still running), or marks the key as running.
 */
function checkIdempotency(store: MockStore, scope: string, body: string): Response | undefined {
  const now = store.clock.now();
  const record = store.idempotency.get(scope);
  if (record !== undefined && record.expiresAt <= now) store.idempotency.delete(scope);
  const live = store.idempotency.get(scope);
  if (live === undefined) {
    store.idempotency.set(scope, { state: 'running', body, expiresAt: Number.POSITIVE_INFINITY });
    return undefined;
  }
  if (live.body !== body) {
    throw new MockError(
      422,
      'idempotency_key_reuse',
      'This Idempotency-Key was used with a different body',
    );
  }
  if (live.state === 'running' || live.response === undefined) {
    throw new MockError(
      409,
      'idempotency_in_progress',
      'A request with this Idempotency-Key is still running',
    );
  }
  const headers = serviceHeaders();
  for (const [name, value] of live.response.headers) {
    if (name.toLowerCase() !== 'x-request-id') headers.set(name, value);
  }
  headers.set('Idempotent-Replayed', 'true');
  return new Response(live.response.body, { status: live.response.status, headers });
}

async function storeIdempotentResponse(
  store: MockStore,
  scope: string,
  response: Response,
): Promise<void> {
  store.idempotency.set(scope, {
    state: 'done',
    body: store.idempotency.get(scope)?.body ?? '',
    expiresAt: store.clock.now() + IDEMPOTENCY_RETENTION_MS,
    response: {
      status: response.status,
      headers: [...response.headers.entries()],
      body: await response.text(),
    },
  });
}

/** JSON with object keys sorted, so bodies compare as parsed JSON (key order ignored). */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    typeof item === 'object' && item !== null && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}
