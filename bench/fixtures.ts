/**
 * What the benchmark server serves and what the client side asks for: ids, the token, the sizes
 * of the fixed bodies, and the bodies themselves (built once, in the server process).
 *
 * Every success body wears the service's envelope, `{ statusCode, errorCode: null, message,
 * data }` plus `next_cursor` on paginated lists (see src/core/envelope.ts), and every item has
 * the shape the SDK's schemas check (src/resources/vaults.ts and secrets.ts).
 */

/** The bearer token the server expects; anything else is answered 401. */
export const TOKEN = 'sv_bench_0123456789abcdef';

/** `GET /v1/vaults/{id}` of this vault answers one vault. */
export const VAULT_ID = 'vlt_bench';
/** `GET /v1/vaults/{id}/secrets` of this vault answers one page of 100 whose `next_cursor` is null. */
export const ONE_PAGE_VAULT_ID = 'vlt_one_page';
/** `GET /v1/vaults/{id}/secrets` of this vault (or any request with a cursor) never ends. */
export const ENDLESS_VAULT_ID = 'vlt_endless';
/** `GET /v1/vaults/{id}/secrets/values` of any vault answers 500 secrets with their values. */
export const VALUES_VAULT_ID = 'vlt_values';

/** Items in each page of `secrets.list` (whatever `limit` asks for). */
export const PAGE_SIZE = 100;
/** Secrets in the body of `secrets.listValues`. */
export const VALUES_COUNT = 500;

/**
 * The four requests every contender makes, as paths on the server: `vaults.get`, one page of
 * `secrets.list`, `secrets.listValues` and (POST) `secrets.create`.
 */
export const PATHS = {
  vault: `/v1/vaults/${VAULT_ID}`,
  page: `/v1/vaults/${ONE_PAGE_VAULT_ID}/secrets?limit=${PAGE_SIZE}`,
  values: `/v1/vaults/${VALUES_VAULT_ID}/secrets/values`,
  create: `/v1/vaults/${VAULT_ID}/secrets`,
} as const;

/** The body `secrets.create` sends: a typical small secret. */
export const CREATE_PARAMS = {
  name: 'stripe',
  type: 'api_key',
  value: { api_key: 'sk_test_bench_not_a_real_key' },
};

const CREATED_AT = '2025-01-31T09:30:00.000Z';

function secret(index: number, vaultId: string) {
  const n = String(index).padStart(4, '0');
  return {
    id: `sec_${n}_${'a'.repeat(16)}`,
    vault_id: vaultId,
    name: `service-${n}`,
    type: index % 3 === 0 ? 'login' : 'generic',
    expired_at: index % 5 === 0 ? '2030-01-01T00:00:00.000Z' : null,
    delete_after_expired: false,
    is_archived: false,
    created_at: CREATED_AT,
  };
}

function secretWithValue(index: number, vaultId: string) {
  const n = String(index).padStart(4, '0');
  return {
    ...secret(index, vaultId),
    value: {
      username: `svc_user_${n}`,
      password: `p4ss-${n}-${'x'.repeat(24)}`,
      host: `db-${n}.internal.example.com`,
    },
  };
}

/** A success envelope as the service writes it. */
function envelope(status: number, data: unknown): Record<string, unknown> {
  return { statusCode: status, errorCode: null, message: null, data };
}

/** The fixed response bodies, serialized once. */
export function buildBodies() {
  const vault = {
    id: VAULT_ID,
    org_id: 'org_bench',
    name: 'checkout-service',
    icon_index: 3,
    color: '#3366FF',
    team_id: null,
    role: 'admin',
    created_at: CREATED_AT,
  };
  const page = (vaultId: string) =>
    Array.from({ length: PAGE_SIZE }, (_, index) => secret(index + 1, vaultId));
  const onePage = JSON.stringify({ ...envelope(200, page(ONE_PAGE_VAULT_ID)), next_cursor: null });
  // The endless chain: the same 100 items, then a `next_cursor` that counts up, so no cursor
  // repeats (the SDK stops a listing whose cursor repeats). Split around the cursor so only
  // the cursor is written per response.
  const endless = JSON.stringify({
    ...envelope(200, page(ENDLESS_VAULT_ID)),
    next_cursor: '\u0000',
  });
  const [endlessHead = '', endlessTail = ''] = endless.split('\\u0000');
  const values = Array.from({ length: VALUES_COUNT }, (_, index) =>
    secretWithValue(index + 1, VALUES_VAULT_ID),
  );
  const created = { ...secret(9999, VAULT_ID), name: CREATE_PARAMS.name, type: CREATE_PARAMS.type };
  return {
    vault: JSON.stringify(envelope(200, vault)),
    onePage,
    endlessHead,
    endlessTail,
    values: JSON.stringify(envelope(200, values)),
    created: JSON.stringify(envelope(201, created)),
  };
}

/** A failure envelope. */
export function failureBody(status: number, errorCode: string, message: string): string {
  return JSON.stringify({ statusCode: status, errorCode, message, data: null });
}
