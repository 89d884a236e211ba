import { HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  BadRequestError,
  ConflictError,
  InternalServerError,
  NotFoundError,
  RateLimitError,
} from '../../src/index.js';
import { createClient, fail, ok, organization, route, secret, team, vault } from '../helpers.js';

describe('retries', () => {
  it('reuses the idempotency key when a create is retried after the connection drops', async () => {
    const seen = route('post', '/vaults/:vaultId/secrets', (call) =>
      call === 0 ? HttpResponse.error() : ok(secret(), { status: 201 }),
    );
    const created = await createClient({ maxRetries: 2 }).secrets.create('vlt_1', {
      name: 'stripe',
      value: { api_key: 'sk_live_1' },
    });

    expect(created).toEqual(secret());
    expect(seen).toHaveLength(2);
    const firstKey = seen[0]?.headers.get('idempotency-key');
    expect(firstKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen[1]?.headers.get('idempotency-key')).toBe(firstKey);
    expect(seen[1]?.body).toEqual(seen[0]?.body);
  });

  it("keeps the caller's idempotency key on every attempt", async () => {
    const seen = route('post', '/vaults', (call) =>
      call < 2 ? fail(503, 'internal_error') : ok(vault(), { status: 201 }),
    );
    await createClient({ maxRetries: 2 }).vaults.create(
      { name: 'Payments' },
      { idempotencyKey: 'job-42/create-vault' },
    );
    expect(seen.map((request) => request.headers.get('idempotency-key'))).toEqual([
      'job-42/create-vault',
      'job-42/create-vault',
      'job-42/create-vault',
    ]);
  });

  it('retries a GET after a 500 and returns the later success', async () => {
    const seen = route('get', '/vaults/:id', (call) =>
      call === 0 ? fail(500, 'internal_error') : ok(vault()),
    );
    await expect(createClient({ maxRetries: 1 }).vaults.get('vlt_1')).resolves.toEqual(vault());
    expect(seen).toHaveLength(2);
  });

  it('retries a PATCH after a 503 and a DELETE after a dropped connection', async () => {
    const patches = route('patch', '/teams/:id', (call) =>
      call === 0 ? fail(503, 'unavailable') : ok(team()),
    );
    const deletes = route('delete', '/teams/:id', (call) =>
      call === 0 ? HttpResponse.error() : new Response(null, { status: 204 }),
    );
    const client = createClient({ maxRetries: 1 });
    await expect(client.teams.update('team_1', { name: 'x' })).resolves.toEqual(team());
    await client.teams.delete('team_1');
    expect(patches).toHaveLength(2);
    expect(deletes).toHaveLength(2);
  });

  it('honours Retry-After on 429 and then succeeds', async () => {
    const seen = route('get', '/org', (call) =>
      call === 0
        ? fail(429, 'rate_limited', 'slow down', { 'Retry-After': '0' })
        : ok(organization()),
    );
    await expect(createClient({ maxRetries: 1 }).org.get()).resolves.toEqual(organization());
    expect(seen).toHaveLength(2);
  });

  it('retries 409 idempotency_in_progress but not any other 409', async () => {
    const inProgress = route('post', '/teams', (call) =>
      call === 0 ? fail(409, 'idempotency_in_progress') : ok(team(), { status: 201 }),
    );
    const client = createClient({ maxRetries: 1 });
    await expect(client.teams.create({ name: 'Platform' })).resolves.toEqual(team());
    expect(inProgress).toHaveLength(2);
    expect(inProgress[1]?.headers.get('idempotency-key')).toBe(
      inProgress[0]?.headers.get('idempotency-key'),
    );

    const conflict = route('patch', '/org/members/:id', () => fail(409, 'conflict'));
    const error = await client.org.members
      .update('om_1', { role: 'member' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConflictError);
    expect(conflict).toHaveLength(1);
  });

  it('never retries a 400, and throws it at once', async () => {
    const seen = route('get', '/vaults', () => fail(400, 'bad_request'));
    const error = await createClient({ maxRetries: 2 })
      .vaults.list()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BadRequestError);
    expect(seen).toHaveLength(1);
  });

  it('gives up after maxRetries + 1 attempts with the last error', async () => {
    const seen = route('get', '/vaults/:id', () => fail(502, 'bad_gateway', 'upstream'));
    const error = await createClient({ maxRetries: 2 })
      .vaults.get('vlt_1')
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InternalServerError);
    expect((error as InternalServerError).status).toBe(502);
    expect(seen).toHaveLength(3);
  });

  it('lets one call override the client maxRetries', async () => {
    const seen = route('get', '/audit', () =>
      fail(429, 'rate_limited', 'slow', { 'Retry-After': '0' }),
    );
    const error = await createClient({ maxRetries: 2 })
      .audit.list({}, { maxRetries: 0 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(seen).toHaveLength(1);
  });
});

describe('retried deletes', () => {
  it('resolves a DELETE whose retry finds the resource gone after a lost response', async () => {
    const seen = route('delete', '/vaults/:id', (call) =>
      call === 0 ? HttpResponse.error() : fail(404, 'not_found', 'Vault not found'),
    );
    const result = await createClient({ maxRetries: 1 }).vaults.delete('vlt_1').withResponse();
    expect(result.data).toBeUndefined();
    expect(result.response.status).toBe(404);
    expect(seen).toHaveLength(2);
  });

  it('still rejects a DELETE of a missing resource when no response was lost', async () => {
    route('delete', '/vaults/:id', () => fail(404, 'not_found', 'Vault not found'));
    const error = await createClient({ maxRetries: 1 })
      .vaults.delete('vlt_1')
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NotFoundError);
  });
});
