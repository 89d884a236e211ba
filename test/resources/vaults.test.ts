import { describe, expect, it } from 'vitest';
import { RequestValidationError } from '../../src/index.js';
import { createClient, noContent, ok, route, TOKEN, vault } from '../helpers.js';

describe('client.vaults', () => {
  it('creates a vault with a JSON body, bearer token and a generated Idempotency-Key', async () => {
    const seen = route('post', '/vaults', () => ok(vault(), { status: 201 }));
    const created = await createClient().vaults.create({ name: 'Payments', color: '#0EA5E9' });

    expect(created).toEqual(vault());
    expect(seen).toHaveLength(1);
    const [request] = seen;
    expect(request?.method).toBe('POST');
    expect(request?.rawPath).toBe('/v1/vaults');
    expect(request?.headers.get('authorization')).toBe(`Bearer ${TOKEN}`);
    expect(request?.headers.get('content-type')).toBe('application/json');
    expect(request?.headers.get('idempotency-key')).toMatch(/^[0-9a-f-]{36}$/);
    expect(request?.body).toEqual({ name: 'Payments', color: '#0EA5E9' });
  });

  it('deletes a vault and resolves to undefined on 204', async () => {
    const seen = route('delete', '/vaults/:id', () => noContent());
    await expect(createClient().vaults.delete('vlt_1')).resolves.toBeUndefined();
    expect(seen[0]?.headers.has('idempotency-key')).toBe(false);
  });

  it('refuses a colour that is not #RRGGBB before sending', async () => {
    const seen = route('post', '/vaults', () => ok(vault(), { status: 201 }));
    const error = await createClient()
      .vaults.create({ name: 'x', color: 'red' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).issues[0]?.path).toEqual(['color']);
    expect(seen).toHaveLength(0);
  });
});
