import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { targetsFileSchema } from '../targets/targets-schema.js';
import type { ContentBlock, EvalMessage, ExpectedToolCall } from './eval-case.js';
import { evalFileSchema, type MessageInput } from './eval-file-schema.js';

describe('eval file schema', () => {
  it('agrees with the hand-written contract types', () => {
    expectTypeOf<MessageInput['role']>().toEqualTypeOf<EvalMessage['role']>();
    type BlockType = Extract<NonNullable<MessageInput['content']>, unknown[]>[number]['type'];
    expectTypeOf<BlockType>().toEqualTypeOf<ContentBlock['type']>();
    type ToolCallInput = NonNullable<MessageInput['tool_calls']>[number];
    expectTypeOf<ToolCallInput['tool']>().toEqualTypeOf<ExpectedToolCall['tool']>();
  });

  it('converts to a JSON Schema for editor completion', () => {
    const evalSchema = z.toJSONSchema(evalFileSchema) as {
      properties: Record<string, unknown>;
      required: string[];
    };
    expect(Object.keys(evalSchema.properties)).toEqual([
      '$schema',
      'description',
      'dataset',
      'execution',
      'target',
      'tags',
      'cases',
      'evalcases',
      'targets',
      'workspace',
    ]);
    // Either `evalcases` or a `cases` dataset: the loader checks that one is there.
    expect(evalSchema.required).toBeUndefined();
    const targetsSchema = z.toJSONSchema(targetsFileSchema) as { required: string[] };
    expect(targetsSchema.required).toEqual(['targets']);
  });
});
