/** `secrets-vault ls`: the names and keys of a vault's live secrets, never their values. */
import { escapeControlCharacters } from '../../core/redaction.js';
import { newClient } from '../client.js';
import type { Command } from '../command.js';
import { usageError } from '../errors.js';
import { FORMAT, PREFIX, VAULT, WAIT, WAIT_HELP } from '../flags.js';

/** @internal `secrets-vault ls --vault <id> [--format text|json] [--wait D]`. */
export const lsCommand: Command = {
  name: 'ls',
  summary: "list the vault's secret names and their keys (never values)",
  synopsis: ['--vault <id> [--format text|json] [--wait D]'],
  usage: `Usage: secrets-vault ls --vault <id> [--format text|json] [--wait D]
`,
  description: `Lists the live secrets of a vault, one per line: the name, then its keys. Never values.
With --format json, prints one JSON object instead, each secret's name mapped to
the list of its keys: { "<secret>": ["<key>", ...] }.
`,
  flags: [
    { flag: VAULT, help: '  --vault <id>       the vault to list (required)\n' },
    {
      flag: FORMAT,
      help: '  --format <format>  text (one line per secret, the default) or json\n',
    },
    { flag: WAIT, help: WAIT_HELP },
    // Accepted (and checked) though a list has no variable names to prefix: `ls` has always
    // taken it, and a script may give every command the same flags.
    { flag: PREFIX },
  ],
  async action(context) {
    const [vaultId = '', ...more] = context.vaultIds;
    if (more.length > 0) throw usageError('ls lists one vault: give --vault once', 'ls');
    const { startup } = context;
    const format = context.string(FORMAT) ?? 'text';
    if (format !== 'text' && format !== 'json') {
      throw usageError('--format must be text or json', 'ls');
    }
    const client = newClient();
    const secrets = await client.secrets.load(vaultId, startup);
    const names = Object.keys(secrets).sort();
    const keysOf = (name: string) => Object.keys(secrets[name] ?? {}).sort();
    if (format === 'json') {
      // Built on a null-prototype object: a secret named `__proto__` stays a key of its own.
      const listing: Record<string, string[]> = Object.create(null);
      for (const name of names) listing[name] = keysOf(name);
      // JSON escapes C0 controls only; the C1 ones, DEL, line separators and bidirectional
      // overrides that it leaves raw are written as \u escapes too (inside strings, the only
      // place they can be), so a hostile name prints as inert text and parses back exactly.
      process.stdout.write(`${escapeControlCharacters(JSON.stringify(listing))}\n`);
      return 0;
    }
    // Names and keys are the vault editor's: a terminal escape in one must print as text.
    const lines = names
      .map(
        (name) =>
          `${escapeControlCharacters(name)}: ${keysOf(name).map(escapeControlCharacters).join(', ')}`,
      )
      .sort();
    process.stdout.write(lines.length === 0 ? '' : `${lines.join('\n')}\n`);
    return 0;
  },
};
