/**
 * A server job's startup: load one vault's secrets as typed configuration, in a single request,
 * before serving; hand some of them to child processes as environment variables.
 *
 * Environment: SECRETS_VAULT_BASE_URL, SECRETS_VAULT_TOKEN (read by the client itself) and
 * VAULT_ID. Values are used, never printed: printing the loaded config shows [REDACTED].
 */
import {
  APIError,
  SecretsSchemaError,
  SecretsVault,
  SecretsVaultError,
  toEnv,
} from '@secrets-vault/sdk';
import * as z from 'zod';

// What this job needs from its vault; any Standard Schema (zod, valibot, arktype) works.
const Config = z.object({
  database: z.object({
    host: z.string(),
    username: z.string(),
    password: z.string().min(8),
  }),
  stripe: z.object({ api_key: z.string().startsWith('sk_') }),
});

const vaultId = process.env.VAULT_ID;

try {
  if (!vaultId) throw new SecretsVaultError('Set VAULT_ID to the vault this job reads');
  const client = new SecretsVault({ timeout: 10_000 });

  // One request for every live secret and its value, checked against the schema. An unavailable
  // service is waited out for 60 s (SECRETS_VAULT_WAIT); a refused token fails at once.
  const config = await client.secrets.load(vaultId, { schema: Config });
  console.log(`Loaded config from vault ${vaultId}:`, config);
  console.log(`Database user: ${config.database.username}@${config.database.host}`);

  // The same secrets as variables, for a child process or a library that reads the environment.
  const env = toEnv(config, { prefix: 'CHECKOUT_' });
  console.log(`Variables for child processes: ${Object.keys(env).join(', ')}`);
} catch (error) {
  if (error instanceof SecretsSchemaError) {
    console.error(
      `Secrets do not fit the config: ${error.issues.map((i) => i.path.join('.')).join(', ')}`,
    );
  } else if (error instanceof APIError) {
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
