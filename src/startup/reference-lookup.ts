/**
 * `vault://<vaultId>/<secret name>/<key>` references read and looked up: each vault a reference
 * points into fetched once, at most 8 at a time, and each reference replaced by the value it
 * names. `client.secrets.resolveReferences` loads this module on demand, so a page that never
 * resolves a reference never downloads it. For that reason it imports no code of the SDK (a
 * bundler would move whatever it shared with the page into a chunk of its own, which the page
 * would then download first): a reference it cannot resolve is handed back, for the caller to
 * throw as a `SecretReferenceError`.
 */
import type { NamedValue } from './loaded-record.js';

const SCHEME = 'vault://';
// Vaults read at once: enough to overlap round trips, few enough that a config with references
// into thousands of vaults does not open thousands of connections (or trip the rate limit).
const MAX_IN_FLIGHT = 8;
const MALFORMED =
  'a reference is vault://<vaultId>/<secret name>/<key>, each part non-empty and percent-encoded';

/** What a reference points at. */
interface Reference {
  readonly text: string;
  readonly vaultId: string;
  readonly name: string;
  readonly key: string;
}

/** @internal A reference that cannot be resolved, as written, and why. */
export interface UnresolvedReference {
  readonly reference: string;
  readonly problem: string;
}

/**
 * Reads a reference: what it points at, `undefined` for a string that is not one (does not
 * start with `vault://`), or `null` when it starts with `vault://` but is not three non-empty,
 * validly percent-encoded parts.
 */
function parseReference(text: string): Reference | undefined | null {
  if (!text.startsWith(SCHEME)) return undefined;
  const parts = text.slice(SCHEME.length).split('/');
  if (parts.length !== 3 || parts.some((part) => part === '')) return null;
  try {
    // A non-empty part never decodes to an empty one: only bad percent-encoding fails here.
    const [vaultId, name, key] = parts.map((part) => decodeURIComponent(part)) as [
      string,
      string,
      string,
    ];
    return { text, vaultId, name, key };
  } catch {
    return null;
  }
}

/**
 * @internal The vault a reference points into, or undefined for a string that is not a
 * well-formed reference (which {@link lookUpReferences} then reports).
 */
export function referencedVault(text: string): string | undefined {
  return parseReference(text)?.vaultId;
}

/**
 * @internal A copy of `record` with every reference replaced by the value it names; other
 * values pass unchanged. Every reference is read before anything is fetched, then each vault
 * that a reference points into is fetched with `fetchValues` once, at most 8 at a time. The
 * first malformed reference (before any request), or the first that names a secret or key its
 * vault does not have, comes back as an {@link UnresolvedReference}; the first fetch that fails
 * rejects with its error, and no further vault is fetched.
 */
export async function lookUpReferences<Values extends Record<string, string | undefined>>(
  record: Values,
  fetchValues: (vaultId: string) => Promise<readonly NamedValue[]>,
): Promise<{ readonly resolved: { [Key in keyof Values]: Values[Key] } } | UnresolvedReference> {
  const references = new Map<string, Reference>();
  for (const value of Object.values(record)) {
    if (typeof value !== 'string') continue;
    const reference = parseReference(value);
    if (reference === null) return { reference: value, problem: MALFORMED };
    if (reference !== undefined) references.set(value, reference);
  }
  const vaultIds = [...new Set([...references.values()].map((reference) => reference.vaultId))];
  const fetched = await mapLimited(vaultIds, MAX_IN_FLIGHT, fetchValues);
  const byVault = new Map(vaultIds.map((vaultId, index) => [vaultId, fetched[index] ?? []]));

  const entries: Array<[string, string | undefined]> = [];
  for (const [name, value] of Object.entries(record)) {
    const reference = typeof value === 'string' ? references.get(value) : undefined;
    if (reference === undefined) {
      entries.push([name, value]);
      continue;
    }
    const matches = (byVault.get(reference.vaultId) ?? []).filter(
      (secret) => secret.name === reference.name,
    );
    const unresolved = (problem: string) => ({ reference: reference.text, problem });
    if (matches.length === 0) return unresolved('the vault has no live secret of that name');
    if (matches.length > 1) return unresolved(`${matches.length} live secrets have that name`);
    const secretValue = matches[0]?.value;
    if (secretValue === undefined || !Object.hasOwn(secretValue, reference.key)) {
      return unresolved('the secret has no such key');
    }
    entries.push([name, secretValue[reference.key]]);
  }
  // Object.fromEntries defines each key as data, so a variable named `__proto__` is just a key.
  return { resolved: Object.fromEntries(entries) as { [Key in keyof Values]: Values[Key] } };
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
