/**
 * A provisioning job that may be re-run: creates use an idempotency key derived from the job,
 * so a second run (or an automatic retry after a dropped connection) replays the first result
 * instead of creating a duplicate.
 *
 * Environment: SECRETS_VAULT_BASE_URL, SECRETS_VAULT_TOKEN, and optionally JOB_ID.
 */
import { SecretsVault } from '@secrets-vault/sdk';

const client = new SecretsVault();
const jobId = process.env.JOB_ID ?? 'provision-payments-2026-11';

for (const run of [1, 2]) {
  const { data: vault, replayed } = await client.vaults
    .create({ name: 'Payments' }, { idempotencyKey: `${jobId}/vault` })
    .withResponse();
  console.log(
    `run ${run}: vault ${vault.id}${replayed ? ' (replayed, not created again)' : ' (created)'}`,
  );
}

let payments = 0;
for await (const vault of client.vaults.list()) if (vault.name === 'Payments') payments += 1;
console.log(`vaults named Payments: ${payments}`);
