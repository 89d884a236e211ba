/** What `run` loads before it starts a command: the data it runs with, and a snapshot keeps. */
import type { SecretsVault } from '../client.js';
import type { StartupOptions } from '../resources/secrets.js';
import type { LoadedSecrets } from '../startup/load.js';
import { plainCopy } from '../startup/redacted.js';
import { referencedVault, resolveReferences } from '../startup/references.js';
import type { Snapshot } from './fallback.js';

/**
 * @internal What `run` starts from: the vault's secrets and the values of the `vault://`
 * references in the job's own environment (never in the vault's values), as plain data a
 * snapshot can hold.
 *
 * `deadline` (a `performance.now()` instant), when given, bounds the whole load: each call gets
 * the time left as its `totalTimeout`, so a `run --watch` poll, which reads the vault and then
 * the vaults its references point into, ends by it however the service answers.
 */
export async function loadForRun(
  client: SecretsVault,
  vaultId: string,
  startup: StartupOptions,
  deadline?: number,
): Promise<Snapshot> {
  const options = (): StartupOptions =>
    deadline === undefined
      ? startup
      : { ...startup, totalTimeout: Math.max(1, Math.round(deadline - performance.now())) };
  const loaded: LoadedSecrets = await client.secrets.load(vaultId, options());
  // `load`'s record prints as [REDACTED], which a snapshot must not hold: a plain copy of the
  // data does not (a secret or key named `toJSON` included).
  const secrets = plainCopy(loaded);
  const references: Record<string, string> = {};
  const referencing = Object.fromEntries(
    Object.entries(process.env).filter(([, value]) => value?.startsWith('vault://')),
  );
  // References into the vault just loaded are resolved from what it holds: one read per vault.
  const intoLoaded: Record<string, string | undefined> = {};
  const intoOthers: Record<string, string | undefined> = {};
  for (const [name, reference] of Object.entries(referencing)) {
    (referencedVault(reference ?? '') === vaultId ? intoLoaded : intoOthers)[name] = reference;
  }
  const held = Object.entries(secrets).map(([name, value]) => ({ name, value }));
  const resolved = {
    ...(await resolveReferences(intoLoaded, async () => held)),
    ...(await client.secrets.resolveReferences(intoOthers, options())),
  };
  for (const [name, reference] of Object.entries(referencing)) {
    const value = resolved[name];
    if (reference !== undefined && value !== undefined) references[reference] = value;
  }
  return { vaultId, savedAt: Date.now(), secrets, references };
}
