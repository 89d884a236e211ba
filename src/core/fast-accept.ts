/**
 * The fast path of validation: a predicate compiled once per schema that accepts, without zod's
 * bookkeeping, the values a schema surely accepts. It pays off for a server that reads many
 * answers; the browser build replaces this module with `fast-accept.browser.ts` and keeps the
 * bytes instead, every value then going through zod.
 */
import * as z from 'zod/mini';

/** @internal Whether a value surely passes a schema; `false` means only "ask zod", never "invalid". */
export type Predicate = (value: unknown) => boolean;

const predicates = new WeakMap<object, Predicate>();

/**
 * A predicate that accepts, without zod's per-field bookkeeping, the values a schema surely
 * accepts: JSON-shaped objects, arrays, records, strings, finite numbers, booleans, null, enums.
 * zod/mini interprets a schema field by field (it has no compiled path), which made checking a
 * list of 500 secrets cost more than parsing its JSON. Anything this does not know for certain
 * (a check such as a pattern, an integer format, a refinement, a strict object, an unknown kind
 * of schema) is left to zod for that part, and any value it does not accept goes to zod as a
 * whole, so what is accepted, and every issue reported, stays exactly zod's.
 */
export function acceptsAtOnce(schema: z.ZodMiniType): Predicate {
  let predicate = predicates.get(schema) ?? declared.get(schema);
  if (predicate === undefined) {
    predicate = compile(schema);
    predicates.set(schema, predicate);
  }
  return predicate;
}

const declared = new WeakMap<object, Predicate>();

/**
 * @internal Gives a schema that the compiler cannot read (a custom check) its fast path:
 * `predicate` must accept exactly the values the schema accepts, or fewer.
 */
export function declareFastPath(schema: z.ZodMiniType, predicate: Predicate): void {
  declared.set(schema, predicate);
}

interface Definition {
  readonly type: string;
  readonly checks?: readonly unknown[];
  readonly innerType?: z.ZodMiniType;
  readonly element?: z.ZodMiniType;
  readonly keyType?: z.ZodMiniType;
  readonly valueType?: z.ZodMiniType;
  readonly shape?: Readonly<Record<string, z.ZodMiniType>>;
  readonly entries?: Readonly<Record<string, unknown>>;
  readonly fn?: (value: unknown) => unknown;
}

// The definition keys each kind may have for the fast path to know it exactly; any other key
// (`format` of an integer, `catchall` of a strict object, `mode` of a record) sends it to zod.
const PLAIN_KEYS: Readonly<Record<string, readonly string[]>> = {
  string: ['type', 'checks'],
  number: ['type', 'checks'],
  boolean: ['type', 'checks'],
  null: ['type', 'checks'],
  unknown: ['type', 'checks'],
  nullable: ['type', 'checks', 'innerType'],
  optional: ['type', 'checks', 'innerType'],
  array: ['type', 'checks', 'element'],
  record: ['type', 'checks', 'keyType', 'valueType'],
  object: ['type', 'checks', 'shape'],
  custom: ['type', 'check', 'fn', 'error', 'abort'],
  enum: ['type', 'checks', 'entries'],
};

function definitionOf(schema: z.ZodMiniType): Definition {
  return (schema as unknown as { _zod: { def: Definition } })._zod.def;
}

function compile(schema: z.ZodMiniType): Predicate {
  const byZod: Predicate = (value) => z.safeParse(schema, value).success;
  const def = definitionOf(schema);
  const known = PLAIN_KEYS[def.type];
  if (
    known === undefined ||
    (def.checks !== undefined && def.checks.length > 0) ||
    Object.keys(def).some((key) => !known.includes(key))
  ) {
    return byZod;
  }
  switch (def.type) {
    case 'custom': {
      // zod passes a value its function calls truthy; `true` alone is taken here, so that an
      // async function's promise goes to zod.
      const fn = def.fn;
      return fn === undefined ? byZod : (value) => fn(value) === true;
    }
    case 'string':
      return (value) => typeof value === 'string';
    case 'number':
      return (value) => typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return (value) => typeof value === 'boolean';
    case 'null':
      return (value) => value === null;
    case 'unknown':
      return () => true;
    case 'nullable': {
      const inner = acceptsAtOnce(def.innerType as z.ZodMiniType);
      return (value) => value === null || inner(value);
    }
    case 'optional': {
      const inner = acceptsAtOnce(def.innerType as z.ZodMiniType);
      return (value) => value === undefined || inner(value);
    }
    case 'array': {
      const element = acceptsAtOnce(def.element as z.ZodMiniType);
      return (value) => {
        if (!Array.isArray(value)) return false;
        // By index, as zod reads it: a hole is `undefined`, which `every` would skip.
        for (let index = 0; index < value.length; index += 1) {
          if (!element(value[index])) return false;
        }
        return true;
      };
    }
    case 'record': {
      const keyDef = definitionOf(def.keyType as z.ZodMiniType);
      if (keyDef.type !== 'string' || Object.keys(keyDef).some((key) => key !== 'type')) {
        return byZod;
      }
      const item = acceptsAtOnce(def.valueType as z.ZodMiniType);
      return (value) => {
        // zod reads the own enumerable keys but `__proto__`; a symbol key is left to zod.
        if (!isPlainObject(value) || Object.getOwnPropertySymbols(value).length > 0) return false;
        for (const key of Object.keys(value)) {
          if (key !== '__proto__' && !item((value as Record<string, unknown>)[key])) return false;
        }
        return true;
      };
    }
    case 'object': {
      const fields = Object.entries(def.shape ?? {}).map(
        ([key, field]) => [key, acceptsAtOnce(field)] as const,
      );
      return (value) => {
        if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
        const record = value as Record<string, unknown>;
        for (const [key, field] of fields) if (!field(record[key])) return false;
        return true;
      };
    }
    case 'enum': {
      const values = Object.values(def.entries ?? {});
      if (!values.every((entry) => typeof entry === 'string')) return byZod;
      const allowed = new Set<unknown>(values);
      return (value) => allowed.has(value);
    }
    default:
      return byZod;
  }
}

// Narrower than zod's test (an own `constructor` is left to zod), never wider.
function isPlainObject(value: unknown): value is object {
  if (typeof value !== 'object' || value === null || Object.hasOwn(value, 'constructor')) {
    return false;
  }
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
