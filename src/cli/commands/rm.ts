/** `secrets-vault rm`: deletes a secret, or removes one key from its value. */
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

/** @internal `secrets-vault rm --vault <id> <secret> [<key>] [--wait D]`. */
export const rmCommand: Command = {
  name: 'rm',
  summary: 'delete a secret, or remove one key from its value',
  synopsis: ['--vault <id> <secret> [<key>] [--wait D]'],
  usage: `Usage: secrets-vault rm --vault <id> <secret> [<key>] [--wait D]
`,
  description: `Deletes the secret named <secret> (the service archives it: it leaves listings and
the values the commands load). With <key>, removes only that key from the secret's
value and keeps the others; removing its last key leaves the secret with an empty value.
Prints nothing. A secret or key the vault does not have fails (exit 1) naming it, and
nothing is written. The secret is found by its name in every page of the vault's listing.

Removing a key is not safe against a concurrent write: the service has no conditional
update, so rm reads the value and sends it back without the key. A set of the same
secret at the same moment can lose its keys.
`,
  flags: [
    { flag: VAULT, help: '  --vault <id>       the vault that holds the secret (required)\n' },
    { flag: WAIT, help: WAIT_HELP },
  ],
  takesArguments: true,
  async action(context) {
    const { vaultId, name, key } = secretAndKey(context, 'rm');
    const client = newClient();
    const options = callOptions(context.startup);
    const secret = await requireSecret(client, vaultId, name, options);
    if (key === undefined) {
      // A retried DELETE whose first answer was lost may find the secret gone: the SDK takes
      // that 404 as done, which is what was asked.
      await client.secrets.delete(secret.id, options);
      return 0;
    }
    const value = await currentValue(client, vaultId, secret, options);
    if (!hasKey(value, key)) throw missingKey(name, key);
    // The contract's PATCH replaces the whole value: the value is sent back without the key.
    const rest: Record<string, string> = Object.create(null);
    for (const [other, text] of Object.entries(value)) if (other !== key) rest[other] = text;
    await client.secrets.update(secret.id, { value: rest }, options);
    return 0;
  },
};
