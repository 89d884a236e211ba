/**
 * Schemas used by more than one resource: the embedded user, list parameters, colours and
 * vault roles.
 */
import * as z from 'zod/mini';
import type { HttpCore } from '../core/http.js';

/** A user as embedded in members: `id`, `name` and `email`. */
export const User = z.object({ id: z.string(), name: z.string(), email: z.string() });
/** A user as embedded in members: `id`, `name` and `email`. */
export type User = z.infer<typeof User>;

/** A role on a vault, lowest to highest: `member`, `editor`, `admin`. */
export const VaultRole = z.enum(['admin', 'editor', 'member']);
/** A role on a vault, lowest to highest: `member`, `editor`, `admin`. */
export type VaultRole = z.infer<typeof VaultRole>;

/** A colour in the form `#RRGGBB`. */
export const HexColor = z
  .string()
  .check(z.regex(/^#[0-9A-Fa-f]{6}$/, 'must be a colour in the form #RRGGBB'));

/** Query parameters of every paginated list: `limit` from 1 to 100, and an opaque `cursor`. */
export const ListParams = z.object({
  limit: z.optional(
    z
      .int()
      .check(
        z.minimum(1, 'must be an integer from 1 to 100'),
        z.maximum(100, 'must be an integer from 1 to 100'),
      ),
  ),
  cursor: z.optional(z.string().check(z.minLength(1, 'must be a cursor returned by the service'))),
});
/**
 * Query parameters of every paginated list.
 *
 * - `limit`: items per page, 1 to 100 (the service's default is 50).
 * - `cursor`: start from this cursor, as received in an earlier page's `nextCursor`.
 */
export type ListParams = z.infer<typeof ListParams>;

/** @internal The base of every resource namespace: holds the client's HTTP core. */
export abstract class APIResource {
  /** @internal */
  protected readonly core: HttpCore;

  /** @internal Resources are created by {@link SecretsVault}; do not construct them yourself. */
  constructor(core: HttpCore) {
    this.core = core;
  }
}
