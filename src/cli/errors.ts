/**
 * How the command fails: the error it reports in one line, the line it prints for any error,
 * and the exit code each leaves with.
 */
import {
  APIConnectionError,
  APIError,
  AuthenticationError,
  PermissionDeniedError,
  SecretsVaultError,
} from '../core/errors.js';
import { isUnavailableStatus } from '../core/retry.js';

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

/** @internal Whether `error` says the service was unavailable, as opposed to a verdict on the request. */
export function isOutage(error: unknown): boolean {
  return (
    error instanceof APIConnectionError ||
    (error instanceof APIError && isUnavailableStatus(error.status))
  );
}

/** @internal How an outage is reported: how long the service stayed unavailable, in seconds. */
export function stayedUnavailable(milliseconds: number): string {
  return `the service stayed unavailable for ${(milliseconds / 1000).toFixed(1)}s`;
}

/** @internal One line saying what went wrong: the SDK's messages never hold a token or a value. */
export function describe(error: unknown): string {
  if (error instanceof CommandError) return error.message;
  if (error instanceof SecretsVaultError) {
    const where = error.method && error.path ? ` (${error.method} ${error.path})` : '';
    return `${error.name}: ${error.message.split('\n')[0]}${where}`;
  }
  return error instanceof Error ? `${error.name}: ${error.message.split('\n')[0]}` : String(error);
}
