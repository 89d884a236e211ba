/**
 * What a command of `secrets-vault` is: a name, the texts that describe it, the flags it takes
 * and the action that does it. Each command is one module under `commands/`; the top-level help,
 * the option table given to `parseArgs` and the check that a flag belongs to the command it was
 * given to are all derived from the list of them, so a flag is declared in one place.
 */
import type { StartupOptions } from '../resources/secrets.js';

/** @internal A flag as `parseArgs` reads it. Declared once: by its command, or in `flags.ts` when shared. */
export interface Flag {
  /** The long name without `--` (`fallback-max-age`), and the key `parseArgs` reads it under. */
  readonly name: string;
  /** `string` when it takes a value, `boolean` when it is a switch. */
  readonly type: 'string' | 'boolean';
  /** Whether it may be given more than once, each value kept. */
  readonly multiple?: true;
  /** The one-letter alias (`h` for `-h`). */
  readonly short?: string;
  /**
   * Its lines under "Options:" in the top-level help, for a flag that means the same to every
   * command that takes it (the help names those commands when not all do); absent for the
   * others, which only their commands' help describes.
   */
  readonly overview?: string;
}

/** @internal A flag as one command takes it, with the lines its help describes it in. */
export interface CommandFlag {
  readonly flag: Flag;
  /**
   * Its lines under "Options:" in the command's help, laid out for that help (each help aligns
   * its own columns). Absent for a flag the command accepts without documenting it.
   */
  readonly help?: string;
}

/** @internal The values of the flags given, read by the flag that declares them. */
export interface FlagValues {
  /** The value of a `string` flag; undefined when not given. */
  string(flag: Flag): string | undefined;
  /** Whether a `boolean` flag was given. */
  boolean(flag: Flag): boolean;
  /** Every value of a `multiple` flag, in the order given; empty when not given. */
  strings(flag: Flag): readonly string[];
}

/** @internal What an action gets: the flags every command reads, already checked, and the rest. */
export interface CommandContext extends FlagValues {
  /**
   * The vaults of `--vault`, in the order given, else of `SECRETS_VAULT_VAULT_ID`: never empty
   * for a command that takes `--vault`, each id once.
   */
  readonly vaultIds: readonly string[];
  /** The `--prefix` for variable names (letters, digits and `_`; empty when not given). */
  readonly prefix: string;
  /** How to load: the `--wait` given, if any (for a command that takes it). */
  readonly startup: StartupOptions;
  /** The arguments after `--`, which belong to the command `run` starts, flags included. */
  readonly operands: readonly string[];
  /**
   * For a command that takes {@link Command.takesArguments}: the words that are not flags, in
   * order, then those after `--` (so a secret named `-x` can be given as `-- -x`); empty for the
   * others.
   */
  readonly arguments: readonly string[];
}

/** @internal One command of `secrets-vault`, as its module declares it. */
export interface Command {
  /** The word that selects it (`secrets-vault run`). */
  readonly name: string;
  /** What it does, in the one line the top-level help shows under its synopsis. */
  readonly summary: string;
  /**
   * Its arguments as the top-level help lists them after its name, one string per line; the
   * lines after the first are aligned under the first.
   */
  readonly synopsis: readonly string[];
  /** The first lines of its own help: `Usage: secrets-vault <name> …`, ending with a newline. */
  readonly usage: string;
  /** Its help's paragraphs between the usage and the options, ending with a newline. */
  readonly description: string;
  /** The flags it takes, in the order its help lists them (flags every command takes excepted). */
  readonly flags: readonly CommandFlag[];
  /**
   * Whether it takes words that are not flags (`get <secret> [<key>]`), which its action checks
   * and reads from {@link CommandContext.arguments}. Absent, such a word is a usage error.
   */
  readonly takesArguments?: true;
  /**
   * Does the command, once the flags are parsed and the shared ones checked, and resolves to the
   * exit code.
   *
   * @throws {CommandError} (from `errors.ts`) for a failure to report in one line
   */
  action(context: CommandContext): Promise<number>;
}
