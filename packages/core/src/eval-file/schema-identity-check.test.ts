import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { schemaIdentityCheck } from './schema-identity-check.js';

/** Every value the check accepts, the schema accepts and returns unchanged. */
function expectSound(schema: z.ZodType, values: readonly unknown[]): boolean[] {
  const check = schemaIdentityCheck(schema);
  return values.map((value) => {
    const accepted = check(value);
    if (accepted) {
      const parsed = schema.safeParse(value);
      expect({ value, success: parsed.success }).toEqual({ value, success: true });
      expect(parsed.data).toStrictEqual(value);
    }
    return accepted;
  });
}

describe('schemaIdentityCheck', () => {
  it('reads strings, numbers, booleans, enums and literals with their checks', () => {
    const schema = z.object({
      name: z.string().min(2).max(4),
      code: z.string().length(2).optional(),
      weight: z.number().min(0).lt(10).optional(),
      on: z.boolean().optional(),
      role: z.enum(['user', 'tool']).optional(),
      kind: z.literal('x').optional(),
    });
    expect(
      expectSound(schema, [
        { name: 'ab' },
        { name: 'abcd', code: 'xy', weight: 0, on: false, role: 'tool', kind: 'x' },
        { name: 'a' },
        { name: 'abcde' },
        { name: 'ab', code: 'x' },
        { name: 'ab', weight: -1 },
        { name: 'ab', weight: 10 },
        { name: 'ab', weight: Number.POSITIVE_INFINITY },
        { name: 'ab', weight: Number.NaN },
        { name: 'ab', on: 'yes' },
        { name: 'ab', role: 'robot' },
        { name: 'ab', kind: 'y' },
        { name: 3 },
        {},
      ]),
    ).toEqual([true, true, ...Array(12).fill(false)]);
  });

  it('refuses keys outside the shape, excluded keys and objects that are not plain', () => {
    const schema = z.looseObject({ id: z.string(), extra: z.string().optional() });
    const check = schemaIdentityCheck(schema, { excludeKeys: ['extra'] });
    expect(check({ id: 'a' })).toBe(true);
    // zod would keep them (a loose object), but they are not the plain shape.
    expect(check({ id: 'a', other: 1 })).toBe(false);
    expect(check({ id: 'a', extra: 'b' })).toBe(false);
    expect(check(Object.assign(Object.create({ inherited: 1 }), { id: 'a' }))).toBe(false);
    expect(check(JSON.parse('{"__proto__": {"id": "x"}, "id": "a"}'))).toBe(false);
    expect(check([{ id: 'a' }])).toBe(false);
    expect(check(null)).toBe(false);
    // A stripping object would drop the key: the value would not come back unchanged.
    expect(expectSound(z.object({ id: z.string() }), [{ id: 'a', other: 1 }])).toEqual([false]);
  });

  it('reads arrays with their length checks, item by item', () => {
    const schema = z.array(z.string().min(1)).min(1).max(2);
    expect(expectSound(schema, [['a'], ['a', 'b'], [], ['a', 'b', 'c'], ['a', ''], 'a'])).toEqual([
      true,
      true,
      false,
      false,
      false,
      false,
    ]);
  });

  it('takes a union option only when zod would reach it', () => {
    const blocks = z.array(z.object({ type: z.literal('text'), value: z.string() }));
    const content = z.union([z.string(), blocks, z.record(z.string(), z.unknown())]);
    expect(
      expectSound(content, [
        'text',
        [{ type: 'text', value: 'v' }],
        [{ type: 'text', value: 'v', extra: 1 }],
        { a: 1 },
      ]),
    ).toEqual([true, true, false, false]);
    // The first option accepts `{a, b}` by dropping `b`: zod returns that, not the value.
    const stripFirst = z.union([
      z.object({ a: z.string() }),
      z.looseObject({ a: z.string(), b: z.string() }),
    ]);
    expect(expectSound(stripFirst, [{ a: 'x' }, { a: 'x', b: 'y' }])).toEqual([true, false]);
  });

  it('leaves to zod what it does not read: refinements, transforms, defaults, records, formats', () => {
    const refined = z.string().refine((value) => value !== 'no');
    const trimmed = z.string().trim();
    const defaulted = z.object({ id: z.string().default('x') });
    const record = z.record(z.string(), z.string());
    const email = z.string().email();
    const nullable = z.string().nullable();
    const unknown = z.object({ anything: z.unknown() });
    expect(schemaIdentityCheck(refined)('no')).toBe(false);
    expect(schemaIdentityCheck(refined)('yes')).toBe(false);
    expect(schemaIdentityCheck(trimmed)('a')).toBe(false);
    expect(schemaIdentityCheck(defaulted)({ id: 'a' })).toBe(false);
    expect(schemaIdentityCheck(record)({ a: 'b' })).toBe(false);
    expect(schemaIdentityCheck(email)('a@b.c')).toBe(false);
    expect(schemaIdentityCheck(nullable)('a')).toBe(false);
    expect(expectSound(unknown, [{ anything: { deep: [1] } }, { anything: undefined }])).toEqual([
      true,
      true,
    ]);
  });
});
