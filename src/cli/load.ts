/** What `run` loads before it starts a command: the data it runs with, and a snapshot keeps. */
import type { SecretsVault } from '../client.js';
import type { StartupOptions } from '../resources/secrets.js';
import { plainCopy } from '../startup/redacted.js';
import { referencedVault, resolveReferences } from '../startup/references.js';
import { toEnv } from '../startup/to-env.js';
import type { Snapshot } from './fallback.js';

/**
 * @internal What `run` starts from: the secrets of each vault, in order, and the values of the
 * `vault://` references in `jobEnv` (the job's environment, with its `--env-file` variables;
 * never in the vaults' values), as plain data a snapshot can hold.
 *
 * `deadline` (a `performance.now()` instant), when given, bounds the whole load: each call gets
 * the time left as its `totalTimeout`, so a `run --watch` poll, which reads the vaults and then
 * the vaults their references point into, ends by it however the service answers.
 */
export async function loadForRun(
  client: SecretsVault,
  vaultIds: readonly string[],
  jobEnv: Readonly<Record<string, string | undefined>>,
  startup: StartupOptions,
  deadline?: number,
): Promise<Snapshot> {
  const options = (): StartupOptions =>
    deadline === undefined
      ? startup
      : { ...startup, totalTimeout: Math.max(1, Math.round(deadline - performance.now())) };
  const vaults = await Promise.all(
    vaultIds.map(async (vaultId) => ({
      vaultId,
      // `load`'s record prints as [REDACTED], which a snapshot must not hold: a plain copy of the
      // data does not (a secret or key named `toJSON` included).
      secrets: plainCopy(await client.secrets.load(vaultId, options())),
    })),
  );
  const references: Record<string, string> = {};
  const referencing = Object.fromEntries(
    Object.entries(jobEnv).filter(([, value]) => value?.startsWith('vault://')),
  );
  // References into a vault just loaded are resolved from what it holds: one read per vault.
  const loaded = new Map(vaults.map(({ vaultId, secrets }) => [vaultId, secrets]));
  const intoLoaded: Record<string, string | undefined> = {};
  const intoOthers: Record<string, string | undefined> = {};
  for (const [name, reference] of Object.entries(referencing)) {
    (loaded.has(referencedVault(reference ?? '') ?? '') ? intoLoaded : intoOthers)[name] =
      reference;
  }
  const resolved = {
    ...(await resolveReferences(intoLoaded, async (vaultId) =>
      Object.entries(loaded.get(vaultId) ?? {}).map(([name, value]) => ({ name, value })),
    )),
    ...(await client.secrets.resolveReferences(intoOthers, options())),
  };
  for (const [name, reference] of Object.entries(referencing)) {
    const value = resolved[name];
    if (reference !== undefined && value !== undefined) references[reference] = value;
  }
  return { vaults, savedAt: Date.now(), references };
}

/**
 * @internal The variables the vaults of `snapshot` give, with `prefix`: each vault's as `toEnv`
 * names them, a later vault's replacing an earlier one's of the same name.
 *
 * @throws {SecretsSchemaError} when two values of one vault map to the same name
 */
export function variablesOf(snapshot: Snapshot, prefix: string): Record<string, string> {
  return Object.fromEntries(
    snapshot.vaults.flatMap(({ secrets }) => Object.entries(toEnv(secrets, { prefix }))),
  );
}
