import type { z } from 'zod';

/** Whether a value matches a schema, without saying why. */
export type QuickCheck = (value: unknown) => boolean;

/**
 * A yes/no check of JSON values compiled from a zod schema, for the hot path
 * of reading result files: it allocates nothing, where zod's parse builds a
 * copy of every line (10× the cost on a result line). It accepts no value
 * the schema rejects; a value it rejects is handed to zod, which has the last
 * word and the words for what is wrong. Supports what the result-line schema
 * uses (objects with or without a catchall, arrays, strings, numbers with
 * `int` and inclusive `min`/`max`, booleans, enums, literals, optional,
 * nullable, unknown) and throws on anything else, so a schema change it does
 * not understand fails its tests instead of passing values unchecked.
 */
export function compileQuickCheck(schema: z.ZodType): QuickCheck {
  return compile(schema, new Map());
}

function compile(schema: z.ZodType, compiled: Map<z.ZodType, QuickCheck>): QuickCheck {
  const known = compiled.get(schema);
  if (known !== undefined) return known;
  const def = schema.def as { type: string; checks?: unknown[] };
  switch (def.type) {
    case 'string':
      if ((def.checks?.length ?? 0) > 0) return unsupported('a string with checks');
      return (value) => typeof value === 'string';
    case 'boolean':
      return (value) => typeof value === 'boolean';
    case 'unknown':
      return () => true;
    case 'number': {
      const bounds = (def.checks ?? []) as { _zod: { def: { inclusive?: boolean } } }[];
      if (bounds.some((bound) => bound._zod.def.inclusive === false)) {
        return unsupported('a number with an exclusive bound');
      }
      const number = schema as z.ZodNumber;
      const int = number.isInt;
      const min = number.minValue ?? Number.NEGATIVE_INFINITY;
      const max = number.maxValue ?? Number.POSITIVE_INFINITY;
      return (value) =>
        typeof value === 'number' &&
        (int ? Number.isSafeInteger(value) : Number.isFinite(value)) &&
        value >= min &&
        value <= max;
    }
    case 'enum': {
      const options = new Set<unknown>((schema as z.ZodEnum).options);
      return (value) => options.has(value);
    }
    case 'literal': {
      const values = (schema as z.ZodLiteral).values;
      return (value) => values.has(value as never);
    }
    case 'optional': {
      const inner = compile((schema as z.ZodOptional).unwrap() as z.ZodType, compiled);
      return (value) => value === undefined || inner(value);
    }
    case 'nullable': {
      const inner = compile((schema as z.ZodNullable).unwrap() as z.ZodType, compiled);
      return (value) => value === null || inner(value);
    }
    case 'array': {
      const element = compile((schema as z.ZodArray).element as z.ZodType, compiled);
      return (value) => {
        if (!Array.isArray(value)) return false;
        // Not `every`: it skips holes, which zod sees as undefined.
        for (let index = 0; index < value.length; index++) if (!element(value[index])) return false;
        return true;
      };
    }
    case 'object':
      return compileObject(schema as z.ZodObject, compiled);
    default:
      return unsupported(`a ${def.type} schema`);
  }
}

function compileObject(schema: z.ZodObject, compiled: Map<z.ZodType, QuickCheck>): QuickCheck {
  const keys: string[] = [];
  const checks: QuickCheck[] = [];
  let rest: QuickCheck | undefined;
  const check: QuickCheck = (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
    const record = value as Record<string, unknown>;
    for (let index = 0; index < keys.length; index++) {
      if (!checks[index]!(record[keys[index]!])) return false;
    }
    if (rest === undefined) return true;
    for (const key of Object.keys(record)) {
      if (!Object.hasOwn(shape, key) && !rest(record[key])) return false;
    }
    return true;
  };
  // Registered before its fields are compiled: a recursive field (a composite's members) finds it.
  compiled.set(schema, check);
  // Read once: a getter in the shape (a recursive field) builds a new schema on every read.
  const shape = schema.shape as Record<string, z.ZodType>;
  for (const [key, field] of Object.entries(shape)) {
    keys.push(key);
    checks.push(compile(field, compiled));
  }
  const catchall = schema.def.catchall as z.ZodType | undefined;
  if (catchall !== undefined && catchall.def.type !== 'unknown') rest = compile(catchall, compiled);
  return check;
}

function unsupported(what: string): never {
  throw new Error(`compileQuickCheck does not support ${what}; extend it or check with zod`);
}
