/**
 * `SecretsVault`: the client's options, its HTTP core and its resource namespaces.
 */
import { SecretsVaultError } from './core/errors.js';
import { describeMaxRetries, describeTimeout, HttpCore } from './core/http.js';
import { isLogLevel, LevelLogger, type Logger, type LogLevel } from './core/logger.js';
import { RetryBudget, type RetryBudgetOptions } from './core/retry.js';
import { Audit } from './resources/audit.js';
import { Org } from './resources/org.js';
import { Secrets } from './resources/secrets.js';
import { Teams } from './resources/teams.js';
import { Vaults } from './resources/vaults.js';

/** Options of {@link SecretsVault}. */
export interface ClientOptions {
  /**
   * Where the service lives, without `/v1` (paths are joined under it).
   * @default process.env.SECRETS_VAULT_BASE_URL, where `process` exists
   * @example 'https://vault.example.com'
   */
  readonly baseUrl?: string | undefined;
  /**
   * The access token sent as `Authorization: Bearer <token>`. It never appears in an error,
   * a log line or `console.log(client)`.
   * @default process.env.SECRETS_VAULT_TOKEN, where `process` exists
   */
  readonly token?: string | undefined;
  /**
   * Milliseconds allowed for each attempt of a request.
   * @default 30000
   */
  readonly timeout?: number | undefined;
  /**
   * Milliseconds allowed for a whole call, retries and backoff waits included; unlimited when
   * unset (each attempt still has `timeout`).
   */
  readonly totalTimeout?: number | undefined;
  /**
   * How many times a failed request is retried (only where it is safe: see the README).
   * @default 2
   */
  readonly maxRetries?: number | undefined;
  /**
   * The retry budget shared by every call of this client: retries spend tokens and successes
   * refill them, so when most recent attempts fail the client stops retrying and fails fast
   * instead of multiplying the load on a struggling service. `false` turns it off.
   * @default { capacity: 500, retryCost: 5, timeoutCost: 10 }
   */
  readonly retryBudget?: RetryBudgetOptions | false | undefined;
  /**
   * Where to send log lines (method, path, status, attempt, duration, request id, idempotency
   * key; never headers, bodies, tokens or secret values).
   * @default console
   */
  readonly logger?: Logger | undefined;
  /**
   * How much to log.
   * @default process.env.SECRETS_VAULT_LOG where `process` exists, else `'info'` when a
   *   `logger` is given and `'off'` otherwise
   */
  readonly logLevel?: LogLevel | undefined;
  /**
   * A `fetch` to send requests with, for example one that adds tracing.
   * @default globalThis.fetch
   */
  readonly fetch?: typeof globalThis.fetch | undefined;
  /**
   * Extra headers on every request. They cannot replace `Authorization`, `Accept`,
   * `Content-Type` or `Idempotency-Key`.
   * @default {}
   */
  readonly headers?: Readonly<Record<string, string>> | undefined;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_RETRIES = 2;
// A token goes into a header: visible ASCII only, so `Headers` never throws with it in a message.
const VALID_TOKEN = /^[\x21-\x7e]+$/;

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
    const baseUrl = options.baseUrl ?? readEnv('SECRETS_VAULT_BASE_URL');
    const token = options.token ?? readEnv('SECRETS_VAULT_TOKEN');
    if (baseUrl === undefined || baseUrl === '') {
      throw new SecretsVaultError(
        'Missing base URL: pass `baseUrl` to new SecretsVault() or set SECRETS_VAULT_BASE_URL',
      );
    }
    if (!isHttpUrl(baseUrl)) {
      throw new SecretsVaultError(
        'Invalid base URL: `baseUrl` (or SECRETS_VAULT_BASE_URL) must be an absolute http(s) URL',
      );
    }
    if (token === undefined || token === '') {
      throw new SecretsVaultError(
        'Missing token: pass `token` to new SecretsVault() or set SECRETS_VAULT_TOKEN',
      );
    }
    if (!VALID_TOKEN.test(token)) {
      throw new SecretsVaultError(
        'Invalid token: `token` (or SECRETS_VAULT_TOKEN) must be printable ASCII without spaces',
      );
    }
    const timeout = options.timeout ?? DEFAULT_TIMEOUT_MS;
    const { totalTimeout } = options;
    const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    const timeoutIssue = describeTimeout(timeout);
    if (timeoutIssue) throw new SecretsVaultError(`Invalid option \`timeout\`: ${timeoutIssue}`);
    const totalIssue = totalTimeout === undefined ? undefined : describeTimeout(totalTimeout);
    if (totalIssue) throw new SecretsVaultError(`Invalid option \`totalTimeout\`: ${totalIssue}`);
    const retriesIssue = describeMaxRetries(maxRetries);
    if (retriesIssue) throw new SecretsVaultError(`Invalid option \`maxRetries\`: ${retriesIssue}`);
    const envLevel = readEnv('SECRETS_VAULT_LOG');
    const logLevel = options.logLevel ?? envLevel ?? (options.logger ? 'info' : 'off');
    if (!isLogLevel(logLevel)) {
      throw new SecretsVaultError(
        'Invalid log level: `logLevel` (or SECRETS_VAULT_LOG) must be off, error, warn, info or debug',
      );
    }

    const core = new HttpCore({
      baseUrl,
      token,
      timeout,
      totalTimeout,
      maxRetries,
      headers: { ...options.headers },
      ...(options.fetch ? { fetch: options.fetch } : {}),
      retryBudget: options.retryBudget === false ? undefined : new RetryBudget(options.retryBudget),
      logger: logLevel === 'off' ? undefined : new LevelLogger(options.logger ?? console, logLevel),
    });
    this.vaults = new Vaults(core);
    this.secrets = new Secrets(core);
    this.teams = new Teams(core);
    this.org = new Org(core);
    this.audit = new Audit(core);
  }
}

// `process` is absent in browsers and edge workers; reading it must not throw there.
function readEnv(name: string): string | undefined {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process
    ?.env;
  const value = env?.[name]?.trim();
  return value === '' ? undefined : value;
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (
      (url.protocol === 'http:' || url.protocol === 'https:') &&
      url.search === '' &&
      url.hash === ''
    );
  } catch {
    return false;
  }
}
