/**
 * `resolveReferences` reads each vault once, but never more than 8 at a time: a config with
 * references into thousands of vaults must not open thousands of requests at once.
 */
import { describe, expect, it } from 'vitest';
import { SecretsVault } from '../../src/index.js';
import { BASE_URL, TOKEN } from '../helpers.js';

/** A service whose vault `vlt_N` holds one secret `db` with `{ password: 'pw-N' }`. */
function countingService() {
  let inFlight = 0;
  let maxInFlight = 0;
  let requests = 0;
  const fetch = async (input: RequestInfo | URL) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const vaultId = decodeURIComponent(url.pathname.split('/')[3] ?? '');
    requests += 1;
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      // Answer on a later turn, so every request the client starts at once overlaps.
      await new Promise((resolve) => setTimeout(resolve, 1));
      const data = [
        {
          id: `sec_${vaultId}`,
          vault_id: vaultId,
          name: 'db',
          type: 'password',
          expired_at: null,
          delete_after_expired: false,
          is_archived: false,
          created_at: '2026-11-01T10:00:00.000Z',
          value: { password: `pw-${vaultId}` },
        },
      ];
      return Response.json({ statusCode: 200, errorCode: null, message: null, data });
    } finally {
      inFlight -= 1;
    }
  };
  return { fetch, maxInFlight: () => maxInFlight, requests: () => requests };
}

describe('client.secrets.resolveReferences', () => {
  it('keeps at most 8 requests in flight for 3 000 references into 3 000 vaults', async () => {
    const service = countingService();
    const client = new SecretsVault({ baseUrl: BASE_URL, token: TOKEN, fetch: service.fetch });
    const record = Object.fromEntries(
      Array.from({ length: 3_000 }, (_, index) => [
        `PASSWORD_${index}`,
        `vault://vlt_${index}/db/password`,
      ]),
    );

    const resolved = await client.secrets.resolveReferences(record);

    expect(service.requests()).toBe(3_000);
    expect(service.maxInFlight()).toBe(8);
    expect(resolved.PASSWORD_0).toBe('pw-vlt_0');
    expect(resolved.PASSWORD_2999).toBe('pw-vlt_2999');
  });
});
