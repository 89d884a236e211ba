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
 */
export async function loadForRun(
  client: SecretsVault,
  vaultId: string,
  startup: StartupOptions,
): Promise<Snapshot> {
  const loaded: LoadedSecrets = await client.secrets.load(vaultId, startup);
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
    ...(await client.secrets.resolveReferences(intoOthers, startup)),
  };
  for (const [name, reference] of Object.entries(referencing)) {
    const value = resolved[name];
    if (reference !== undefined && value !== undefined) references[reference] = value;
  }
  return { vaultId, savedAt: Date.now(), secrets, references };
}
