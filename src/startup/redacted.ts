/**
 * Loaded secrets that print as `[REDACTED]`. A job's config object ends up in logs (a
 * `console.log(config)` while debugging, a structured logger serialising the context): printing
 * it, at any depth, with `console.log`, `util.inspect` or `JSON.stringify`, shows no value, while
 * reading a property still gives the real string.
 */

const REDACTED = '[REDACTED]';
// Node and Bun read the first, Deno the second.
const INSPECT_HOOKS = [Symbol.for('nodejs.util.inspect.custom'), Symbol.for('Deno.customInspect')];

type Inspect = (value: unknown, options?: unknown) => string;

/**
 * Makes every plain object and array inside `value` (and `value` itself) print with its values
 * replaced by `[REDACTED]`. The hooks are non-enumerable, so keys, spreads, equality checks and
 * property reads see the data as it is. Returns `value`.
 */
export function redactWhenPrinted<T>(value: T): T {
  mark(value, new WeakSet());
  return value;
}

function mark(value: unknown, seen: WeakSet<object>): void {
  if (typeof value !== 'object' || value === null || seen.has(value)) return;
  seen.add(value);
  if (!isPlainData(value) || !Object.isExtensible(value)) return;
  const target = value;
  const hook = (name: PropertyKey, run: (...args: unknown[]) => unknown) => {
    // A secret key named `toJSON` is data: it wins, and the parent's hook still covers it.
    if (!Object.hasOwn(target, name)) {
      Object.defineProperty(target, name, { value: run, enumerable: false, configurable: true });
    }
  };
  hook('toJSON', () => redactedCopy(target, new WeakSet()));
  for (const symbol of INSPECT_HOOKS) {
    hook(symbol, (_depth: unknown, options: unknown, inspect?: unknown) => {
      const copy = redactedCopy(target, new WeakSet());
      return typeof inspect === 'function' ? (inspect as Inspect)(copy, options) : copy;
    });
  }
  for (const child of Object.values(target)) mark(child, seen);
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
    : Object.fromEntries(
        Object.entries(value).map(([key, item]) => [key, redactedCopy(item, seen)]),
      );
  seen.delete(value);
  return copy;
}

function isPlainData(value: object): boolean {
  if (Array.isArray(value)) return true;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
