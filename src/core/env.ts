/**
 * Reading the client's settings from the environment, where there is one (Node, Bun, Deno,
 * edge workers). The browser build replaces this module with `env.browser.ts`: a web page has
 * no environment, and a bundler cannot fill in a variable read by name.
 */
import { SecretsVaultError } from './errors.js';
import {
  DURATION_MESSAGE,
  isDuration,
  isRetryCount,
  RETRIES_MESSAGE,
  WAIT_MESSAGE,
} from './limits.js';

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
    throw new SecretsVaultError(
      `Invalid ${name} (the \`${option}\` option): ${rule}${option === 'maxRetries' ? '' : ', or a duration such as 30s'}`,
    );
  }
  return value;
}

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
