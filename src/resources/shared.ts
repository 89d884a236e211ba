/**
 * Types and schemas used by more than one resource: the embedded user, list parameters,
 * colours and vault roles.
 */
import * as z from 'zod/mini';
import { HttpCore } from '../core/http.js';
import { type ClientOptions, resolveClientOptions } from '../core/options.js';

/** A user as embedded in vault, team and organization members. */
export interface User {
  /** The user's identifier. */
  id: string;
  /** The user's display name. */
  name: string;
  /** The user's email address. */
  email: string;
}
/** Checks a `User` embedded in a member; unknown keys are tolerated. */
export const User = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
}) satisfies z.ZodMiniType<User>;

/** A role on a vault, lowest to highest: `member`, `editor`, `admin`. */
export type VaultRole = 'member' | 'editor' | 'admin';
/** Checks a `VaultRole`: one of `admin`, `editor` or `member`. */
export const VaultRole = z.enum(['admin', 'editor', 'member']) satisfies z.ZodMiniType<VaultRole>;

/** A colour in the form `#RRGGBB`. */
/**
 * @internal An integer (within `inRange`), checked by a refinement: zod's own integer and bound
 * checks bring a module of number formats into every browser bundle for this one rule.
 */
export function integer(
  message: string,
  inRange: (value: number) => boolean = () => true,
): z.ZodMiniNumber<number> {
  return z
    .number()
    .check(z.refine((value) => Number.isSafeInteger(value) && inRange(value), message));
}

/** @internal A string with at least one character; `message` says what it stands for. */
export function nonEmpty(message: string): z.ZodMiniString<string> {
  return z.string().check(z.refine((value) => value.length > 0, message));
}

export const HexColor = z
  .string()
  .check(
    z.refine((value) => /^#[0-9A-Fa-f]{6}$/.test(value), 'must be a colour in the form #RRGGBB'),
  );

/** Query parameters of every paginated list: the page size and where to start. */
export interface ListParams {
  /** Items per page, an integer from 1 to 100; the service's default is 50. */
  limit?: number | undefined;
  /**
   * Where to start: an opaque cursor, passed exactly as received in an earlier page's
   * `nextCursor`. Omitted, the list starts with the newest item.
   */
  cursor?: string | undefined;
}
/** Checks `ListParams` before they are sent: `limit` from 1 to 100, a non-empty `cursor`. */
export const ListParams = z.object({
  limit: z.optional(
    integer('must be an integer from 1 to 100', (value) => value >= 1 && value <= 100),
  ),
  cursor: z.optional(nonEmpty('must be a cursor returned by the service')),
}) satisfies z.ZodMiniType<ListParams, ListParams>;

/**
 * @internal The base of every resource namespace: holds the HTTP core, the client's or its own.
 */
export abstract class APIResource {
  /** @internal */
  protected readonly core: HttpCore;

  /** @internal Built by {@link SecretsVault} on the client's HTTP core. */
  constructor(core: HttpCore);
  /**
   * This part of the API on its own, without the rest of the client: what an app that uses
   * nothing else builds, from its sub-path (such as `@secrets-vault/sdk/vaults`), so that its
   * bundle carries only this namespace. It has its own settings and retry budget.
   *
   * @param options - the client's options, as `new SecretsVault()` takes them
   * @throws {SecretsVaultError} when the token or base URL is missing or malformed, or an option
   *   is out of range; the message names the option and its environment variable
   * @example
   * ```ts
   * import { Vaults } from '@secrets-vault/sdk/vaults';
   *
   * const vaults = new Vaults({ baseUrl: location.origin, token: sessionStorage.token });
   * const vault = await vaults.get(vaultId);
   * ```
   */
  constructor(options?: ClientOptions);
  constructor(options: HttpCore | ClientOptions = {}) {
    this.core = options instanceof HttpCore ? options : new HttpCore(resolveClientOptions(options));
  }
}
