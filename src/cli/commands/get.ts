/** `secrets-vault get`: the value of one key of a secret, or the secret's whole value as JSON. */
import { escapeControlCharacters } from '../../core/redaction.js';
import { newClient } from '../client.js';
import type { Command } from '../command.js';
import { VAULT, WAIT, WAIT_HELP } from '../flags.js';
import {
  callOptions,
  currentValue,
  hasKey,
  missingKey,
  requireSecret,
  secretAndKey,
} from '../secret-by-name.js';

/** @internal `secrets-vault get --vault <id> <secret> [<key>] [--wait D]`. */
export const getCommand: Command = {
  name: 'get',
  summary: "print one key's value, or a secret's whole value as JSON",
  synopsis: ['--vault <id> <secret> [<key>] [--wait D]'],
  usage: `Usage: secrets-vault get --vault <id> <secret> [<key>] [--wait D]
`,
  description: `Prints the value of <key> in the secret named <secret> exactly as it is stored, with
no newline added unless stdout is a terminal, so that a pipe or a file gets the value
byte for byte. Without <key>, prints the secret's whole value as one JSON object,
{ "<key>": "<value>", ... }, and a newline.
A secret or key the vault does not have fails (exit 1) naming it; nothing is printed.
The secret is found by its name in every page of the vault's listing.
`,
  flags: [
    { flag: VAULT, help: '  --vault <id>       the vault that holds the secret (required)\n' },
    { flag: WAIT, help: WAIT_HELP },
  ],
  takesArguments: true,
  async action(context) {
    const { vaultId, name, key } = secretAndKey(context, 'get');
    const client = newClient();
    const options = callOptions(context.startup);
    const secret = await requireSecret(client, vaultId, name, options);
    const value = await currentValue(client, vaultId, secret, options);
    if (key === undefined) {
      // JSON escapes C0 controls only; the C1 ones, DEL, line separators and bidirectional
      // overrides it leaves raw are written as \u escapes too (inside strings, the only place
      // they can be), so the object prints as inert text and parses back exactly.
      process.stdout.write(`${escapeControlCharacters(JSON.stringify(value))}\n`);
      return 0;
    }
    if (!hasKey(value, key)) throw missingKey(name, key);
    const text = value[key] ?? '';
    // A newline only for a person reading a terminal: a script that captures or pipes the
    // value gets it byte for byte.
    process.stdout.write(process.stdout.isTTY ? `${text}\n` : text);
    return 0;
  },
};
