/**
 * `secrets-vault export`: the vault's secrets as environment variables, printed or written to a
 * file, for the readers that load them (a dotenv file, a shell's `eval`, JSON).
 */
import { toEnv } from '../../startup/to-env.js';
import { newClient } from '../client.js';
import type { Command, Flag } from '../command.js';
import { EnvFormatError, formatDotenv, formatShell } from '../dotenv.js';
import { CommandError, usageError } from '../errors.js';
import { writeFileAtomically } from '../files.js';
import { PREFIX, VAULT, WAIT, WAIT_HELP } from '../flags.js';

const FORMAT: Flag = { name: 'format', type: 'string' };
const OUTPUT: Flag = { name: 'output', type: 'string' };

/** @internal `secrets-vault export --vault <id> --format dotenv|shell|json [options]`. */
export const exportCommand: Command = {
  name: 'export',
  summary: "print (or write) the vault's secrets as environment variables",
  synopsis: ['--vault <id> --format dotenv|shell|json [--output F] [--wait D]'],
  usage: `Usage: secrets-vault export --vault <id> --format dotenv|shell|json
                              [--output <file>] [--wait D]
`,
  description: `Prints the vault's secrets as environment variables on stdout, or writes them to a
file: dotenv lines that node --env-file, the dotenv package and a shell sourcing
the file (set -a; . ./.env) all read back exactly, with no value able to make a
shell run anything (a value no quoting can carry for all three is refused, naming
its variable); export lines for eval "$(secrets-vault export --format shell ...)";
or one JSON object.
`,
  flags: [
    { flag: VAULT, help: '  --vault <id>       the vault to load (required)\n' },
    { flag: FORMAT, help: '  --format <format>  dotenv, shell or json (required)\n' },
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
    const { vaultId, prefix, startup } = context;
    const format = context.string(FORMAT);
    if (format !== 'dotenv' && format !== 'shell' && format !== 'json') {
      throw usageError('--format must be dotenv, shell or json', 'export');
    }
    const output = context.string(OUTPUT);
    if (output === '') throw usageError('--output takes a file', 'export');
    const client = newClient();
    // A plain copy: `toEnv` keeps the printing safe, and this is the one place meant to print.
    const variables = { ...toEnv(await client.secrets.load(vaultId, startup), { prefix }) };
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
    if (output === undefined) {
      process.stdout.write(text);
      return 0;
    }
    try {
      writeFileAtomically(output, text);
    } catch (error) {
      throw new CommandError(
        `cannot write ${output}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
        1,
      );
    }
    return 0;
  },
};
