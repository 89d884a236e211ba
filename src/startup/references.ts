/**
 * `vault://<vaultId>/<secret name>/<key>` references: a string that names one value of one
 * secret, to put in configuration (an environment variable, a config file) in place of the
 * value itself. Each part is percent-encoded, so names with `/` or spaces can be referenced.
 * Read and looked up by reference-lookup.ts; this module throws what it hands back, for the
 * command. (`client.secrets.resolveReferences` loads reference-lookup.ts on demand instead.)
 */
import { SecretReferenceError } from '../core/errors.js';
import type { NamedValue } from './loaded-record.js';
import { lookUpReferences } from './reference-lookup.js';

export { referencedVault } from './reference-lookup.js';

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
  const result = await lookUpReferences(record, fetchValues);
  if ('problem' in result) throw new SecretReferenceError(result.reference, result.problem);
  return result.resolved;
}
