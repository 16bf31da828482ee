import type { z } from 'zod';

/** True when `value` passes the schema unchanged; false also means "cannot tell". */
export type IdentityCheck = (value: unknown) => boolean;

/** The JavaScript types a value can have, as far as a schema cares. */
type ValueType = 'string' | 'number' | 'boolean' | 'array' | 'object' | 'null' | 'undefined';

/** A compiled part of a schema: its check and the value types it can accept at all. */
interface Compiled {
  check: IdentityCheck;
  /** Undefined: any type (an `unknown`, or a part this compiler does not read). */
  types?: ReadonlySet<ValueType>;
}

/** What this compiler reads of a zod schema's definition. */
interface SchemaDef {
  type: string;
  checks?: readonly { _zod: { def: CheckDef } }[];
  innerType?: z.ZodType;
  element?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  options?: readonly z.ZodType[];
  entries?: Record<string, unknown>;
  values?: readonly unknown[];
  coerce?: boolean;
}

interface CheckDef {
  check: string;
  minimum?: number;
  maximum?: number;
  length?: number;
  value?: number;
  inclusive?: boolean;
}

const NEVER: Compiled = { check: () => false };

/**
 * Compiles a zod schema into a predicate that is true only for values the
 * schema accepts and returns as they are, so that a caller may take the value
 * itself as the parsed value and skip parsing (zod builds a copy of every
 * object and array, which is most of the time spent loading a large eval
 * file). Derived from the schema's definition, so it follows every change of
 * the schema; it reads strings, numbers, booleans, enums, literals, optional
 * values, arrays, objects and unions with their length and range checks.
 * Anything else — a refinement, a transform, a default, a record, a format —
 * makes the check false there, and so does an object with a key outside its
 * shape or in `excludeKeys`, or whose prototype is not `Object.prototype`.
 * False says nothing: parse the value with the schema.
 */
export function schemaIdentityCheck(
  schema: z.ZodType,
  options: { excludeKeys?: readonly string[] } = {},
): IdentityCheck {
  return compile(schema, new Set(options.excludeKeys)).check;
}

function compile(schema: z.ZodType, excluded: ReadonlySet<string>): Compiled {
  const def = (schema as unknown as { _zod: { def: SchemaDef } })._zod.def;
  if (def.coerce === true) return NEVER;
  const checks = (def.checks ?? []).map((check) => check._zod.def);
  switch (def.type) {
    case 'string':
      return typed(
        'string',
        lengthCheck(checks, (value) => typeof value === 'string'),
      );
    case 'number':
      return typed(
        'number',
        rangeCheck(checks, (value) => typeof value === 'number' && Number.isFinite(value)),
      );
    case 'boolean':
      return checks.length > 0 ? NEVER : typed('boolean', (value) => typeof value === 'boolean');
    case 'enum':
    case 'literal': {
      const allowed = new Set(def.type === 'enum' ? Object.values(def.entries ?? {}) : def.values);
      const types = new Set([...allowed].map(typeOf));
      return checks.length > 0 ? NEVER : { check: (value) => allowed.has(value), types };
    }
    case 'unknown':
    case 'any':
      return checks.length > 0 ? NEVER : { check: () => true };
    case 'optional': {
      const inner = compile(def.innerType!, excluded);
      if (checks.length > 0) return NEVER;
      return {
        check: (value) => value === undefined || inner.check(value),
        types: inner.types && new Set([...inner.types, 'undefined']),
      };
    }
    case 'array':
      return typed('array', arrayCheck(compile(def.element!, excluded).check, checks));
    case 'object':
      return checks.length > 0 ? NEVER : typed('object', objectCheck(def.shape!, excluded));
    case 'union':
      return checks.length > 0 ? NEVER : unionCheck(def.options!, excluded);
    default:
      return NEVER;
  }
}

function typed(type: ValueType, check: IdentityCheck | undefined): Compiled {
  return check === undefined ? NEVER : { check, types: new Set([type]) };
}

function typeOf(value: unknown): ValueType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  const type = typeof value;
  return type === 'string' || type === 'number' || type === 'boolean' || type === 'undefined'
    ? type
    : 'object';
}

/** A string's length checks; undefined when a check is of another kind. */
function lengthCheck(checks: readonly CheckDef[], base: IdentityCheck): IdentityCheck | undefined {
  if (checks.length === 0) return base;
  const { min, max, ok } = lengthBounds(checks);
  if (!ok) return undefined;
  return (value) =>
    base(value) && (value as string).length >= min && (value as string).length <= max;
}

function lengthBounds(checks: readonly CheckDef[]): { min: number; max: number; ok: boolean } {
  let min = 0;
  let max = Number.POSITIVE_INFINITY;
  for (const check of checks) {
    if (check.check === 'min_length') min = Math.max(min, check.minimum!);
    else if (check.check === 'max_length') max = Math.min(max, check.maximum!);
    else if (check.check === 'length_equals') {
      min = Math.max(min, check.length!);
      max = Math.min(max, check.length!);
    } else return { min, max, ok: false };
  }
  return { min, max, ok: true };
}

/** A number's range checks; undefined when a check is of another kind. */
function rangeCheck(checks: readonly CheckDef[], base: IdentityCheck): IdentityCheck | undefined {
  let check = base;
  for (const { check: kind, value: bound, inclusive } of checks) {
    const previous = check;
    if (kind === 'greater_than') {
      check = inclusive
        ? (value) => previous(value) && (value as number) >= bound!
        : (value) => previous(value) && (value as number) > bound!;
    } else if (kind === 'less_than') {
      check = inclusive
        ? (value) => previous(value) && (value as number) <= bound!
        : (value) => previous(value) && (value as number) < bound!;
    } else return undefined;
  }
  return check;
}

function arrayCheck(item: IdentityCheck, checks: readonly CheckDef[]): IdentityCheck | undefined {
  const { min, max, ok } = lengthBounds(checks);
  if (!ok) return undefined;
  // An indexed loop: it runs for every message of every case.
  return (value) => {
    if (!Array.isArray(value) || value.length < min || value.length > max) return false;
    for (let index = 0; index < value.length; index++) if (!item(value[index])) return false;
    return true;
  };
}

/**
 * Every key in the shape (and not excluded) checked, no other key: then a
 * stripping, passthrough or strict object alike returns the value's keys and
 * values as they are. Only the keys the value has are checked, and that it has
 * the keys it must (an absent optional key passes): a case of a large dataset
 * writes two or three of the shape's keys.
 */
function objectCheck(
  shape: Record<string, z.ZodType>,
  excluded: ReadonlySet<string>,
): IdentityCheck {
  const keys = Object.keys(shape).filter((key) => !excluded.has(key));
  const checks = new Map(keys.map((key) => [key, compile(shape[key]!, excluded).check] as const));
  // The keys whose check refuses a missing value.
  const required = keys.filter((key) => !checks.get(key)!(undefined));
  return (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
    if (Object.getPrototypeOf(value) !== Object.prototype) return false;
    const record = value as Record<string, unknown>;
    // A parsed value's keys are its own enumerable ones: `for…in` visits every key it has.
    for (const key in record) {
      const check = checks.get(key);
      if (check === undefined || !check(record[key])) return false;
    }
    for (let index = 0; index < required.length; index++) {
      if (!Object.hasOwn(record, required[index]!)) return false;
    }
    return true;
  };
}

/**
 * zod returns what the first option that accepts the value returns: an option
 * passes the value unchanged only when every option before it cannot accept
 * a value of its type at all.
 */
function unionCheck(options: readonly z.ZodType[], excluded: ReadonlySet<string>): Compiled {
  const compiled = options.map((option) => compile(option, excluded));
  const types = compiled.every((option) => option.types !== undefined)
    ? new Set(compiled.flatMap((option) => [...option.types!]))
    : undefined;
  return {
    check: (value) => {
      const type = typeOf(value);
      for (const option of compiled) {
        if (option.check(value)) return true;
        if (option.types === undefined || option.types.has(type)) return false;
      }
      return false;
    },
    types,
  };
}
