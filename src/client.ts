/**
 * `SecretsVault`: the client's options, its HTTP core and its resource namespaces.
 */
import { HttpCore } from './core/http.js';
import { type ClientOptions, resolveClientOptions } from './core/options.js';
import { Audit } from './resources/audit.js';
import { Org } from './resources/org.js';
import { Secrets } from './resources/secrets.js';
import { Teams } from './resources/teams.js';
import { Vaults } from './resources/vaults.js';

/**
 * The Secrets Vault client. One instance per token; it is cheap, holds no connection, and can
 * be shared by every part of an application.
 *
 * @example
 * ```ts
 * import { SecretsVault } from '@secrets-vault/sdk';
 *
 * const client = new SecretsVault(); // SECRETS_VAULT_BASE_URL and SECRETS_VAULT_TOKEN
 * const secrets = await client.secrets.listValues(process.env.VAULT_ID ?? '');
 * ```
 */
export class SecretsVault {
  /** Vaults, and their members: `client.vaults.members`. */
  readonly vaults: Vaults;
  /** Secrets: metadata, values, and the one-call `listValues` of a vault. */
  readonly secrets: Secrets;
  /** Teams, and their members: `client.teams.members`. */
  readonly teams: Teams;
  /** The caller's organization, its members and its invitations. */
  readonly org: Org;
  /** The audit log. */
  readonly audit: Audit;

  /**
   * Creates a client.
   *
   * @throws {SecretsVaultError} when the token or base URL is missing or malformed, or an option
   *   is out of range; the message names the option and its environment variable.
   */
  constructor(options: ClientOptions = {}) {
    const core = new HttpCore(resolveClientOptions(options));
    this.vaults = new Vaults(core);
    this.secrets = new Secrets(core);
    this.teams = new Teams(core);
    this.org = new Org(core);
    this.audit = new Audit(core);
  }
}
