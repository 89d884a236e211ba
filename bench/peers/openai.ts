/**
 * The openai package (Stainless-generated), through its generic `client.get` and `client.post`,
 * which take a path under `baseURL`. It sends with the global `fetch` (undici) and parses JSON
 * bodies with `response.json()`.
 *
 * Its defaults, all kept: 2 retries (`maxRetries`) with backoff, a 10-minute timeout, no
 * idempotency key of its own (so the create sends one, as raw fetch and ky do). The only change
 * is `baseURL`, pointing it at the loopback server.
 */
import { randomUUID } from 'node:crypto';
import OpenAI from 'openai';
import {
  CREATE_PARAMS,
  ONE_PAGE_VAULT_ID,
  PAGE_SIZE,
  TOKEN,
  VALUES_VAULT_ID,
  VAULT_ID,
} from '../fixtures.ts';
import type { Calls } from './calls.ts';

export function openaiCalls(base: string): Calls {
  const client = new OpenAI({ baseURL: `${base}/v1`, apiKey: TOKEN });
  return {
    get: () => client.get(`/vaults/${VAULT_ID}`),
    list: () => client.get(`/vaults/${ONE_PAGE_VAULT_ID}/secrets`, { query: { limit: PAGE_SIZE } }),
    values: () => client.get(`/vaults/${VALUES_VAULT_ID}/secrets/values`),
    create: () =>
      client.post(`/vaults/${VAULT_ID}/secrets`, {
        body: CREATE_PARAMS,
        headers: { 'Idempotency-Key': randomUUID() },
      }),
  };
}
