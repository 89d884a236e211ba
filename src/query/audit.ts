/**
 * The audit log as TanStack Query options: `q.audit`.
 */
import type { AuditEntry, AuditListParams, SecretsVault } from '@secrets-vault/sdk';
import type { QueryBuilders } from './builders.js';
import type { ListMethod, SecretsVaultQueryKey } from './types.js';

/**
 * `client.audit` as query options; every write of these options invalidates it.
 * @inline
 */
export interface AuditQueries {
  /** `[scope, 'audit']`. */
  key(): SecretsVaultQueryKey;
  /** `client.audit.list(params?)`. */
  readonly list: ListMethod<[], AuditListParams, AuditEntry>;
}

/** The options of `client.audit`, built with `build`'s scope. */
export function auditQueries(client: SecretsVault, build: QueryBuilders): AuditQueries {
  const { audit, list } = build;
  return {
    key: () => audit,
    list: list(['audit', 'list'], [], (o, params: AuditListParams) => client.audit.list(params, o)),
  };
}
