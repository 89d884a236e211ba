/**
 * The audit log: who did what to which resource, newest first.
 */
import * as z from 'zod/mini';
import type { RequestOptions } from '../core/options.js';
import type { PagePromise } from '../core/pagination.js';
import { APIResource, ListParams } from './shared.js';

/** One recorded action: who did what to which resource, from where, and whether it succeeded. */
export interface AuditEntry {
  /** The entry's identifier. */
  id: string;
  /**
   * What was done, dotted `<resource>.<subject>.<verb>` such as `vault.secret_value.read`; an
   * open string: any value may appear.
   */
  action: string;
  /** The resource acted on, as `<kind>:<id>`. */
  resource: string;
  /** The name of the caller who acted. */
  user_name: string;
  /** The IP address the request came from. */
  ip_address: string;
  /** Whether the action succeeded. */
  success: boolean;
  /** A category such as `read`; an open string: any value may appear. */
  type: string;
  /** When the action happened: an ISO 8601 UTC timestamp. */
  time: string;
}
/** Checks an `AuditEntry` received from the service; unknown keys are tolerated. */
export const AuditEntry = z.object({
  id: z.string(),
  action: z.string(),
  resource: z.string(),
  user_name: z.string(),
  ip_address: z.string(),
  success: z.boolean(),
  type: z.string(),
  time: z.string(),
}) satisfies z.ZodMiniType<AuditEntry>;

/** Query parameters of {@link Audit.list}: paging, and exact-match filters on `action` and `resource`. */
export interface AuditListParams extends ListParams {
  /** Only entries whose `action` is exactly this, such as `vault.secret_value.read`. */
  action?: string | undefined;
  /** Only entries whose `resource` is exactly this, as `<kind>:<id>`. */
  resource?: string | undefined;
}
/** Checks an `AuditListParams` query before it is sent. */
export const AuditListParams = z.object({
  ...ListParams.shape,
  action: z.optional(z.string()),
  resource: z.optional(z.string()),
}) satisfies z.ZodMiniType<AuditListParams, AuditListParams>;

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
      operation: 'audit.list',
      method: 'GET',
      path: '/audit',
      query: { value: params, schema: AuditListParams },
      expected: { kind: 'page', schema: AuditEntry },
      options,
    });
  }
}
