/**
 * Secrets as TanStack Query options: `q.secrets`, without the startup-only calls.
 */
import type {
  Secret,
  SecretCreateParams,
  SecretListParams,
  SecretsVault,
  SecretUpdateParams,
  SecretWithValue,
} from '@secrets-vault/sdk';
import type { QueryBuilders } from './builders.js';
import { HOLDS_VALUES } from './dehydrate.js';
import type { ListMethod, MutationMethod, QueryMethod, SecretsVaultQueryKey } from './types.js';

/**
 * `client.secrets` as query options, without the startup-only `load` and `resolveReferences`.
 * @inline
 */
export interface SecretsQueries {
  /** `[scope, 'secrets']`. */
  key(): SecretsVaultQueryKey;
  /** `client.secrets.list(vaultId, params?)`. */
  readonly list: ListMethod<[vaultId: string], SecretListParams, Secret>;
  /** `client.secrets.getValue(secretId)`: a decrypted value, held in the cache. */
  readonly getValue: QueryMethod<[secretId: string], SecretWithValue>;
  /** `client.secrets.listValues(vaultId)`: decrypted values, held in the cache. */
  readonly listValues: QueryMethod<[vaultId: string], SecretWithValue[]>;
  /** `client.secrets.create(vaultId, params)`: `vaultId` bound. */
  readonly create: MutationMethod<[vaultId: string], SecretCreateParams, Secret>;
  /** `client.secrets.update(secretId, params)`: `secretId` bound. */
  readonly update: MutationMethod<[secretId: string], SecretUpdateParams, Secret>;
  /** `client.secrets.delete(secretId)`: variables are the secret id. */
  readonly delete: MutationMethod<[], string, void>;
}

/** The options of `client.secrets`, built with `build`'s scope. */
export function secretsQueries(client: SecretsVault, build: QueryBuilders): SecretsQueries {
  const { key, read, list, write } = build;
  return {
    key: () => key('secrets'),
    list: list(['secrets', 'list'], ['vaultId'], (o, vaultId, params: SecretListParams) =>
      client.secrets.list(vaultId, params, o),
    ),
    getValue: read(
      ['secrets', 'getValue'],
      ['secretId'],
      (o, secretId) => client.secrets.getValue(secretId, o),
      HOLDS_VALUES,
    ),
    listValues: read(
      ['secrets', 'listValues'],
      ['vaultId'],
      (o, vaultId) => client.secrets.listValues(vaultId, o),
      HOLDS_VALUES,
    ),
    create: write(
      ['secrets', 'create'],
      ['vaultId'],
      (o, vaultId, params: SecretCreateParams) => client.secrets.create(vaultId, params, o),
      ({ vaultId }) => [key('secrets', 'list', vaultId), key('secrets', 'listValues', vaultId)],
      HOLDS_VALUES,
    ),
    // Only the secret id is known, not its vault: every secret list and every listValues. Its
    // variables may hold a value (a rename alone does not, but the options cannot tell).
    update: write(
      ['secrets', 'update'],
      ['secretId'],
      (o, secretId, params: SecretUpdateParams) => client.secrets.update(secretId, params, o),
      ({ secretId }) => [
        key('secrets', 'list'),
        key('secrets', 'listValues'),
        key('secrets', 'getValue', secretId),
      ],
      HOLDS_VALUES,
    ),
    delete: write(
      ['secrets', 'delete'],
      [],
      (o, secretId: string) => client.secrets.delete(secretId, o),
      () => [key('secrets')],
    ),
  };
}
