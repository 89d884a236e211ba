/**
 * Walking lists: every item with `for await` (one page in memory at a time), page by page, or
 * the first N items.
 *
 * Environment: SECRETS_VAULT_BASE_URL, SECRETS_VAULT_TOKEN.
 */
import { SecretsVault } from '@secrets-vault/sdk';

const client = new SecretsVault();

// Every vault, following next_cursor until the last page; `break` would stop fetching.
let vaults = 0;
for await (const vault of client.vaults.list({ limit: 100 })) {
  vaults += 1;
  if (vault.role === 'admin') console.log(`admin of ${vault.name}`);
}
console.log(`${vaults} vaults`);

// Page by page, for progress reporting or checkpointing the cursor.
for await (const page of client.audit.list({ limit: 50 }).pages()) {
  console.log(`audit page: ${page.data.length} entries, more: ${page.hasNextPage()}`);
}

// Just the newest few.
const recent = await client.audit.list().toArray({ max: 5 });
for (const entry of recent) console.log(`${entry.time} ${entry.user_name} ${entry.action}`);
