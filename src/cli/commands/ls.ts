/** `secrets-vault ls`: the names and keys of a vault's live secrets, never their values. */
import { escapeControlCharacters } from '../../core/redaction.js';
import { newClient } from '../client.js';
import type { Command } from '../command.js';
import { PREFIX, VAULT, WAIT, WAIT_HELP } from '../flags.js';

/** @internal `secrets-vault ls --vault <id> [--wait D]`. */
export const lsCommand: Command = {
  name: 'ls',
  summary: "list the vault's secret names and their keys (never values)",
  synopsis: ['--vault <id> [--wait D]'],
  usage: `Usage: secrets-vault ls --vault <id> [--wait D]
`,
  description: `Lists the live secrets of a vault, one per line: the name, then its keys. Never values.
`,
  flags: [
    { flag: VAULT, help: '  --vault <id>   the vault to list (required)\n' },
    { flag: WAIT, help: WAIT_HELP },
    // Accepted (and checked) though a list has no variable names to prefix: `ls` has always
    // taken it, and a script may give every command the same flags.
    { flag: PREFIX },
  ],
  async action({ vaultId, startup }) {
    const client = newClient();
    const secrets = await client.secrets.load(vaultId, startup);
    // Names and keys are the vault editor's: a terminal escape in one must print as text.
    const lines = Object.entries(secrets)
      .map(
        ([name, value]) =>
          `${escapeControlCharacters(name)}: ${Object.keys(value).sort().map(escapeControlCharacters).join(', ')}`,
      )
      .sort();
    process.stdout.write(lines.length === 0 ? '' : `${lines.join('\n')}\n`);
    return 0;
  },
};
