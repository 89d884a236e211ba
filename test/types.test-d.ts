/**
 * Type tests: compiled by vitest's typecheck (and `npm run typecheck`), never run.
 */
import { describe, expectTypeOf, it } from 'vitest';
import * as zod from 'zod';
import type { HttpCore } from '../src/core/http.js';
import type { PathParamNames } from '../src/core/route.js';
import type {
  APIPromise,
  APIResponse,
  AttemptDetails,
  AuditEntry,
  AuditListParams,
  Invitation,
  LoadedSecrets,
  Organization,
  OrgMember,
  Page,
  PagePromise,
  RequestOptions,
  Secret,
  SecretsVault,
  SecretsVaultErrorOptions,
  SecretWithValue,
  Team,
  TeamMember,
  Vault,
  VaultCreateParams,
  VaultMember,
  VaultMemberUpdateResponse,
  VaultRole,
} from '../src/index.js';
import { createSecretCache, toEnv } from '../src/index.js';

declare const client: SecretsVault;

describe('public types', () => {
  it('types every resource method by its contract', () => {
    expectTypeOf(client.vaults.list()).toEqualTypeOf<PagePromise<Vault>>();
    expectTypeOf(client.vaults.create).parameter(0).toEqualTypeOf<VaultCreateParams>();
    expectTypeOf(client.vaults.create({ name: 'x' })).toEqualTypeOf<APIPromise<Vault>>();
    expectTypeOf(client.vaults.get('id')).toEqualTypeOf<APIPromise<Vault>>();
    expectTypeOf(client.vaults.update('id', { team_id: null })).toEqualTypeOf<APIPromise<Vault>>();
    expectTypeOf(client.vaults.delete('id')).toEqualTypeOf<APIPromise<void>>();
    expectTypeOf(client.vaults.members.list('v')).toEqualTypeOf<PagePromise<VaultMember>>();
    expectTypeOf(client.vaults.members.update('v', 'm', { role: 'admin' })).toEqualTypeOf<
      APIPromise<VaultMemberUpdateResponse>
    >();
    expectTypeOf(client.secrets.list('v')).toEqualTypeOf<PagePromise<Secret>>();
    expectTypeOf(client.secrets.create('v', { name: 'n', value: { k: 'v' } })).toEqualTypeOf<
      APIPromise<Secret>
    >();
    expectTypeOf(client.secrets.getValue('s')).toEqualTypeOf<APIPromise<SecretWithValue>>();
    expectTypeOf(client.secrets.listValues('v')).toEqualTypeOf<APIPromise<SecretWithValue[]>>();
    expectTypeOf(client.teams.list()).toEqualTypeOf<PagePromise<Team>>();
    expectTypeOf(client.teams.members.create('t', { user_id: 'u' })).toEqualTypeOf<
      APIPromise<TeamMember>
    >();
    expectTypeOf(client.org.get()).toEqualTypeOf<APIPromise<Organization>>();
    expectTypeOf(client.org.members.update('m', { role: 'owner' })).toEqualTypeOf<
      APIPromise<OrgMember>
    >();
    expectTypeOf(client.org.invitations.create({ email: 'e', role: 'member' })).toEqualTypeOf<
      APIPromise<Invitation>
    >();
    expectTypeOf(client.audit.list()).toEqualTypeOf<PagePromise<AuditEntry>>();
  });

  it('keeps wire field names and plain strings for timestamps', () => {
    expectTypeOf<Vault['team_id']>().toEqualTypeOf<string | null>();
    expectTypeOf<Vault['created_at']>().toEqualTypeOf<string>();
    expectTypeOf<Vault['role']>().toEqualTypeOf<VaultRole>();
    expectTypeOf<VaultRole>().toEqualTypeOf<'admin' | 'editor' | 'member'>();
    expectTypeOf<SecretWithValue['value']>().toEqualTypeOf<Record<string, string>>();
    expectTypeOf<AuditListParams>().toHaveProperty('action');
  });

  it('awaits to the data, pages and iterates to items', async () => {
    expectTypeOf(await client.vaults.get('id')).toEqualTypeOf<Vault>();
    expectTypeOf(await client.vaults.list()).toEqualTypeOf<Page<Vault>>();
    expectTypeOf((await client.vaults.list()).data).toEqualTypeOf<Vault[]>();
    expectTypeOf((await client.vaults.list()).nextCursor).toEqualTypeOf<string | null>();
    for await (const vault of client.vaults.list()) expectTypeOf(vault).toEqualTypeOf<Vault>();
    expectTypeOf(client.vaults.list().toArray({ max: 3 })).toEqualTypeOf<Promise<Vault[]>>();
    expectTypeOf(client.vaults.get('id').withResponse()).toEqualTypeOf<
      Promise<APIResponse<Vault>>
    >();
    expectTypeOf<APIResponse<Vault>['replayed']>().toEqualTypeOf<boolean>();
  });

  it('accepts request options as the last argument of every method', () => {
    expectTypeOf(client.vaults.get).parameter(1).toEqualTypeOf<RequestOptions | undefined>();
    expectTypeOf(client.secrets.listValues)
      .parameter(1)
      .toEqualTypeOf<RequestOptions | undefined>();
    expectTypeOf<RequestOptions>().toHaveProperty('idempotencyKey');
    expectTypeOf<RequestOptions>().toHaveProperty('signal');
  });

  it('rejects wrong inputs at compile time', () => {
    // @ts-expect-error name is required
    void client.vaults.create({});
    // @ts-expect-error a vault member role is one of admin, editor, member
    void client.vaults.members.create('v', { user_id: 'u', role: 'owner' });
    // @ts-expect-error a secret value maps names to strings
    void client.secrets.create('v', { name: 'n', value: { port: 5432 } });
    // @ts-expect-error team members have no update
    void client.teams.members.update;
  });
});

declare const core: HttpCore;

describe('internal route types', () => {
  it('types a route path parameters from its path template', () => {
    expectTypeOf<PathParamNames<'/vaults/{vaultId}/members/{memberId}'>>().toEqualTypeOf<
      'vaultId' | 'memberId'
    >();
    expectTypeOf<PathParamNames<'/org'>>().toEqualTypeOf<never>();
    expectTypeOf(client.vaults.get('id')).toExtend<Promise<Vault>>();
  });

  it('makes a placeholder typo a compile error', () => {
    const expected = { kind: 'nothing' } as const;
    void core.request({
      operation: 'vaults.delete',
      method: 'DELETE',
      path: '/vaults/{vaultId}',
      pathParams: { vaultId: 'v' },
      expected,
    });
    void core.request({
      operation: 'vaults.delete',
      method: 'DELETE',
      path: '/vaults/{vaultID}',
      // @ts-expect-error the placeholder is {vaultID}, so a `vaultId` parameter fills nothing
      pathParams: { vaultId: 'v' },
      expected,
    });
    // @ts-expect-error a route with a placeholder needs its parameter
    void core.request({
      operation: 'secrets.delete',
      method: 'DELETE',
      path: '/secrets/{secretId}',
      expected,
    });
    void core.request({
      operation: 'org.get',
      method: 'GET',
      path: '/org',
      // @ts-expect-error a route without placeholders takes no parameters
      pathParams: { orgId: 'o' },
      expected,
    });
  });
});

describe('secrets at startup', () => {
  it('types load by its schema, or as a record of values without one', async () => {
    expectTypeOf(client.secrets.load('v')).toEqualTypeOf<Promise<LoadedSecrets>>();
    const schema = zod.object({
      database: zod.object({ url: zod.url(), port: zod.coerce.number() }),
    });
    const config = await client.secrets.load('v', { schema, timeout: 5_000 });
    expectTypeOf(config).toEqualTypeOf<{ database: { url: string; port: number } }>();
    expectTypeOf(toEnv(config)).toEqualTypeOf<Record<string, string>>();
    expectTypeOf(client.secrets.resolveReferences({ A: 'x', B: undefined })).toEqualTypeOf<
      Promise<{ A: string; B: undefined }>
    >();
    const cache = createSecretCache(client, { ttl: 1_000 });
    expectTypeOf(cache.load('v')).toEqualTypeOf<Promise<LoadedSecrets>>();
    expectTypeOf(await cache.load('v', { schema })).toEqualTypeOf<typeof config>();
    // @ts-expect-error a schema is a Standard Schema, not any object
    void client.secrets.load('v', { schema: { parse: () => ({}) } });
  });
});

describe('names kept from earlier releases', () => {
  it('still exports AttemptDetails, as the attempt fields of an error option', () => {
    expectTypeOf<AttemptDetails>().toEqualTypeOf<
      Pick<SecretsVaultErrorOptions, 'attempts' | 'idempotencyKey' | 'cause'>
    >();
  });
});
