/**
 * `@secrets-vault/sdk/audit`: the audit log on its own, for an app that uses nothing else of the
 * API and wants nothing else in its bundle. `new Audit(options)` takes the client's options; errors
 * and the other types come from `@secrets-vault/sdk`, as ever.
 *
 * @example
 * ```ts
 * import { Audit } from '@secrets-vault/sdk/audit';
 *
 * const audit = new Audit({ baseUrl: location.origin, token: sessionStorage.token });
 * ```
 *
 * @packageDocumentation
 */
export { Audit, AuditEntry, AuditListParams } from './resources/audit.js';
