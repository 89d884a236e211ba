/**
 * A server job's startup: load every secret of one vault in a single call, before serving.
 *
 * Environment: SECRETS_VAULT_BASE_URL, SECRETS_VAULT_TOKEN (read by the client itself) and
 * VAULT_ID. Values are used, never printed: the log shows names and keys with values masked.
 */
import { APIError, SecretsVault, SecretsVaultError } from '@secrets-vault/sdk';

const vaultId = process.env.VAULT_ID;

try {
  if (!vaultId) throw new SecretsVaultError('Set VAULT_ID to the vault this job reads');
  const client = new SecretsVault({ timeout: 10_000, maxRetries: 3 });

  // One request for every live secret and its value: no pagination to follow at startup.
  const secrets = await client.secrets.listValues(vaultId);
  const config = new Map(secrets.map((secret) => [secret.name, secret.value]));

  console.log(`Loaded ${config.size} secrets from vault ${vaultId}:`);
  for (const secret of secrets) {
    const keys = Object.keys(secret.value).map((key) => `${key}=****`);
    console.log(`  ${secret.name} (${secret.type}): ${keys.join(', ')}`);
  }
} catch (error) {
  if (error instanceof APIError) {
    console.error(
      `Could not load secrets: ${error.name} ${error.status} (request ${error.requestId})`,
    );
  } else if (error instanceof SecretsVaultError) {
    console.error(`Could not load secrets: ${error.message}`);
  } else {
    throw error;
  }
  process.exitCode = 1;
}
