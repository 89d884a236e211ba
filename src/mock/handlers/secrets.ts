/**
 * Secrets in the mock: metadata, archiving on delete, and values. Values are sealed at rest and opened
 * only by the two value endpoints; an archived or expired-and-deleted secret is gone from every
 * listing and lookup.
 */
import {
  has,
  readBoolean,
  readExpiry,
  readName,
  readSecretType,
  readSecretValue,
} from '../fields.js';
import { compareNewestFirst, paginate } from '../paginate.js';
import { notFound, type RequestContext, type RouteDefinition } from '../pipeline.js';
import type { MockStore, SecretRecord, VaultRoleName } from '../store.js';
import { vaultFor } from './vaults.js';

function metadata(secret: SecretRecord) {
  const { sealed: _sealed, ...fields } = secret;
  return fields;
}

async function withValue(store: MockStore, secret: SecretRecord) {
  return { ...metadata(secret), value: await store.sealer.open(secret.sealed) };
}

/**
 * Archives secrets whose expiry has passed with `delete_after_expired` set
 * (the mock's answer to what expiry means, which the service leaves open), on the mock's clock.
 */
function applyExpiry(store: MockStore): void {
  const now = store.clock.now();
  for (const secret of store.secrets.values()) {
    if (
      !secret.is_archived &&
      secret.delete_after_expired &&
      secret.expired_at !== null &&
      Date.parse(secret.expired_at) <= now
    ) {
      secret.is_archived = true;
    }
  }
}

function liveSecretsOf(store: MockStore, vaultId: string): SecretRecord[] {
  applyExpiry(store);
  return [...store.secrets.values()].filter(
    (secret) => secret.vault_id === vaultId && !secret.is_archived,
  );
}

function secretFor(context: RequestContext, minimum: VaultRoleName): SecretRecord {
  const { store } = context;
  applyExpiry(store);
  const secret = store.secrets.get(context.params.secretId ?? '');
  if (secret === undefined || secret.is_archived) throw notFound('Secret');
  // Someone who cannot see the vault cannot learn that the secret exists either: 404.
  try {
    vaultFor(context, secret.vault_id, 'member');
  } catch {
    throw notFound('Secret');
  }
  vaultFor(context, secret.vault_id, minimum);
  return secret;
}

export const secretRoutes: RouteDefinition[] = [
  {
    method: 'GET',
    path: '/vaults/:vaultId/secrets',
    action: 'vault.secret.list',
    auditType: 'read',
    resource: (params) => `vault:${params.vaultId}`,
    handle(context) {
      const { vault } = vaultFor(context, context.params.vaultId, 'member');
      const secrets = liveSecretsOf(context.store, vault.id).map(metadata);
      return paginate(context, `secrets:${vault.id}`, secrets, (secret) => secret.created_at);
    },
  },
  {
    method: 'POST',
    path: '/vaults/:vaultId/secrets',
    action: 'vault.secret.create',
    auditType: 'write',
    idempotent: true,
    resource: (params) => `vault:${params.vaultId}`,
    async handle(context) {
      const { vault } = vaultFor(context, context.params.vaultId, 'editor');
      const { store, body } = context;
      const name = readName(body);
      const value = readSecretValue(body);
      const type = has(body, 'type') ? readSecretType(body) : 'generic';
      const expiredAt = has(body, 'expired_at') ? readExpiry(body) : null;
      const deleteAfterExpired = has(body, 'delete_after_expired')
        ? readBoolean(body, 'delete_after_expired')
        : false;
      const secret: SecretRecord = {
        id: store.newId(),
        vault_id: vault.id,
        name,
        type,
        expired_at: expiredAt,
        delete_after_expired: deleteAfterExpired,
        is_archived: false,
        created_at: store.timestamp(),
        sealed: await store.sealer.seal(value),
      };
      store.secrets.set(secret.id, secret);
      return {
        status: 201,
        data: metadata(secret),
        location: `/v1/secrets/${secret.id}`,
        resource: `secret:${secret.id}`,
      };
    },
  },
  {
    method: 'PATCH',
    path: '/secrets/:secretId',
    action: 'vault.secret.update',
    auditType: 'write',
    resource: (params) => `secret:${params.secretId}`,
    async handle(context) {
      const secret = secretFor(context, 'editor');
      const { body, store } = context;
      const name = has(body, 'name') ? readName(body) : secret.name;
      // A value that is sent replaces the whole stored value; it is not merged key by key.
      const sealed = has(body, 'value')
        ? await store.sealer.seal(readSecretValue(body))
        : secret.sealed;
      secret.name = name;
      secret.sealed = sealed;
      return { status: 200, data: metadata(secret) };
    },
  },
  {
    method: 'DELETE',
    path: '/secrets/:secretId',
    action: 'vault.secret.delete',
    auditType: 'delete',
    resource: (params) => `secret:${params.secretId}`,
    handle(context) {
      const secret = secretFor(context, 'editor');
      secret.is_archived = true;
      return { status: 204 };
    },
  },
  {
    method: 'GET',
    path: '/secrets/:secretId/value',
    action: 'vault.secret_value.read',
    auditType: 'read',
    resource: (params) => `secret:${params.secretId}`,
    async handle(context) {
      const secret = secretFor(context, 'member');
      return { status: 200, data: await withValue(context.store, secret) };
    },
  },
  {
    method: 'GET',
    path: '/vaults/:vaultId/secrets/values',
    action: 'vault.secret_values.read',
    auditType: 'read',
    resource: (params) => `vault:${params.vaultId}`,
    async handle(context) {
      const { vault } = vaultFor(context, context.params.vaultId, 'member');
      const { store } = context;
      const secrets = liveSecretsOf(store, vault.id).sort((a, b) =>
        compareNewestFirst(a.created_at, a.id, b.created_at, b.id),
      );
      return {
        status: 200,
        data: await Promise.all(secrets.map((secret) => withValue(store, secret))),
      };
    },
  },
];
