/**
 * @octokit/core (GitHub's client core, without plugins), through `octokit.request(route,
 * parameters)` with route templates. It sends with the global `fetch` (undici) and parses JSON
 * bodies with json-with-bigint (which keeps integers beyond 2^53 exact).
 *
 * Its defaults, all kept: no retries and no timeout (both are plugins, @octokit/plugin-retry
 * and a `request.signal` of one's own), no idempotency key (so the create sends one, as raw
 * fetch and ky do). The only change is `baseUrl`, pointing it at the loopback server. It sends
 * the token as `Authorization: token <TOKEN>`, GitHub's scheme, which the bench server accepts.
 */
import { randomUUID } from 'node:crypto';
import { Octokit } from '@octokit/core';
import {
  CREATE_PARAMS,
  ONE_PAGE_VAULT_ID,
  PAGE_SIZE,
  TOKEN,
  VALUES_VAULT_ID,
  VAULT_ID,
} from '../fixtures.ts';
import type { Calls } from './calls.ts';

export function octokitCalls(base: string): Calls {
  const octokit = new Octokit({ baseUrl: base, auth: TOKEN });
  // The body is what its user reads; the rest of Octokit's response (status, headers, url) is
  // built either way.
  return {
    get: async () => (await octokit.request('GET /v1/vaults/{id}', { id: VAULT_ID })).data,
    list: async () =>
      (
        await octokit.request('GET /v1/vaults/{id}/secrets', {
          id: ONE_PAGE_VAULT_ID,
          limit: PAGE_SIZE,
        })
      ).data,
    values: async () =>
      (await octokit.request('GET /v1/vaults/{id}/secrets/values', { id: VALUES_VAULT_ID })).data,
    create: async () =>
      (
        await octokit.request('POST /v1/vaults/{id}/secrets', {
          id: VAULT_ID,
          ...CREATE_PARAMS,
          headers: { 'idempotency-key': randomUUID() },
        })
      ).data,
  };
}
