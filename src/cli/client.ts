/** The client every command uses: the environment's settings, logging to stderr. */
import { SecretsVault } from '../client.js';
import type { Logger } from '../core/logger.js';

/** stdout is the command's output (`export` writes values there): every log line goes to stderr. */
const STDERR_LOGGER: Logger = {
  debug: (message, fields) => console.error(message, fields),
  info: (message, fields) => console.error(message, fields),
  warn: (message, fields) => console.error(message, fields),
  error: (message, fields) => console.error(message, fields),
};

/**
 * @internal The command's client: the environment's settings, logging (off unless
 * SECRETS_VAULT_LOG) to stderr.
 */
export function newClient(): SecretsVault {
  return new SecretsVault({
    logger: STDERR_LOGGER,
    // Given a logger, the client logs `info` by default; the command stays quiet unless asked.
    ...(process.env.SECRETS_VAULT_LOG ? {} : { logLevel: 'off' }),
  });
}
