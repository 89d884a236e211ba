/** The client every command uses: the environment's settings, logging to stderr in logfmt. */
import { SecretsVault } from '../client.js';
import { readEnv } from '../core/env.js';
import type { LogFields, Logger } from '../core/logger.js';
import { escapeControlCharacters } from '../core/redaction.js';
import { namingVault } from './errors.js';

/**
 * @internal One log line in logfmt (`level=warn msg="…" key=value …`), as log shippers and
 * `grep` read it: one line per record, whatever a value holds. A string that is not a plain word
 * is quoted, its quotes, backslashes and control characters escaped; an object is written as
 * quoted JSON; an absent value (`null`, `undefined`) is left out.
 */
export function logfmtLine(level: string, message: string, fields: object): string {
  const pairs = [`level=${level}`, `msg=${logfmtValue(message)}`];
  for (const [key, value] of Object.entries(fields)) {
    if (value === null || value === undefined) continue;
    const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
    pairs.push(`${logfmtKey(key)}=${logfmtValue(text)}`);
  }
  return `${pairs.join(' ')}\n`;
}

/** A key as logfmt allows it: no space, `=` or quote; anything else becomes `_`. */
function logfmtKey(key: string): string {
  return key.replace(/[^\w.-]/g, '_') || '_';
}

// A bare logfmt value: printable ASCII without space, `=`, quote or backslash.
const BARE = /^[\x21\x23-\x3c\x3e-\x5b\x5d-\x7e]+$/;

function logfmtValue(text: string): string {
  if (BARE.test(text)) return text;
  return `"${escapeControlCharacters(text.replace(/[\\"]/g, '\\$&'))}"`;
}

/** stdout is the command's output (`export` writes values there): every log line goes to stderr. */
const line =
  (level: keyof Logger) =>
  (message: string, fields: LogFields): void => {
    process.stderr.write(logfmtLine(level, message, fields));
  };

const STDERR_LOGGER: Logger = {
  debug: line('debug'),
  info: line('info'),
  warn: line('warn'),
  error: line('error'),
};

/** The same, but a good answer is a `debug` line: a watch would log one at each poll. */
const POLLING_LOGGER: Logger = { ...STDERR_LOGGER, info: line('debug') };

/**
 * @internal The command's client: the environment's settings (`SECRETS_VAULT_TOKEN` or
 * `SECRETS_VAULT_TOKEN_FILE`), logging (off unless SECRETS_VAULT_LOG) to stderr. A vault it
 * loads that does not exist fails with an error the command reports naming that vault. With
 * `polling` (the client a `--watch` polls with), its good answers are `debug` lines, printed
 * only at `SECRETS_VAULT_LOG=debug`; its retries and failures keep their levels.
 */
export function newClient({ polling = false }: { readonly polling?: boolean } = {}): SecretsVault {
  const client = new SecretsVault({
    logger: polling ? POLLING_LOGGER : STDERR_LOGGER,
    // Given a logger, the client logs `info` by default; the command stays quiet unless asked.
    // A polling client at `info` drops its good answers, which are `debug` lines to it.
    ...(!process.env.SECRETS_VAULT_LOG
      ? { logLevel: 'off' }
      : polling && readEnv('SECRETS_VAULT_LOG') === 'info'
        ? { logLevel: 'warn' }
        : {}),
  });
  // Every command reads the vaults it was given through `load`: only there is it known which
  // vault a 404 was about (an error names its route, never the ids in it).
  const { secrets } = client;
  const load = secrets.load.bind(secrets);
  secrets.load = (async (vaultId: string, options?: Parameters<typeof load>[1]) => {
    try {
      return await load(vaultId, options);
    } catch (error) {
      throw namingVault(error, vaultId);
    }
  }) as typeof secrets.load;
  return client;
}
