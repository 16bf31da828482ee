import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseYamlMapping } from '../yaml/parse-yaml-mapping.js';
import { evalCaseSchema, isPlainValidCase } from './eval-file-schema.js';

/** The cases of every eval file the test suites load (collected from a run), and variants. */
async function corpusCases(): Promise<unknown[]> {
  const corpus = readFileSync(
    new URL('../yaml/__fixtures__/yaml-corpus.json', import.meta.url),
    'utf8',
  );
  const cases: unknown[] = [];
  for (const text of JSON.parse(corpus) as string[]) {
    const data = (await parseYamlMapping(text, 'f.yaml', 'eval file')).value?.data;
    if (Array.isArray(data?.evalcases)) cases.push(...data.evalcases);
  }
  return cases;
}

const valid = {
  id: 'a',
  expected_outcome: 'x',
  input_messages: [{ role: 'user', content: 'hi' }],
};

const variants: unknown[] = [
  valid,
  { ...valid, outcome: 'y', conversation_id: 'c', tags: ['t'] },
  { ...valid, expected_messages: [] },
  { ...valid, expected_messages: [{ role: 'assistant' }] },
  {
    ...valid,
    input_messages: [{ role: 'user', name: 'n', content: [{ type: 'text', value: 'v' }] }],
  },
  { ...valid, input_messages: [{ role: 'user', content: [{ type: 'file', value: './f.md' }] }] },
  // Each of these fails validation or needs zod's own output.
  { ...valid, id: '' },
  { ...valid, id: 1 },
  { ...valid, id: undefined },
  { ...valid, outcome: null },
  { ...valid, expected_outcome: 3 },
  { ...valid, conversation_id: '' },
  { ...valid, tags: [''] },
  { ...valid, tags: 'a' },
  { ...valid, input_messages: [] },
  { ...valid, input_messages: [{ role: 'user' }] },
  { ...valid, input_messages: [{ role: 'robot', content: 'x' }] },
  { ...valid, input_messages: [{ role: 'user', content: 'x', name: '' }] },
  { ...valid, input_messages: [{ role: 'user', content: [{ type: 'image', value: 'x' }] }] },
  {
    ...valid,
    input_messages: [{ role: 'user', content: [{ type: 'text', value: 'x', extra: 1 }] }],
  },
  { ...valid, input_messages: [{ role: 'user', content: [{ type: 'text' }] }] },
  { ...valid, input_messages: [{ role: 'user', content: { a: 1 } }] },
  { ...valid, input_messages: [{ role: 'user', content: 'x', tool_calls: [] }] },
  { ...valid, expected_messages: [{ role: 'assistant', content: null }] },
  { ...valid, expected_messages: {} },
  { ...valid, vars: { a: 1 } },
  { ...valid, unknown_key: 1 },
  JSON.parse(
    '{"__proto__": {"id": "x"}, "id": "a", "input_messages": [{"role": "user", "content": "hi"}]}',
  ),
  Object.assign(Object.create({ inherited: 1 }), valid),
  [valid],
  null,
  'text',
];

describe('isPlainValidCase', () => {
  it('accepts only cases the schema accepts unchanged', async () => {
    let plain = 0;
    for (const value of [...variants, ...(await corpusCases())]) {
      if (!isPlainValidCase(value)) continue;
      plain++;
      const parsed = evalCaseSchema.safeParse(value);
      expect({ value, success: parsed.success }).toEqual({ value, success: true });
      expect(parsed.data).toStrictEqual(value);
    }
    // Most cases written in the test suites are plain: the check above is not vacuous.
    expect(plain).toBeGreaterThan(50);
  });

  it('leaves to the schema what it rejects or reshapes', () => {
    expect(variants.slice(0, 6).map((value) => isPlainValidCase(value))).toEqual(
      Array(6).fill(true),
    );
    for (const value of variants.slice(6))
      expect({ value, plain: isPlainValidCase(value) }).toEqual({ value, plain: false });
  });
});
