/**
 * `@secrets-vault/sdk/secrets`: the secrets namespace (metadata, values, and the startup `load`) on
 * its own, for an app that uses nothing else of the API and wants nothing else in its bundle. `new
 * Secrets(options)` takes the client's options; errors and the other types come from
 * `@secrets-vault/sdk`, as ever.
 *
 * @example
 * ```ts
 * import { Secrets } from '@secrets-vault/sdk/secrets';
 *
 * const secrets = new Secrets({ baseUrl: location.origin, token: sessionStorage.token });
 * ```
 *
 * @packageDocumentation
 */
export {
  type LoadOptions,
  Secret,
  SecretCreateParams,
  SecretListParams,
  Secrets,
  SecretUpdateParams,
  SecretValue,
  SecretWithValue,
  type StartupOptions,
} from './resources/secrets.js';
