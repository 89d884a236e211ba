/**
 * Loaded secrets that print as `[REDACTED]`. A job's config object ends up in logs (a
 * `console.log(config)` while debugging, a structured logger serialising the context): printing
 * it, at any depth, with `console.log`, `util.inspect` or `JSON.stringify`, shows no value, while
 * reading a property still gives the real string.
 */

const REDACTED = '[REDACTED]';
// Node and Bun read the first, Deno the second.
const INSPECT_HOOKS = [Symbol.for('nodejs.util.inspect.custom'), Symbol.for('Deno.customInspect')];
const HOOK_KEYS: readonly PropertyKey[] = ['toJSON', ...INSPECT_HOOKS];

type Inspect = (value: unknown, options?: unknown) => string;

/**
 * Data stored under a hook's name (a secret key named `toJSON`), by the hook that took its
 * place: a serialiser reads `toJSON` like any property, so only the hook holding the name keeps
 * the object's other values out of a log. Keyed by the hook, so {@link ownData} finds the data
 * in a spread copy of the object too.
 */
const displaced = new WeakMap<object, unknown>();
/** Objects that carry the hooks already: redacting one again changes nothing. */
const hooked = new WeakSet<object>();

/**
 * Makes every plain object and array inside `value` (and `value` itself) print with its values
 * replaced by `[REDACTED]`, and returns it. The hooks are non-enumerable, so keys, spreads and
 * property reads see the data as it is. An object that cannot take them (frozen, sealed, or
 * with a property that cannot be redefined, as a schema's `.readonly()` output) is replaced by
 * a copy that can, with the same prototype, properties and integrity (a frozen object gives a
 * frozen copy); so use what this returns, not `value`.
 */
export function redactWhenPrinted<T>(value: T): T {
  return redact(value, new Map()) as T;
}

/**
 * The own enumerable string-keyed entries of an object, with the data a print hook displaced (in
 * a redacted object, or a spread copy of one) in the hook's place: what `Object.entries` gave
 * before the object was redacted.
 */
export function ownData(value: object): [string, unknown][] {
  return Object.entries(value).map(([key, item]) => [
    key,
    typeof item === 'function' && displaced.has(item) ? displaced.get(item) : item,
  ]);
}

/**
 * A deep copy of redacted plain data with no hook (and the displaced data back in place): what
 * a schema may be handed, or a caller may change, without touching the original.
 */
export function plainCopy<T>(value: T): T {
  if (typeof value !== 'object' || value === null || !isPlainData(value)) return value;
  if (Array.isArray(value)) return value.map((item) => plainCopy(item)) as T;
  // Object.fromEntries defines each key as data, so a key named `__proto__` stays a key.
  return Object.fromEntries(ownData(value).map(([key, item]) => [key, plainCopy(item)])) as T;
}

function redact(value: unknown, done: Map<object, object>): unknown {
  if (typeof value !== 'object' || value === null || !isPlainData(value) || hooked.has(value)) {
    return value;
  }
  const known = done.get(value);
  if (known !== undefined) return known;

  const descriptors = Reflect.ownKeys(value).map(
    (key) => [key, Object.getOwnPropertyDescriptor(value, key) as PropertyDescriptor] as const,
  );
  // Copied when a hook or a redacted child could not be defined in place.
  const copy =
    !Object.isExtensible(value) ||
    descriptors.some(
      ([key, { configurable, writable }]) =>
        !configurable && (!writable || HOOK_KEYS.includes(key)),
    );
  const target: object = copy
    ? Array.isArray(value)
      ? []
      : Object.create(Object.getPrototypeOf(value) as object | null)
    : value;
  // Registered before the children, so a cycle leads back to the object being built.
  done.set(value, target);

  const hidden = new Map<PropertyKey, unknown>();
  const enumerable = new Map<PropertyKey, boolean>();
  for (const [key, descriptor] of descriptors) {
    const original = descriptor.value;
    if ('value' in descriptor) descriptor.value = redact(original, done);
    if (HOOK_KEYS.includes(key)) {
      // Data under a hook's name: the hook takes the name, and keeps it listed (`displaced`).
      hidden.set(key, descriptor.value);
      enumerable.set(key, descriptor.enumerable === true);
    } else if (copy || descriptor.value !== original) {
      Object.defineProperty(target, key, descriptor);
    }
  }
  const hook = (name: PropertyKey, run: (...args: unknown[]) => unknown) => {
    if (hidden.has(name)) displaced.set(run, hidden.get(name));
    Object.defineProperty(target, name, {
      value: run,
      enumerable: enumerable.get(name) ?? false,
      configurable: true,
    });
  };
  hook('toJSON', () => redactedCopy(target, new WeakSet()));
  for (const symbol of INSPECT_HOOKS) {
    hook(symbol, (_depth: unknown, options: unknown, inspect?: unknown) => {
      const copy = redactedCopy(target, new WeakSet());
      return typeof inspect === 'function' ? (inspect as Inspect)(copy, options) : copy;
    });
  }
  hooked.add(target);
  // A copy keeps the integrity of what it replaces: frozen stays frozen.
  if (Object.isFrozen(value)) Object.freeze(target);
  else if (Object.isSealed(value)) Object.seal(target);
  else if (!Object.isExtensible(value)) Object.preventExtensions(target);
  return target;
}

function redactedCopy(value: unknown, seen: WeakSet<object>): unknown {
  if (value === null || value === undefined) return value;
  if (typeof value !== 'object') return REDACTED;
  if (!isPlainData(value)) return REDACTED;
  // `seen` holds the objects on the way down, so a cycle ends but a shared object prints twice.
  if (seen.has(value)) return '[Circular]';
  seen.add(value);
  const copy = Array.isArray(value)
    ? value.map((item) => redactedCopy(item, seen))
    : Object.fromEntries(ownData(value).map(([key, item]) => [key, redactedCopy(item, seen)]));
  seen.delete(value);
  return copy;
}

function isPlainData(value: object): boolean {
  if (Array.isArray(value)) return true;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
