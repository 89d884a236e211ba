/**
 * The README's quick start as a program: create a vault, store a secret, and read every value
 * back in one call. Run with SECRETS_VAULT_BASE_URL and SECRETS_VAULT_TOKEN set.
 */
import { APIError, SecretsVault } from '@secrets-vault/sdk';

const client = new SecretsVault();

try {
  const vault = await client.vaults.create({ name: 'Payments' });
  await client.secrets.create(vault.id, {
    name: 'stripe',
    value: { api_key: 'sk_test_example' },
    type: 'api_key',
  });

  const secrets = await client.secrets.listValues(vault.id);
  for (const secret of secrets) {
    console.log(`${secret.name}: ${Object.keys(secret.value).join(', ')}`);
  }
} catch (error) {
  if (error instanceof APIError) {
    console.error(`${error.name} ${error.status} ${error.code ?? ''} (request ${error.requestId})`);
    process.exitCode = 1;
  } else {
    throw error;
  }
}
