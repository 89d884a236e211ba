/**
 * How the command fails: the error it reports in one line, the line it prints for any error,
 * and the exit code each leaves with.
 */
import { type SettingProblem, settingProblemOf } from '../core/env.js';
import {
  AuthenticationError,
  NotFoundError,
  PermissionDeniedError,
  SecretsVaultError,
} from '../core/errors.js';
import { isOutage } from '../core/retry.js';

/** @internal A failure to report in one line, with the exit code to leave with. */
export class CommandError extends Error {
  override name = 'CommandError';
  readonly exitCode: number;

  constructor(message: string, exitCode: number) {
    super(message);
    this.exitCode = exitCode;
  }
}

/**
 * @internal A usage error (exit 2) that points at the help of `command`, or at the top-level
 * help when the command is not known.
 */
export const usageError = (message: string, command?: string): CommandError =>
  new CommandError(`${message} (see secrets-vault ${command ? `${command} ` : ''}--help)`, 2);

/**
 * @internal The exit code a failure leaves with, so a supervisor can tell "retry later" (75,
 * EX_TEMPFAIL) from "fix the configuration" (77, EX_NOPERM; 2, usage; 1, anything else).
 */
export function exitCodeOf(error: unknown): number {
  if (error instanceof CommandError) return error.exitCode;
  if (error instanceof AuthenticationError || error instanceof PermissionDeniedError) return 77;
  return isOutage(error) ? 75 : 1;
}

/** @internal How an outage is reported: how long the service stayed unavailable, in seconds. */
export function stayedUnavailable(milliseconds: number): string {
  return `the service stayed unavailable for ${(milliseconds / 1000).toFixed(1)}s`;
}

/** @internal One line saying what went wrong: the SDK's messages never hold a token or a value. */
export function describe(error: unknown): string {
  if (error instanceof CommandError) return error.message;
  // A construction error, said in the shell's words: the variables, never the options of code.
  const problem = settingProblemOf(error);
  if (problem !== undefined) return shellMessage(problem);
  if (error instanceof SecretsVaultError) {
    const where = error.method && error.path ? ` (${error.method} ${error.path})` : '';
    const vaultId = missingVaults.get(error);
    const message =
      vaultId === undefined
        ? error.message.split('\n')[0]
        : `vault ${shellWord(vaultId)} not found`;
    return `${error.name}: ${message}${where}`;
  }
  return error instanceof Error ? `${error.name}: ${error.message.split('\n')[0]}` : String(error);
}

/** What a construction error tells a shell user: which variable to set, or the rule it breaks. */
function shellMessage({ what, variables, rule }: SettingProblem): string {
  return rule === undefined ? `${what}: set ${variables}` : `${what}: ${variables} ${rule}`;
}

// The vault of each not-found error that came from reading a vault the command was given.
const missingVaults = new WeakMap<Error, string>();

// The route that reads a vault: a 404 there means the vault does not exist (or is not visible).
const VAULT_VALUES_ROUTE = '/v1/vaults/{vaultId}/secrets/values';

/**
 * @internal `error`, noted as being about the vault `vaultId` when it says that vault was not
 * found, so that {@link describe} names it. The error itself is unchanged: its class still
 * decides the exit code and whether a fallback applies.
 */
export function namingVault(error: unknown, vaultId: string): unknown {
  if (error instanceof NotFoundError && error.path === VAULT_VALUES_ROUTE) {
    missingVaults.set(error, vaultId);
  }
  return error;
}

// Words a POSIX shell reads as they are: no quoting needed.
const PLAIN_WORD = /^[\w@%+=:,./-]+$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * @internal `word` as a POSIX shell reads it back: as it is when plain, else in single quotes,
 * or, when it holds a control character (a line break, a terminal escape), in `$'…'` with that
 * character escaped, so the line printed is one line that can be pasted.
 */
export function shellWord(word: string): string {
  if (PLAIN_WORD.test(word)) return word;
  if (!CONTROL.test(word)) return `'${word.replaceAll("'", `'\\''`)}'`;
  const escaped = [...word]
    .map((char) =>
      char === '\\' || char === "'"
        ? `\\${char}`
        : CONTROL.test(char)
          ? `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`
          : char,
    )
    .join('');
  return `$'${escaped}'`;
}
