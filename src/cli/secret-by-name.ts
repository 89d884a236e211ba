/**
 * What `get`, `set` and `rm` share: one secret of a vault, found by its name in every page of
 * the vault's listing, and the options their calls run with, so that `--wait` means for them
 * what it means for the commands that load a vault.
 */
import type { SecretsVault } from '../client.js';
import { readEnvSetting } from '../core/env.js';
import { NotFoundError } from '../core/errors.js';
import { MAX_TIMER_MS } from '../core/limits.js';
import { DEFAULT_WAIT_MS, type RequestOptions } from '../core/options.js';
import type { Secret, SecretValue, StartupOptions } from '../resources/secrets.js';
import type { CommandContext } from './command.js';
import { CommandError, shellWord, usageError } from './errors.js';

/** Secrets asked for per page: the most the service gives, so a large vault costs few requests. */
const PAGE_SIZE = 100;

/**
 * Pages read before the listing is given up. The SDK's pagination already stops a listing that
 * repeats a cursor or keeps sending empty pages; one that hands out a new cursor with every page
 * of items would still never end, and a command must not hang on it. 1 000 full pages are
 * 100 000 secrets, far more than a vault holds.
 */
export const MAX_LISTING_PAGES = 1_000;

/**
 * @internal The options of every call `get`, `set` and `rm` make: with a wait (`--wait`, else
 * `SECRETS_VAULT_WAIT`, else 60 s), an unavailable service is retried with the SDK's backoff until
 * the wait is over; with a wait of 0, the client's ordinary policy (three attempts). A verdict (a
 * refused token, a secret that does not exist) still fails at once.
 */
export function callOptions(startup: StartupOptions): RequestOptions {
  const wait = startup.wait ?? readEnvSetting('SECRETS_VAULT_WAIT', 'wait') ?? DEFAULT_WAIT_MS;
  if (wait === 0) return {};
  // A wait longer than a timer can hold (or `Infinity`) has no deadline: it waits as asked.
  return wait <= MAX_TIMER_MS
    ? { maxRetries: Number.POSITIVE_INFINITY, totalTimeout: wait }
    : { maxRetries: Number.POSITIVE_INFINITY };
}

/**
 * @internal The live secret of `vaultId` named `name`, looked for in every page of the vault's
 * listing (not only the first); undefined when there is none.
 *
 * @throws {CommandError} (exit 1) when the vault does not exist, when several live secrets share
 *   the name (which one is meant cannot be told), or when the listing never ends
 */
export async function findSecret(
  client: SecretsVault,
  vaultId: string,
  name: string,
  options: RequestOptions,
): Promise<Secret | undefined> {
  const found: Secret[] = [];
  let pages = 0;
  try {
    for await (const page of client.secrets.list(vaultId, { limit: PAGE_SIZE }, options).pages()) {
      pages += 1;
      found.push(...page.data.filter((secret) => secret.name === name));
      if (pages >= MAX_LISTING_PAGES && page.hasNextPage()) {
        throw new CommandError(
          `the listing of vault ${shellWord(vaultId)} went on past ${MAX_LISTING_PAGES} pages, so it was stopped`,
          1,
        );
      }
    }
  } catch (error) {
    // The listing's route names no vault: a 404 there means the vault given does not exist.
    if (error instanceof NotFoundError) {
      throw new CommandError(`vault ${shellWord(vaultId)} not found`, 1);
    }
    throw error;
  }
  if (found.length > 1) {
    throw new CommandError(
      `vault ${shellWord(vaultId)} holds ${found.length} secrets named ${shellWord(name)} (${found.map(({ id }) => shellWord(id)).join(', ')}), so which one is meant cannot be told`,
      1,
    );
  }
  return found[0];
}

/**
 * @internal The secret of `vaultId` named `name`, as {@link findSecret} finds it.
 *
 * @throws {CommandError} (exit 1) naming the secret when the vault has none of that name, and
 *   for every failure of {@link findSecret}
 */
export async function requireSecret(
  client: SecretsVault,
  vaultId: string,
  name: string,
  options: RequestOptions,
): Promise<Secret> {
  const secret = await findSecret(client, vaultId, name, options);
  if (secret === undefined) throw missingSecret(vaultId, name);
  return secret;
}

/**
 * @internal The current value of `secret`, read by its id.
 *
 * @throws {CommandError} (exit 1) naming the secret when it was removed since it was found
 */
export async function currentValue(
  client: SecretsVault,
  vaultId: string,
  secret: Secret,
  options: RequestOptions,
): Promise<SecretValue> {
  try {
    return (await client.secrets.getValue(secret.id, options)).value;
  } catch (error) {
    if (error instanceof NotFoundError) throw missingSecret(vaultId, secret.name);
    throw error;
  }
}

/** @internal The failure for a secret the vault does not have: its name, never a value. */
export function missingSecret(vaultId: string, name: string): CommandError {
  return new CommandError(`vault ${shellWord(vaultId)} has no secret named ${shellWord(name)}`, 1);
}

/** @internal The failure for a key the secret's value does not have: its name, never a value. */
export function missingKey(name: string, key: string): CommandError {
  return new CommandError(`secret ${shellWord(name)} has no key ${shellWord(key)}`, 1);
}

/** @internal Whether `value` has `key` of its own (never one its prototype lends it, such as `toString`). */
export function hasKey(value: SecretValue, key: string): boolean {
  return Object.hasOwn(value, key);
}

/** @internal What `get` and `rm` are given: `--vault <id> <secret> [<key>]`. */
export interface SecretAndKey {
  readonly vaultId: string;
  readonly name: string;
  /** The key inside the secret's value; undefined for the whole secret. */
  readonly key: string | undefined;
}

/**
 * @internal Reads `--vault <id> <secret> [<key>]` for `command` (`get` reads the secret, `rm`
 * removes it), with the usage errors that name the fix.
 */
export function secretAndKey(context: CommandContext, command: 'get' | 'rm'): SecretAndKey {
  const [vaultId = '', ...more] = context.vaultIds;
  const does = command === 'get' ? 'reads' : 'writes';
  if (more.length > 0) throw usageError(`${command} ${does} one vault: give --vault once`, command);
  const [name, key, ...extra] = context.arguments;
  if (name === undefined || name === '') {
    throw usageError(
      `give the name of the secret to ${command === 'get' ? 'read' : 'remove'}: ${command} --vault <id> <secret>`,
      command,
    );
  }
  if (extra.length > 0) {
    throw usageError(
      `${command} takes a secret and at most one key: ${command} <secret> [<key>]`,
      command,
    );
  }
  if (key === '') throw usageError('a key is never empty: give its name, or none', command);
  return { vaultId, name, key };
}
