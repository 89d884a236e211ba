/**
 * `secrets-vault export`: the vault's secrets as environment variables, printed or written to a
 * file, for the readers that load them (a dotenv file, a shell's `eval`, JSON), or written as the
 * encrypted snapshot `run --fallback` starts from.
 */
import { readEnv } from '../../core/env.js';
import { newClient } from '../client.js';
import type { Command, Flag } from '../command.js';
import { EnvFormatError, formatDotenv, formatShell } from '../dotenv.js';
import { CommandError, usageError } from '../errors.js';
import {
  checkSnapshotPath,
  FALLBACK_KEY_VARIABLE,
  readFallbackKey,
  writeSnapshot,
} from '../fallback.js';
import { writeOutput } from '../files.js';
import { FORMAT, PREFIX, VAULT, WAIT, WAIT_HELP } from '../flags.js';
import { loadForRun, variablesOf } from '../load.js';

const OUTPUT: Flag = { name: 'output', type: 'string' };

/** @internal `secrets-vault export --vault <id> --format dotenv|shell|json|snapshot [options]`. */
export const exportCommand: Command = {
  name: 'export',
  summary: "print (or write) the vault's secrets as environment variables",
  synopsis: [
    '--vault <id> --format dotenv|shell|json [--output F] [--wait D]',
    '--vault <id> --format snapshot --output F [--wait D]',
  ],
  usage: `Usage: secrets-vault export --vault <id> --format dotenv|shell|json
                              [--output <file>] [--wait D]
       secrets-vault export --vault <id> --format snapshot --output <file> [--wait D]
`,
  description: `Prints the vault's secrets as environment variables on stdout, or writes them to a
file: dotenv lines that node --env-file, the dotenv package and a shell sourcing
the file (set -a; . ./.env) all read back exactly, with no value able to make a
shell run anything (a value no quoting can carry for all three is refused, naming
its variable); export lines for eval "$(secrets-vault export --format shell ...)";
or one JSON object.

--format snapshot writes the encrypted snapshot that run --fallback <file> reads
(key in SECRETS_VAULT_FALLBACK_KEY, bound to the vault and to the origin of
SECRETS_VAULT_BASE_URL, with the vault:// references of this environment resolved),
so that a job can start from it with run --fallback <file> --fallback-only, or
through an outage before its first good load. It is never printed: --output is
required, and --prefix belongs to run.
`,
  flags: [
    { flag: VAULT, help: '  --vault <id>       the vault to load (required)\n' },
    { flag: FORMAT, help: '  --format <format>  dotenv, shell, json or snapshot (required)\n' },
    {
      flag: OUTPUT,
      help: `  --output <file>    write to <file> instead of stdout: created with mode 0600 (never
                     wider than the file it replaces), replaced atomically
`,
    },
    { flag: PREFIX, help: '  --prefix <P>       prepended to every variable name\n' },
    { flag: WAIT, help: WAIT_HELP },
  ],
  async action(context) {
    const { vaultIds, prefix, startup } = context;
    const format = context.string(FORMAT);
    if (format !== 'dotenv' && format !== 'shell' && format !== 'json' && format !== 'snapshot') {
      throw usageError('--format must be dotenv, shell, json or snapshot', 'export');
    }
    const output = context.string(OUTPUT);
    if (output === '') throw usageError('--output takes a file', 'export');
    if (format === 'snapshot') {
      // Encrypted or not, a snapshot is not for a terminal or a log: it only ever goes to a file.
      if (output === undefined) {
        throw usageError('--format snapshot needs --output <file>', 'export');
      }
      // `run` applies its own --prefix to what the snapshot holds.
      if (prefix !== '') {
        throw usageError(
          '--prefix cannot be used with --format snapshot: give it to run',
          'export',
        );
      }
      const key = readFallbackKey(process.env[FALLBACK_KEY_VARIABLE]);
      // Before the load: a path a snapshot cannot be written to costs no request.
      checkSnapshotPath(output);
      const client = newClient();
      // The client has checked the base URL: the snapshot is bound to the service it names.
      const origin = new URL(readEnv('SECRETS_VAULT_BASE_URL') ?? '').origin;
      writeSnapshot(output, key, origin, await loadForRun(client, vaultIds, process.env, startup));
      return 0;
    }
    const client = newClient();
    // Plain data: `load`'s records print as [REDACTED], and this is the one place meant to print.
    // No references are resolved: what is printed is the vaults' own variables.
    const variables = variablesOf(await loadForRun(client, vaultIds, {}, startup), prefix);
    let text: string;
    try {
      text =
        format === 'json'
          ? `${JSON.stringify(variables, null, 2)}\n`
          : format === 'shell'
            ? formatShell(variables)
            : formatDotenv(variables);
    } catch (error) {
      if (error instanceof EnvFormatError) throw new CommandError(error.message, 1);
      throw error;
    }
    await writeOutput(output, text);
    return 0;
  },
};
