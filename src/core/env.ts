/**
 * Reading the client's settings from the environment, where there is one (Node, Bun, Deno,
 * edge workers), the token file included, and the errors that name a setting. The browser build
 * replaces this module with `env.browser.ts`: a web page has no environment, and a bundler
 * cannot fill in a variable read by name.
 */
import type * as Fs from 'node:fs';
import { SecretsVaultError } from './errors.js';
import {
  DURATION_MESSAGE,
  isDuration,
  isRetryCount,
  RETRIES_MESSAGE,
  WAIT_MESSAGE,
} from './limits.js';
import { escapeControlCharacters } from './redaction.js';

/**
 * @internal A variable of the environment, trimmed; undefined when it is unset or empty.
 * `process` is absent in browsers and some workers, and Deno without --allow-env throws when the
 * environment is read: either way, the variable is treated as unset.
 */
export function readEnv(name: string): string | undefined {
  try {
    const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process
      ?.env;
    const value = env?.[name]?.trim();
    return value === '' ? undefined : value;
  } catch {
    return undefined;
  }
}

/**
 * @internal The value of the option `option` from the environment variable `name`: milliseconds
 * or a duration such as `30s` (a count without a unit for `maxRetries`); undefined when the
 * variable is unset.
 * @throws {SecretsVaultError} naming the variable when it is set but malformed: a typo must not
 *   quietly become the default
 */
export function readEnvSetting(
  name: string,
  option: 'timeout' | 'maxRetries' | 'wait',
): number | undefined {
  const text = readEnv(name);
  if (text === undefined) return undefined;
  // A count has no unit: `5s` retries is a typo, not 5000 retries.
  const value =
    option === 'maxRetries' && !/^(\d+|Infinity)$/.test(text) ? undefined : parseDuration(text);
  if (option === 'timeout' ? !isDuration(value) : !isRetryCount(value)) {
    const rule =
      option === 'timeout' ? DURATION_MESSAGE : option === 'wait' ? WAIT_MESSAGE : RETRIES_MESSAGE;
    const fullRule = `${rule}${option === 'maxRetries' ? '' : ', or a duration such as 30s'}`;
    const error = new SecretsVaultError(`Invalid ${name} (the \`${option}\` option): ${fullRule}`);
    throw namingSetting(error, `Invalid ${SETTING_WORDS[option]}`, name, fullRule);
  }
  return value;
}

// What a shell user reads for each option: its meaning, not its name in code.
const SETTING_WORDS = { timeout: 'timeout', maxRetries: 'retry count', wait: 'wait' } as const;

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/**
 * @internal Reads a duration as the command line and the environment spell it: plain
 * milliseconds (`1500`), or a number with a unit (`500ms`, `1.5s`, `90s`, `2m`, `1h`), or
 * `Infinity`. Undefined when it is none of these.
 */
export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed === 'Infinity') return Number.POSITIVE_INFINITY;
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(trimmed);
  if (match === null) return undefined;
  const value = Math.round(Number(match[1]) * (UNIT_MS[match[2] ?? 'ms'] ?? 1));
  return Number.isSafeInteger(value) ? value : undefined;
}

/**
 * @internal Which setting a construction error is about, in the words of the environment: what
 * the command (`secrets-vault`) tells a shell user, who sets variables rather than options.
 */
export interface SettingProblem {
  /** What is wrong, as the message starts: `Missing base URL`, `Invalid token`. */
  readonly what: string;
  /** The environment variable (or variables) that give the setting. */
  readonly variables: string;
  /** The rule the value breaks (`must be …`); absent when the setting is missing. */
  readonly rule?: string | undefined;
}

const TOKEN = 'SECRETS_VAULT_TOKEN';
const TOKEN_FILE = 'SECRETS_VAULT_TOKEN_FILE';

// Kept beside the error rather than on it: the error's shape is public, this is the command's.
const settingProblems = new WeakMap<Error, SettingProblem>();

/**
 * @internal `error`, a construction error whose message names an option and its variable for
 * code, noted with what the command tells a shell user instead: `what` is wrong with
 * `variable`, the `rule` its value breaks (absent when it is missing).
 */
export function namingSetting(
  error: SecretsVaultError,
  what: string,
  variable: string,
  rule?: string,
): SecretsVaultError {
  // The command reads a token file as the client does: a shell user missing a token hears of both.
  const variables =
    rule === undefined && variable === TOKEN ? `${TOKEN} or ${TOKEN_FILE}` : variable;
  settingProblems.set(error, { what, variables, rule });
  return error;
}

/** A construction error about an environment variable, said the same to code and to a shell. */
function settingError(problem: SettingProblem & { readonly rule: string }): SecretsVaultError {
  const { what, variables, rule } = problem;
  const error = new SecretsVaultError(`${what}: ${variables} ${rule}`);
  settingProblems.set(error, problem);
  return error;
}

/** @internal The setting `error` is about, when {@link namingSetting} noted one. */
export function settingProblemOf(error: unknown): SettingProblem | undefined {
  return error instanceof Error ? settingProblems.get(error) : undefined;
}

/** @internal The token of the environment, and the variable that gave it. */
export interface EnvironmentToken {
  /** The token, unchecked (the options check every token alike); never empty. */
  readonly token: string;
  /** `SECRETS_VAULT_TOKEN`, or `SECRETS_VAULT_TOKEN_FILE` when it was read from that file. */
  readonly variable: string;
}

/** @internal The most a token file may hold: a token is a few hundred bytes, never megabytes. */
export const MAX_TOKEN_FILE_BYTES = 64 * 1024;

/**
 * @internal The token from `SECRETS_VAULT_TOKEN`, or read from the file that
 * `SECRETS_VAULT_TOKEN_FILE` names (a mounted container secret, a Kubernetes secret volume), one
 * trailing newline dropped; undefined when neither is set.
 *
 * @throws {SecretsVaultError} when both are set, or the file is empty, unreadable, not a
 *   regular file or larger than 64 KiB: the message names the variable, the path and the system
 *   error code, never a byte of the file
 */
export function readEnvToken(): EnvironmentToken | undefined {
  const token = readEnv(TOKEN);
  const path = readEnv(TOKEN_FILE);
  if (path === undefined) return token === undefined ? undefined : { token, variable: TOKEN };
  if (token !== undefined) {
    // Which one is stale cannot be guessed, and the wrong guess sends a revoked token.
    throw settingError({
      what: 'Conflicting token',
      variables: `${TOKEN} and ${TOKEN_FILE}`,
      rule: 'are both set; set only one',
    });
  }
  const text = readTokenFile(path);
  // Files are written by editors and `echo`, which end them with a newline; nothing else goes.
  const fileToken = text.endsWith('\r\n')
    ? text.slice(0, -2)
    : text.endsWith('\n')
      ? text.slice(0, -1)
      : text;
  if (fileToken === '') {
    throw fileError('Missing token', path, 'names an empty file');
  }
  return { token: fileToken, variable: TOKEN_FILE };
}

/** The text of the token file at `path`, read within its bound. */
function readTokenFile(path: string): string {
  const runtime = globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } };
  // Reached at run time, so the client entry has no `node:` import for runtimes without files.
  const fs = runtime.process?.getBuiltinModule?.('node:fs') as typeof Fs | undefined;
  if (fs === undefined) {
    throw fileError('Unreadable token file', path, `cannot be read in this runtime; set ${TOKEN}`);
  }
  let descriptor: number;
  try {
    // Non-blocking, so that a FIFO where the file should be cannot hang the constructor.
    descriptor = fs.openSync(path, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  } catch (error) {
    throw fileError('Unreadable token file', path, `cannot be read: ${codeOf(error)}`);
  }
  try {
    if (!fs.fstatSync(descriptor).isFile()) {
      throw fileError('Invalid token file', path, 'is not a regular file');
    }
    // One byte past the bound tells a file over it apart, whatever size its metadata claims.
    const buffer = new Uint8Array(MAX_TOKEN_FILE_BYTES + 1);
    let length = 0;
    for (;;) {
      const read = readChunk(fs, descriptor, buffer, length, path);
      if (read === 0) break;
      length += read;
      if (length > MAX_TOKEN_FILE_BYTES) {
        throw fileError(
          'Invalid token file',
          path,
          `is larger than ${MAX_TOKEN_FILE_BYTES / 1024} KiB`,
        );
      }
    }
    const text = new TextDecoder().decode(buffer.subarray(0, length));
    // The decoded string is the token's one copy from here on; the bytes need not linger.
    buffer.fill(0);
    return text;
  } finally {
    fs.closeSync(descriptor);
  }
}

function readChunk(
  fs: typeof Fs,
  descriptor: number,
  buffer: Uint8Array,
  offset: number,
  path: string,
): number {
  try {
    return fs.readSync(descriptor, buffer, offset, buffer.length - offset, null);
  } catch (error) {
    throw fileError('Unreadable token file', path, `cannot be read: ${codeOf(error)}`);
  }
}

/** An error about the token file at `path`: named with its variable, never with its content. */
function fileError(what: string, path: string, rule: string): SecretsVaultError {
  return settingError({ what, variables: `${TOKEN_FILE} (${quotedPath(path)})`, rule });
}

/** A path as a message shows it: quoted, on one line, whatever it holds. */
function quotedPath(path: string): string {
  return escapeControlCharacters(JSON.stringify(path));
}

/** The system error code of a failed file operation (`ENOENT`, `EACCES`), else its class. */
function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^[A-Z][A-Z0-9_]*$/.test(code)) return code;
  return error instanceof Error ? error.name : 'unknown error';
}
