/**
 * `secrets-vault inject`: configuration files written from templates, each
 * `{{ vault://<vaultId>/<secret>/<key> }}` placeholder replaced by the value it names, for the
 * programs that read their secrets from a file rather than from the environment. With `--watch`
 * it keeps the files current (a sidecar); with `-- <command>` it then runs the program that reads
 * them, through the supervisor `run` uses, restarting or signalling it when a file changes.
 */
import type { SecretsVault } from '../../client.js';
import { NotFoundError, SecretReferenceError } from '../../core/errors.js';
import { escapeControlCharacters } from '../../core/redaction.js';
import type { StartupOptions } from '../../resources/secrets.js';
import { plainCopy } from '../../startup/redacted.js';
import { referencedVault, resolveReferences } from '../../startup/references.js';
import { childEnvironment } from '../child-env.js';
import { newClient } from '../client.js';
import type { Command, CommandContext, Flag } from '../command.js';
import { CommandError, usageError } from '../errors.js';
import { readTextFile, whyNotARegularFile, writeFileAtomically, writeOutput } from '../files.js';
import { GRACE, isGiven, WAIT, WAIT_HELP, WATCH, WATCH_INTERVAL } from '../flags.js';
import { signalNamed } from '../signals.js';
import { Supervisor } from '../supervisor.js';
import { TEMPLATE_FILTERS, UnfilterableValueError } from '../template-filters.js';
import { graceOf, WATCH_INTERVAL_VARIABLE, watchForChanges, watchInterval } from '../watch.js';

const IN_FILE: Flag = { name: 'in-file', type: 'string', short: 'i', multiple: true };
const OUT_FILE: Flag = { name: 'out-file', type: 'string', short: 'o', multiple: true };
const RELOAD_SIGNAL: Flag = { name: 'reload-signal', type: 'string' };

/**
 * A placeholder: `{{`, optional spaces, a `vault://` reference, optionally `|` and a filter,
 * optional spaces, `}}`, on one line. The reference is taken up to the `|` or the closing braces,
 * spaces inside it included, so that a reference that is not well formed is reported rather than
 * left in the output unnoticed; the filter part likewise, so that an unknown filter or a chain of
 * them is reported. A `|` therefore always starts the filter: in a reference it is written `%7C`.
 */
const PLACEHOLDER = /\{\{[ \t]*(vault:\/\/[^{}|\r\n]*?)[ \t]*(?:\|([^{}\r\n]*?)[ \t]*)?\}\}/g;

/** @internal `secrets-vault inject -i <template> [-o <file>]… [--watch] [-- <command>]`. */
export const injectCommand: Command = {
  name: 'inject',
  summary: 'write templates with their vault:// placeholders filled in, and keep them current',
  synopsis: [
    '-i <template> [-o <file>] [--wait D]',
    '[-i <template> -o <file>]... [--watch [--watch-interval D]',
    '[--grace D | --reload-signal SIG]] [-- <command> [args...]]',
  ],
  usage: `Usage: secrets-vault inject -i <template> [-o <file>] [--wait D]
                              [-i <template> -o <file>]...
                              [--watch [--watch-interval D]
                                       [--grace D | --reload-signal SIG]]
                              [-- <command> [args...]]
`,
  description: `Writes the template with every {{ vault://<vaultId>/<secret>/<key> }} placeholder
(spaces inside the braces optional, each part percent-encoded) replaced by the value
it names, exactly as stored: no quoting, no escaping. Values are put in once: a value
that holds a placeholder or a reference is written as text, never resolved. Each
vault referenced is read once. Everything else in the template, other {{ ... }}
included, is written unchanged.

A filter after a | writes the value in a format's own quoting, so that the program
reading the file gets it back exactly, whatever it holds:
{{ vault://<vaultId>/<secret>/<key> | json }}. The filters:
  json     a JSON string, quotes included
  yaml     a YAML double-quoted scalar (read as text by YAML 1.1 and 1.2)
  shell    one POSIX shell word, in single quotes
  base64   the standard base64 of the value's UTF-8
  url      percent-encoded as encodeURIComponent does
One filter per placeholder; a | inside a reference is written %7C. An unknown filter
fails, naming it, and so does a value its filter cannot write (a NUL for shell; half
of a UTF-16 surrogate pair for shell, base64 or url), naming the reference; either
way nothing is written.

Several templates may be given, each -i followed by its -o (the first -o is the first
template's file, and so on); all are rendered from one read of each vault.

A reference to a vault, secret or key that does not exist, or a malformed one, fails
naming the reference (never a value), and nothing is written. The template is UTF-8
text of at most 1 MiB.

With -- <command>, once the files are written, <command> runs as run runs it (no
shell; signals passed on; SECRETS_VAULT_TOKEN not given to it), and inject exits
with its exit code.

With --watch, the vaults are read again once per interval, at a random point of it;
each file whose rendering changed is replaced atomically (the others are left as
they are), and then <command>, if given, is restarted (SIGTERM to its process group,
SIGKILL after --grace, started again) or sent --reload-signal. An outage, a refused
token, an unknown vault or a reference that no longer resolves changes nothing: it is
said in one line when it starts and one when it ends. Without a command, inject keeps
the files current until SIGINT or SIGTERM, then exits 0. The templates are read once,
at the start.
`,
  flags: [
    {
      flag: IN_FILE,
      help: `  -i, --in-file <template>  a template to render (required; repeat for several,
                            each followed by its -o); - reads stdin
`,
    },
    {
      flag: OUT_FILE,
      help: `  -o, --out-file <file>     write to <file> instead of stdout: created with mode
                            0600 (never wider than the file it replaces), replaced
                            atomically; required with several templates, --watch
                            or a command
`,
    },
    { flag: WAIT, help: WAIT_HELP },
    {
      flag: WATCH,
      help: `  --watch                   keep the files current: read the vaults once per
                            interval and replace each file whose rendering changed
                            (a regular file, or nothing yet), never on a failed read
`,
    },
    {
      flag: WATCH_INTERVAL,
      help: `  --watch-interval <duration>
                            how often --watch reads the vaults: 5s at least, 24h
                            at most (default: ${WATCH_INTERVAL_VARIABLE}, else 60s)
`,
    },
    {
      flag: GRACE,
      help: `  --grace <duration>        how long a --watch restart lets <command> stop after
                            SIGTERM before SIGKILL: 0 to 24h (default 10s)
`,
    },
    {
      flag: RELOAD_SIGNAL,
      help: `  --reload-signal <SIG>     on a change, send SIG (such as SIGHUP) to <command>
                            instead of restarting it (needs --watch and a command)
`,
    },
  ],
  async action(context) {
    const plan = injectPlan(context);
    const templates: string[] = [];
    for (const { template } of plan.renderings) {
      templates.push(await readTextFile(template, 'the template'));
    }
    if (plan.watch !== undefined) {
      // --watch replaces the files again and again: each must be one it can replace.
      for (const { output } of plan.renderings) keepableOrThrow(output);
    }
    // Every filter checked before the service is contacted: a typo fails fast, and alone.
    const placeholders = placeholdersIn(templates);
    // A template without placeholders is written without contacting the service.
    const clients: { first?: SecretsVault; polling?: SecretsVault } = {};
    // The watch's polls have a client of their own: its good answers are debug lines, since at
    // SECRETS_VAULT_LOG=info one a poll would be noise.
    const clientFor = (polling: boolean) => () => {
      const which = polling ? 'polling' : 'first';
      const client = clients[which] ?? newClient({ polling });
      clients[which] = client;
      return client;
    };
    const load = (options: () => StartupOptions, polling = false) =>
      resolveAll(placeholders, clientFor(polling), options);
    const values = await load(() => context.startup);
    // Every rendering before any write: a reference that fails leaves every file as it was.
    const renderings: Rendering[] = plan.renderings.map(({ output }, index) => {
      const template = templates[index] ?? '';
      return { output, template, current: render(template, values) };
    });
    for (const { output, current } of renderings) {
      if (plan.watch === undefined) await writeOutput(output, current);
      // --watch has a file for each template (the plan checked it).
      else keepCurrent(output as string, current);
    }
    const [command, ...args] = context.operands;
    if (plan.watch === undefined) {
      if (command === undefined) return 0;
      return new Supervisor({ command, args, env: commandEnvironment() }).exitCode;
    }
    const { interval, grace, reloadSignal } = plan.watch;
    const supervisor =
      command === undefined
        ? undefined
        : new Supervisor({ command, args, env: commandEnvironment(), grace });
    // Cancels the poll in flight and the wait for the next one: nothing keeps us alive after.
    const watching = new AbortController();
    const stop = () => watching.abort();
    const stopOn = supervisor?.stopping;
    // Without a command, SIGINT and SIGTERM end the watch; with one, they go to it, and its end
    // ends ours.
    if (stopOn === undefined) process.on('SIGINT', stop).on('SIGTERM', stop);
    else stopOn.addEventListener('abort', stop, { once: true });
    const keeps =
      supervisor === undefined
        ? 'the files stay as they are'
        : 'the files stay as they are, and the command keeps running';
    const polling = watchForChanges({
      interval,
      signal: watching.signal,
      words: {
        keeps,
        refused: 'cannot render the templates',
        accepted: 'the templates can be rendered again',
      },
      // The client's ordinary retries, never the startup wait: a poll ends by its deadline.
      load: (deadline, signal) =>
        load(
          () => ({
            wait: 0,
            signal,
            totalTimeout: Math.max(1, Math.round(deadline - performance.now())),
          }),
          true,
        ),
      isRefusal: (error) => error instanceof SecretReferenceError,
      async apply(next) {
        const rewritten: string[] = [];
        for (const rendering of renderings) {
          const text = render(rendering.template, next);
          if (text === rendering.current) continue;
          // --watch has a file for each template (the plan checked it).
          const output = rendering.output as string;
          try {
            keepCurrent(output, text);
          } catch (error) {
            // It keeps its old contents; the next poll tries again, as the rendering differs.
            process.stderr.write(`secrets-vault: warning: ${(error as Error).message}\n`);
            continue;
          }
          rendering.current = text;
          rewritten.push(escapeControlCharacters(output));
        }
        if (rewritten.length === 0) return;
        const then =
          supervisor === undefined
            ? ''
            : reloadSignal === undefined
              ? '; restarting the command'
              : `; sending ${reloadSignal} to the command`;
        process.stderr.write(
          `secrets-vault: the values changed: rewrote ${rewritten.join(', ')}${then}\n`,
        );
        if (supervisor === undefined) return;
        if (reloadSignal === undefined) await supervisor.restart(commandEnvironment());
        else supervisor.signal(reloadSignal);
      },
    });
    try {
      if (supervisor === undefined) {
        await polling;
        return 0;
      }
      // The watch ends only once cancelled, and then the command is ending: wait for its code.
      return await Promise.race([supervisor.exitCode, polling.then(() => supervisor.exitCode)]);
    } finally {
      watching.abort();
      process.off('SIGINT', stop).off('SIGTERM', stop);
      stopOn?.removeEventListener('abort', stop);
    }
  },
};

/** One template, its file (none for stdout), and what was last written there. */
interface Rendering {
  readonly output: string | undefined;
  readonly template: string;
  current: string;
}

/** What `inject` was asked to do, its flags checked. */
interface InjectPlan {
  /** Each template and its file, in the order given; no file for stdout. */
  readonly renderings: readonly { readonly template: string; readonly output?: string }[];
  /** `--watch`: how often to read the vaults, and what to do to the command on a change. */
  readonly watch:
    | {
        readonly interval: number;
        readonly grace: number;
        /** `--reload-signal`: sent to the command instead of a restart. */
        readonly reloadSignal: NodeJS.Signals | undefined;
      }
    | undefined;
}

/**
 * The templates, their files and the watch `context` asks for, every flag checked before
 * anything is read or loaded.
 *
 * @throws {CommandError} a usage error (exit 2) naming the fix
 */
function injectPlan(context: CommandContext): InjectPlan {
  const templates = context.strings(IN_FILE);
  if (templates.length === 0 || templates.includes('')) {
    throw usageError('-i, --in-file <template> is required', 'inject');
  }
  const outputs = context.strings(OUT_FILE);
  if (outputs.includes('')) throw usageError('-o, --out-file takes a file', 'inject');
  const watch = context.boolean(WATCH);
  const runs = context.operands.length > 0;
  for (const flag of [WATCH_INTERVAL, GRACE, RELOAD_SIGNAL]) {
    if (!watch && isGiven(context, flag)) {
      throw usageError(`--${flag.name} needs --watch`, 'inject');
    }
  }
  for (const flag of [GRACE, RELOAD_SIGNAL]) {
    if (!runs && isGiven(context, flag)) {
      throw usageError(`--${flag.name} needs a command after --`, 'inject');
    }
  }
  if (isGiven(context, GRACE) && isGiven(context, RELOAD_SIGNAL)) {
    throw usageError(
      '--grace cannot be used with --reload-signal: the command is signalled, never restarted',
      'inject',
    );
  }
  const reloadText = context.string(RELOAD_SIGNAL);
  const reloadSignal = reloadText === undefined ? undefined : signalNamed(reloadText);
  if (reloadText !== undefined && reloadSignal === undefined) {
    throw usageError(
      `--reload-signal takes a signal name such as SIGHUP or SIGUSR1, not '${escapeControlCharacters(reloadText)}'`,
      'inject',
    );
  }
  // stdout, today's use, only for one template written once and nothing run after it.
  const toStdout = outputs.length === 0 && templates.length === 1 && !watch && !runs;
  if (!toStdout && outputs.length !== templates.length) {
    const why = watch ? 'with --watch' : runs ? 'with a command' : 'with several templates';
    throw usageError(
      outputs.length === 0
        ? `-o, --out-file <file> is required ${why}: give each -i <template> its -o <file>`
        : `give each -i <template> its own -o <file> (${templates.length} templates, ${outputs.length} files)`,
      'inject',
    );
  }
  const twice = outputs.find((output, index) => outputs.indexOf(output) !== index);
  if (twice !== undefined) {
    throw usageError(
      `-o ${escapeControlCharacters(twice)} is given twice: each template needs a file of its own`,
      'inject',
    );
  }
  if (templates.filter((template) => template === '-').length > 1) {
    throw usageError('-i - (the standard input) can be read only once', 'inject');
  }
  return {
    renderings: templates.map((template, index) => {
      const output = outputs[index];
      return output === undefined ? { template } : { template, output };
    }),
    watch: watch
      ? {
          interval: watchInterval(context.string(WATCH_INTERVAL), 'inject'),
          grace: graceOf(context.string(GRACE), 'inject'),
          reloadSignal,
        }
      : undefined,
  };
}

/** One placeholder of a template: the reference it names and the filter it writes it with. */
interface Placeholder {
  readonly reference: string;
  /** The filter's name after the `|`, one of {@link TEMPLATE_FILTERS}; none writes it as is. */
  readonly filter: string | undefined;
}

/**
 * The key of a placeholder's text in the values {@link resolveAll} gives: a reference never
 * holds a `|` (the placeholder pattern ends it there), so reference and filter cannot blur.
 */
function keyOf(reference: string, filter: string | undefined): string {
  return filter === undefined ? reference : `${reference}|${filter}`;
}

/**
 * The placeholders of `templates`, each once, their filters checked. Only template text goes in
 * a message: no value has been read yet.
 *
 * @throws {CommandError} (exit 1) naming the placeholder, for a filter that is missing after its
 *   `|`, unknown, or followed by another
 */
function placeholdersIn(templates: readonly string[]): Placeholder[] {
  const placeholders = new Map<string, Placeholder>();
  for (const template of templates) {
    for (const [placeholder, reference = '', filterText] of template.matchAll(PLACEHOLDER)) {
      const filter = filterNamed(filterText, placeholder);
      placeholders.set(keyOf(reference, filter), { reference, filter });
    }
  }
  return [...placeholders.values()];
}

/**
 * The filter that `filterText`, the part of `placeholder` after its `|`, names: undefined when
 * there is no `|`.
 *
 * @throws {CommandError} (exit 1) naming the placeholder when the filter is missing, unknown, or
 *   one of a chain
 */
function filterNamed(filterText: string | undefined, placeholder: string): string | undefined {
  if (filterText === undefined) return undefined;
  const written = escapeControlCharacters(placeholder);
  const names = filterText.split('|').map(withoutBlanks);
  for (const name of names) {
    if (name === '') throw new CommandError(`a filter is missing after | in ${written}`, 1);
    if (!TEMPLATE_FILTERS.has(name)) {
      // `{{ vault://v/a|b/key }}` reads as the filter `b/key`: say how to write the `|`.
      const hint = name.includes('/') ? '; a | inside a reference is written %7C' : '';
      throw new CommandError(
        `unknown filter "${escapeControlCharacters(name)}" in ${written} (the filters are ${FILTER_NAMES}${hint})`,
        1,
      );
    }
  }
  if (names.length > 1) {
    throw new CommandError(
      `filters cannot be chained: ${written} has ${names.length} (${names.join(', ')}); give it one`,
      1,
    );
  }
  return names[0];
}

const FILTER_NAMES = [...TEMPLATE_FILTERS.keys()].join(', ');

/** `text` without the spaces and tabs around it: the blanks a placeholder allows around `|`. */
function withoutBlanks(text: string): string {
  return text.replace(/^[ \t]+|[ \t]+$/g, '');
}

/**
 * `template` with each placeholder replaced by its text in `values`. A function replacer: what
 * it returns goes in as is (a `$&` in a value stays text), and the scan resumes after the
 * placeholder, so nothing a value holds is ever read as a placeholder.
 */
function render(template: string, values: ReadonlyMap<string, string>): string {
  return template.replace(
    PLACEHOLDER,
    (_placeholder, reference: string, filterText: string | undefined) =>
      // The filters were checked when the placeholders were read: only the name is left to take.
      String(
        values.get(
          keyOf(reference, filterText === undefined ? undefined : withoutBlanks(filterText)),
        ),
      ),
  );
}

/**
 * Why `--watch` cannot keep `file` current, as an error: it replaces the file at each change, so
 * only nothing or a regular file may be there (never a FIFO or a device a write would wait on).
 *
 * @throws {CommandError} (exit 1) naming the file and what is there
 */
function keepableOrThrow(file: string | undefined): void {
  if (file === undefined) return;
  let why: string | undefined;
  try {
    why = whyNotARegularFile(file);
  } catch (error) {
    throw new CommandError(
      `cannot write ${file}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
      1,
    );
  }
  if (why !== undefined) {
    throw new CommandError(
      `cannot keep ${file} current: it ${why}, and --watch replaces the file at each change`,
      1,
    );
  }
}

/**
 * Replaces `file` with `text` atomically (mode 0600, never wider than the file it replaces): a
 * reader sees the old contents or the new, never a part, and never a missing file.
 *
 * @throws {CommandError} (exit 1) naming the file and why it cannot be written
 */
function keepCurrent(file: string, text: string): void {
  keepableOrThrow(file);
  try {
    writeFileAtomically(file, text);
  } catch (error) {
    throw new CommandError(
      `cannot write ${file}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
      1,
    );
  }
}

/**
 * The environment of the command given after `--`: the job's, as `run` gives it, without the
 * job's token (the command reads its secrets from the files) nor the fallback key.
 */
function commandEnvironment(): Record<string, string> {
  return childEnvironment({
    fromVault: {},
    fromJob: process.env,
    override: false,
    keepToken: false,
    allowed: new Set(),
  });
}

/**
 * The text of each of `placeholders`, keyed by {@link keyOf}: the value its reference names,
 * written by its filter if it has one. Each vault the references point into is read once, by
 * `client()` (made only when there is a placeholder), with the options `options()` gives when
 * its read starts, and the references are resolved from what it holds.
 *
 * @throws {SecretReferenceError} for a malformed reference (before any request), one naming a
 *   vault, secret or key that does not exist, or one whose value its filter cannot write (a NUL
 *   for `shell`): a failure to render, which `--watch` waits out like a missing key
 */
async function resolveAll(
  placeholders: readonly Placeholder[],
  client: () => SecretsVault,
  options: () => StartupOptions,
): Promise<ReadonlyMap<string, string>> {
  if (placeholders.length === 0) return new Map();
  const references = [...new Set(placeholders.map(({ reference }) => reference))];
  const reader = client();
  // Each reference stands for itself: the record maps it to the value it names.
  const record = Object.fromEntries(references.map((reference) => [reference, reference]));
  const resolved = await resolveReferences(record, async (vaultId) => {
    try {
      // A plain copy of the data: `load`'s record is made to print as [REDACTED].
      const secrets = plainCopy(await reader.secrets.load(vaultId, options()));
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
  const texts = new Map<string, string>();
  for (const { reference, filter } of placeholders) {
    const value = resolved[reference] as string;
    texts.set(
      keyOf(reference, filter),
      filter === undefined ? value : filtered(value, filter, reference),
    );
  }
  return texts;
}

/**
 * `value` written by the filter named `filter` (one of {@link TEMPLATE_FILTERS}).
 *
 * @throws {SecretReferenceError} naming `reference` and the filter, never the value, when the
 *   filter cannot write it
 */
function filtered(value: string, filter: string, reference: string): string {
  try {
    return (TEMPLATE_FILTERS.get(filter) as (value: string) => string)(value);
  } catch (error) {
    if (!(error instanceof UnfilterableValueError)) throw error;
    throw new SecretReferenceError(
      reference,
      `| ${filter} cannot write its value: ${error.message}`,
    );
  }
}
