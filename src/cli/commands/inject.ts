/**
 * `secrets-vault inject`: a configuration file written from a template, each
 * `{{ vault://<vaultId>/<secret>/<key> }}` placeholder replaced by the value it names, for the
 * programs that read their secrets from a file rather than from the environment.
 */
import { NotFoundError, SecretReferenceError } from '../../core/errors.js';
import type { StartupOptions } from '../../resources/secrets.js';
import { plainCopy } from '../../startup/redacted.js';
import { referencedVault, resolveReferences } from '../../startup/references.js';
import { newClient } from '../client.js';
import type { Command, Flag } from '../command.js';
import { usageError } from '../errors.js';
import { readTextFile, writeOutput } from '../files.js';
import { WAIT, WAIT_HELP } from '../flags.js';

const IN_FILE: Flag = { name: 'in-file', type: 'string', short: 'i' };
const OUT_FILE: Flag = { name: 'out-file', type: 'string', short: 'o' };

/**
 * A placeholder: `{{`, optional spaces, a `vault://` reference, optional spaces, `}}`, on one
 * line. The reference is taken up to the closing braces, spaces inside it included, so that a
 * reference that is not well formed is reported rather than left in the output unnoticed.
 */
const PLACEHOLDER = /\{\{[ \t]*(vault:\/\/[^{}\r\n]*?)[ \t]*\}\}/g;

/** @internal `secrets-vault inject -i <template> [-o <file>]`. */
export const injectCommand: Command = {
  name: 'inject',
  summary: 'write a template with its vault:// placeholders filled in',
  synopsis: ['-i <template> [-o <file>] [--wait D]'],
  usage: `Usage: secrets-vault inject -i <template> [-o <file>] [--wait D]
`,
  description: `Writes the template with every {{ vault://<vaultId>/<secret>/<key> }} placeholder
(spaces inside the braces optional, each part percent-encoded) replaced by the value
it names, exactly as stored: no quoting, no escaping. Values are put in once: a value
that holds a placeholder or a reference is written as text, never resolved. Each
vault referenced is read once. Everything else in the template, other {{ ... }}
included, is written unchanged.

A reference to a vault, secret or key that does not exist, or a malformed one, fails
naming the reference (never a value), and nothing is written. The template is UTF-8
text of at most 1 MiB.
`,
  flags: [
    {
      flag: IN_FILE,
      help: '  -i, --in-file <template>  the template to render (required); - reads stdin\n',
    },
    {
      flag: OUT_FILE,
      help: `  -o, --out-file <file>     write to <file> instead of stdout: created with mode
                            0600 (never wider than the file it replaces), replaced
                            atomically
`,
    },
    { flag: WAIT, help: WAIT_HELP },
  ],
  async action(context) {
    const input = context.string(IN_FILE);
    if (input === undefined || input === '') {
      throw usageError('-i, --in-file <template> is required', 'inject');
    }
    const output = context.string(OUT_FILE);
    if (output === '') throw usageError('-o, --out-file takes a file', 'inject');
    const template = await readTextFile(input, 'the template');
    const references = [
      ...new Set(Array.from(template.matchAll(PLACEHOLDER), (match) => match[1] as string)),
    ];
    const values = await resolveAll(references, context.startup);
    // A function replacer: what it returns goes in as is (a `$&` in a value stays text), and the
    // scan resumes after the placeholder, so nothing a value holds is ever read as a placeholder.
    const text = template.replace(PLACEHOLDER, (_placeholder, reference: string) =>
      String(values.get(reference)),
    );
    await writeOutput(output, text);
    return 0;
  },
};

/**
 * The value of each of `references`, keyed by the reference: each vault they point into is read
 * once, as `run` reads its vault, and the references are resolved from what it holds.
 *
 * @throws {SecretReferenceError} for a malformed reference (before any request), or one naming a
 *   vault, secret or key that does not exist
 */
async function resolveAll(
  references: readonly string[],
  startup: StartupOptions,
): Promise<ReadonlyMap<string, string>> {
  if (references.length === 0) return new Map();
  const client = newClient();
  // Each reference stands for itself: the record maps it to the value it names.
  const record = Object.fromEntries(references.map((reference) => [reference, reference]));
  const resolved = await resolveReferences(record, async (vaultId) => {
    try {
      // A plain copy of the data: `load`'s record is made to print as [REDACTED].
      const secrets = plainCopy(await client.secrets.load(vaultId, startup));
      return Object.entries(secrets).map(([name, value]) => ({ name, value }));
    } catch (error) {
      // The service names the vault by its path; the user wrote a reference, so name that.
      if (error instanceof NotFoundError) {
        const reference = references.find((candidate) => referencedVault(candidate) === vaultId);
        throw new SecretReferenceError(reference ?? vaultId, 'there is no vault with that id');
      }
      throw error;
    }
  });
  return new Map(Object.entries(resolved));
}
