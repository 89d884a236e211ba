/**
 * `vault://<vaultId>/<secret name>/<key>` references: a string that names one value of one
 * secret, to put in configuration (an environment variable, a config file) in place of the
 * value itself. Each part is percent-encoded, so names with `/` or spaces can be referenced.
 */
import { SecretReferenceError } from '../core/errors.js';
import type { NamedValue } from './load.js';

const SCHEME = 'vault://';
// Vaults read at once: enough to overlap round trips, few enough that a config with references
// into thousands of vaults does not open thousands of connections (or trip the rate limit).
const MAX_IN_FLIGHT = 8;

/** What a reference points at. */
interface Reference {
  readonly text: string;
  readonly vaultId: string;
  readonly name: string;
  readonly key: string;
}

/**
 * Reads a reference, or returns undefined for a string that is not one (does not start with
 * `vault://`).
 *
 * @throws {SecretReferenceError} when it starts with `vault://` but is not three non-empty,
 *   validly percent-encoded parts
 */
function parseReference(text: string): Reference | undefined {
  if (!text.startsWith(SCHEME)) return undefined;
  const parts = text.slice(SCHEME.length).split('/');
  const malformed = () =>
    new SecretReferenceError(
      text,
      'a reference is vault://<vaultId>/<secret name>/<key>, each part non-empty and percent-encoded',
    );
  if (parts.length !== 3 || parts.some((part) => part === '')) throw malformed();
  try {
    const [vaultId, name, key] = parts.map((part) => decodeURIComponent(part)) as [
      string,
      string,
      string,
    ];
    if (vaultId === '' || name === '' || key === '') throw malformed();
    return { text, vaultId, name, key };
  } catch (error) {
    if (error instanceof SecretReferenceError) throw error;
    throw malformed();
  }
}

/**
 * @internal The vault a reference points into, or undefined for a string that is not a
 * well-formed reference (which {@link resolveReferences} then reports).
 */
export function referencedVault(text: string): string | undefined {
  try {
    return parseReference(text)?.vaultId;
  } catch {
    return undefined;
  }
}

/**
 * Returns a copy of `record` with every reference replaced by the value it names; other values
 * pass unchanged. Every reference is read before anything is fetched, then each vault that a
 * reference points into is fetched once, at most 8 at a time. The first failure ends the call:
 * no further vault is fetched.
 *
 * @throws {SecretReferenceError} for a malformed reference (before any request), or one that
 *   names a secret or key the vault does not have
 */
export async function resolveReferences<Values extends Record<string, string | undefined>>(
  record: Values,
  fetchValues: (vaultId: string) => Promise<readonly NamedValue[]>,
): Promise<{ [Key in keyof Values]: Values[Key] }> {
  const references = new Map<string, Reference>();
  for (const value of Object.values(record)) {
    if (typeof value !== 'string') continue;
    const reference = parseReference(value);
    if (reference !== undefined) references.set(value, reference);
  }
  const vaultIds = [...new Set([...references.values()].map((reference) => reference.vaultId))];
  const fetched = await mapLimited(vaultIds, MAX_IN_FLIGHT, fetchValues);
  const byVault = new Map(vaultIds.map((vaultId, index) => [vaultId, fetched[index] ?? []]));

  const resolve = (reference: Reference): string => {
    const matches = (byVault.get(reference.vaultId) ?? []).filter(
      (secret) => secret.name === reference.name,
    );
    if (matches.length === 0) {
      throw new SecretReferenceError(reference.text, 'the vault has no live secret of that name');
    }
    if (matches.length > 1) {
      throw new SecretReferenceError(
        reference.text,
        `${matches.length} live secrets have that name`,
      );
    }
    const value = matches[0]?.value;
    if (value === undefined || !Object.hasOwn(value, reference.key)) {
      throw new SecretReferenceError(reference.text, 'the secret has no such key');
    }
    return value[reference.key] as string;
  };
  return Object.fromEntries(
    Object.entries(record).map(([name, value]) => {
      const reference = typeof value === 'string' ? references.get(value) : undefined;
      return [name, reference === undefined ? value : resolve(reference)];
    }),
  ) as { [Key in keyof Values]: Values[Key] };
}

/**
 * `Promise.all(items.map(run))` with at most `limit` calls of `run` pending at a time; results
 * in the order of `items`. Rejects with the first failure, after which no call starts.
 */
async function mapLimited<Item, Result>(
  items: readonly Item[],
  limit: number,
  run: (item: Item) => Promise<Result>,
): Promise<Result[]> {
  const results: Result[] = [];
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < items.length; index = next++) {
      try {
        results[index] = await run(items[index] as Item);
      } catch (error) {
        next = items.length;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
