/**
 * The audit log: who did what to which resource, newest first.
 */
import * as z from 'zod/mini';
import type { RequestOptions } from '../core/options.js';
import type { PagePromise } from '../core/pagination.js';
import { APIResource, ListParams } from './shared.js';

/** One recorded action: who did what to which resource, from where, and whether it succeeded. */
export const AuditEntry = z.object({
  id: z.string(),
  /** Dotted `<resource>.<subject>.<verb>`, such as `vault.secret_value.read`; any string may appear. */
  action: z.string(),
  /** `<kind>:<id>` of the resource acted on. */
  resource: z.string(),
  user_name: z.string(),
  ip_address: z.string(),
  success: z.boolean(),
  /** A category such as `read`; any string may appear. */
  type: z.string(),
  time: z.string(),
});
/** One recorded action: who did what to which resource, from where, and whether it succeeded. */
export type AuditEntry = z.infer<typeof AuditEntry>;

/** Query parameters of {@link Audit.list}: paging, and exact-match filters on `action` and `resource`. */
export const AuditListParams = z.extend(ListParams, {
  action: z.optional(z.string()),
  resource: z.optional(z.string()),
});
/** Query parameters of {@link Audit.list}: paging, and exact-match filters on `action` and `resource`. */
export type AuditListParams = z.infer<typeof AuditListParams>;

/** The audit log: `client.audit`. */
export class Audit extends APIResource {
  /**
   * Lists audit entries, newest first, optionally only those of one action or resource.
   *
   * @example
   * ```ts
   * for await (const entry of client.audit.list({ action: 'vault.secret_value.read' })) {
   *   console.log(entry.time, entry.user_name, entry.resource);
   * }
   * ```
   */
  list(params: AuditListParams = {}, options?: RequestOptions): PagePromise<AuditEntry> {
    return this.core.list({
      method: 'GET',
      path: '/audit',
      query: { value: params, schema: AuditListParams },
      expected: { kind: 'page', schema: AuditEntry },
      options,
    });
  }
}
