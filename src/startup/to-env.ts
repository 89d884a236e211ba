/**
 * Environment variables from loaded secrets: `database` + `password` → `DATABASE_PASSWORD`.
 */
import { SecretsSchemaError } from '../core/errors.js';
import { ownData, plainCopy, redactWhenPrinted } from './redacted.js';

/** Options of {@link toEnv}. */
export interface ToEnvOptions {
  /** Prepended, as given, to every variable name, such as `APP_`. @default '' */
  readonly prefix?: string | undefined;
}

/**
 * Turns loaded secrets into environment variables: the secret name and the key, upper-cased,
 * every run of characters other than `A-Z` and `0-9` replaced by `_`, joined by `_`
 * (`database.password` → `DATABASE_PASSWORD`; `apiKey` → `APIKEY`, no camelCase splitting).
 * A value that is not an object (the output of a schema that transformed it) gives one variable
 * named after the secret. Two values that map to one variable are an error naming both, never a
 * silent overwrite.
 *
 * The result prints as `[REDACTED]` for every value, as a loaded record does; reading a variable,
 * spreading the record, `Object.entries` and `Object.assign(process.env, …)` see the real strings
 * (the print hooks are non-enumerable, so they are not copied).
 *
 * @throws {SecretsSchemaError} when two values map to the same variable name
 * @example
 * ```ts
 * const secrets = await client.secrets.load(vaultId);
 * Object.assign(process.env, toEnv(secrets, { prefix: 'APP_' })); // APP_DATABASE_PASSWORD, …
 * ```
 */
export function toEnv(loaded: object, options: ToEnvOptions = {}): Record<string, string> {
  const prefix = options.prefix ?? '';
  const env: Record<string, string> = {};
  const origins = new Map<string, Array<string | number>>();
  const add = (path: Array<string | number>, value: unknown) => {
    if (value === undefined || value === null) return;
    if (typeof value === 'object' && !Array.isArray(value)) {
      // ownData: a key named `toJSON` holds the print hook, and its value is still a variable.
      for (const [key, item] of ownData(value)) add([...path, key], item);
      return;
    }
    const name = prefix + path.map((part) => variablePart(String(part))).join('_');
    const earlier = origins.get(name);
    if (earlier !== undefined) {
      throw new SecretsSchemaError([
        { path: earlier, message: `maps to the variable ${name}` },
        { path, message: `maps to the variable ${name} too` },
      ]);
    }
    origins.set(name, path);
    // A plain copy: the print hook of a loaded array would make its JSON all `[REDACTED]`.
    env[name] = typeof value === 'string' ? value : JSON.stringify(plainCopy(value));
  };
  for (const [name, value] of ownData(loaded)) add([name], value);
  return redactWhenPrinted(env);
}

function variablePart(text: string): string {
  return text.toUpperCase().replace(/[^A-Z0-9]+/g, '_');
}
