/**
 * Test helpers: an MSW server that stands in for the service, envelope builders, and a recorder
 * of the requests that server sees. Tests drive the SDK through its public API only.
 */
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { type ClientOptions, SecretsVault } from '../src/index.js';

export const BASE_URL = 'https://vault.test';
export const API = `${BASE_URL}/v1`;
export const TOKEN = 'sv_test_token_7f3a9c1e5b2d4f60';

export const server = setupServer();

/** A client pointed at the test server; retries are off unless a test turns them on. */
export function createClient(options: ClientOptions = {}): SecretsVault {
  return new SecretsVault({ baseUrl: BASE_URL, token: TOKEN, maxRetries: 0, ...options });
}

let requestCounter = 0;

/** Headers every response of the service carries (api-contract.md §4). */
export function serviceHeaders(extra: Record<string, string> = {}): Record<string, string> {
  requestCounter += 1;
  return {
    'X-Request-Id': `req_00000000-0000-4000-8000-${String(requestCounter).padStart(12, '0')}`,
    'Cache-Control': 'no-store',
    ...extra,
  };
}

/** A success envelope; pass `nextCursor` (string or null) for a paginated list. */
export function ok(
  data: unknown,
  init: { status?: number; nextCursor?: string | null; headers?: Record<string, string> } = {},
): Response {
  const status = init.status ?? 200;
  const body: Record<string, unknown> = {
    statusCode: status,
    errorCode: null,
    message: null,
    data,
  };
  if (init.nextCursor !== undefined) body.next_cursor = init.nextCursor;
  return HttpResponse.json(body, { status, headers: serviceHeaders(init.headers) });
}

/** A failure envelope. */
export function fail(
  status: number,
  errorCode: string,
  message = 'failed',
  headers: Record<string, string> = {},
): Response {
  return HttpResponse.json(
    { statusCode: status, errorCode, message, data: null },
    { status, headers: serviceHeaders(headers) },
  );
}

/** 204 with no body, as every DELETE answers. */
export function noContent(): Response {
  return new Response(null, { status: 204, headers: serviceHeaders() });
}

/** What the server saw of one request. */
export interface SeenRequest {
  method: string;
  url: URL;
  /** The path exactly as sent, still percent-encoded. */
  rawPath: string;
  headers: Headers;
  body: unknown;
}

type Method = 'get' | 'post' | 'patch' | 'delete';

/**
 * Answers `method path` (an MSW path pattern under /v1) with `respond`, recording every request.
 * `respond` may return different responses per call (it gets the 0-based call index).
 */
export function route(
  method: Method,
  path: string,
  respond: (call: number, request: SeenRequest) => Response | Promise<Response>,
): SeenRequest[] {
  const seen: SeenRequest[] = [];
  server.use(
    http[method](`${API}${path}`, async ({ request }) => {
      const text = await request.text();
      const url = new URL(request.url);
      const entry: SeenRequest = {
        method: request.method,
        url,
        rawPath: request.url.slice(url.origin.length).split('?')[0] ?? '',
        headers: request.headers,
        body: text === '' ? undefined : JSON.parse(text),
      };
      seen.push(entry);
      return respond(seen.length - 1, entry);
    }),
  );
  return seen;
}

// Fixtures shaped like the contract's field tables (api-contract.md §2).
export const user = { id: 'usr_1', name: 'Ada Lovelace', email: 'ada@example.com' };

export function vault(overrides: Record<string, unknown> = {}) {
  return {
    id: 'vlt_1',
    org_id: 'org_1',
    name: 'Payments',
    icon_index: 3,
    color: '#0EA5E9',
    team_id: null,
    role: 'admin',
    created_at: '2026-11-01T10:00:00.000Z',
    ...overrides,
  };
}

export function secret(overrides: Record<string, unknown> = {}) {
  return {
    id: 'sec_1',
    vault_id: 'vlt_1',
    name: 'stripe',
    type: 'api_key',
    expired_at: null,
    delete_after_expired: false,
    is_archived: false,
    created_at: '2026-11-01T10:00:00.000Z',
    ...overrides,
  };
}

export function team(overrides: Record<string, unknown> = {}) {
  return {
    id: 'team_1',
    org_id: 'org_1',
    name: 'Platform',
    icon_index: 1,
    color: '#22C55E',
    created_at: '2026-11-01T10:00:00.000Z',
    ...overrides,
  };
}

export function vaultMember(overrides: Record<string, unknown> = {}) {
  return {
    id: 'vm_1',
    vault_id: 'vlt_1',
    user,
    role: 'editor',
    created_at: '2026-11-01T10:00:00.000Z',
    ...overrides,
  };
}

export function teamMember(overrides: Record<string, unknown> = {}) {
  return {
    id: 'tm_1',
    team_id: 'team_1',
    user,
    created_at: '2026-11-01T10:00:00.000Z',
    ...overrides,
  };
}

export function organization(overrides: Record<string, unknown> = {}) {
  return {
    id: 'org_1',
    name: 'Acme',
    plan: 'team',
    emoji_icon: '🔐',
    color: '#6B7280',
    created_at: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}

export function orgMember(overrides: Record<string, unknown> = {}) {
  return {
    id: 'om_1',
    org_id: 'org_1',
    user,
    email: 'ada@example.com',
    role: 'admin',
    status: 'active',
    created_at: '2026-11-01T10:00:00.000Z',
    ...overrides,
  };
}

export function invitation(overrides: Record<string, unknown> = {}) {
  return {
    id: 'inv_1',
    org_id: 'org_1',
    invitee_email: 'grace@example.com',
    role: 'member',
    status: 'pending',
    expires_at: '2026-11-08T10:00:00.000Z',
    created_at: '2026-11-01T10:00:00.000Z',
    ...overrides,
  };
}

export function auditEntry(overrides: Record<string, unknown> = {}) {
  return {
    id: 'aud_1',
    action: 'vault.secret_value.read',
    resource: 'secret:sec_1',
    user_name: 'Ada Lovelace',
    ip_address: '127.0.0.1',
    success: true,
    type: 'read',
    time: '2026-11-01T10:00:00.000Z',
    ...overrides,
  };
}
