/**
 * Handling errors by class (or by `code`), never by message text.
 *
 * Environment: SECRETS_VAULT_BASE_URL, SECRETS_VAULT_TOKEN.
 */
import {
  APIConnectionError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  RequestValidationError,
  SecretsVault,
} from '@secrets-vault/sdk';

const client = new SecretsVault();

async function readSecret(secretId: string): Promise<Record<string, string> | undefined> {
  try {
    const secret = await client.secrets.getValue(secretId);
    return secret.value;
  } catch (error) {
    if (error instanceof NotFoundError) return undefined; // archived, or never existed
    if (error instanceof PermissionDeniedError)
      throw new Error('This token may not read that vault');
    if (error instanceof RateLimitError)
      console.error(`rate limited; retry after ${error.retryAfter}s`);
    if (error instanceof APIConnectionError) console.error('service unreachable after retries');
    throw error;
  }
}

console.log('missing secret:', await readSecret('00000000-0000-4000-8000-000000000000'));

// Input that breaks the contract is refused before anything is sent, naming the field.
try {
  await client.vaults.list({ limit: 500 });
} catch (error) {
  if (!(error instanceof RequestValidationError)) throw error;
  for (const issue of error.issues)
    console.log(`refused: ${issue.path.join('.')} ${issue.message}`);
}
