import { z } from 'zod';
import type { ProblemKind } from '../util/describe-zod-issues.js';

/** The message roles an eval file may use. */
export const MESSAGE_ROLES = ['system', 'user', 'assistant', 'tool'] as const;

/** `{type: text, value}` or `{type: file, value: path}`. */
export const contentBlockSchema = z.object({
  type: z.enum(['text', 'file']),
  value: z.string(),
});

/** Message content: text, a list of blocks, or a JSON object. */
export const messageContentSchema = z.union([
  z.string(),
  z.array(contentBlockSchema),
  z.record(z.string(), z.unknown()),
]);

/** A tool call in an expected (or prior assistant) message. */
export const toolCallSchema = z.looseObject({
  tool: z.string().min(1),
  input: z.unknown().optional(),
  output: z.unknown().optional(),
});

/** A message in `expected_messages` (content optional: a turn may be tool calls only). */
export const messageSchema = z.looseObject({
  role: z.enum(MESSAGE_ROLES),
  name: z.string().min(1).optional(),
  content: messageContentSchema.optional(),
  tool_calls: z.array(toolCallSchema).optional(),
});

/** A message in `input_messages` (content required). */
export const inputMessageSchema = messageSchema.extend({ content: messageContentSchema });

/** An evaluator entry; keys other than `type`, `name`, `weight` are its options. */
export const evaluatorEntrySchema = z.looseObject({
  type: z.string().min(1),
  name: z.string().min(1).optional(),
  weight: z.number().min(0).optional(),
});

/** A rubric criterion: a description, or an object with optional id, weight, required. */
export const rubricSchema = z.union([
  z.string().min(1),
  z.object({
    id: z.string().min(1).optional(),
    description: z.string().min(1),
    weight: z.number().min(0).optional(),
    required: z.boolean().optional(),
  }),
]);

/** A case's `execution:` block. */
export const caseExecutionSchema = z.looseObject({
  target: z.string().min(1).optional(),
  evaluators: z.array(evaluatorEntrySchema).optional(),
});

/** One entry of `evalcases:`. */
export const evalCaseSchema = z.looseObject({
  id: z.string().min(1),
  expected_outcome: z.string().optional(),
  outcome: z.string().optional(),
  input_messages: z.array(inputMessageSchema).min(1),
  expected_messages: z.array(messageSchema).optional(),
  conversation_id: z.string().min(1).optional(),
  execution: caseExecutionSchema.optional(),
  evaluators: z.array(evaluatorEntrySchema).optional(),
  rubrics: z.array(rubricSchema).optional(),
});

/** The file's `execution:` block. */
export const fileExecutionSchema = caseExecutionSchema.extend({
  threshold: z.number().min(0).max(1).optional(),
});

/** An eval file as written (`agentv-eval-v2`, SPEC 2.1). */
export const evalFileSchema = z.looseObject({
  $schema: z.literal('agentv-eval-v2').optional(),
  description: z.string().optional(),
  dataset: z.string().min(1).optional(),
  execution: fileExecutionSchema.optional(),
  target: z.string().min(1).optional(),
  evalcases: z.array(evalCaseSchema).min(1),
});

/** The file without its cases, which are validated one by one (`evalCaseSchema`). */
export const evalFileHeaderSchema = evalFileSchema.extend({
  evalcases: z.array(z.unknown()).min(1),
});

export type EvalFileInput = z.infer<typeof evalFileSchema>;
export type EvalCaseInput = z.infer<typeof evalCaseSchema>;
export type MessageInput = z.infer<typeof messageSchema>;
export type EvaluatorEntryInput = z.infer<typeof evaluatorEntrySchema>;
export type RubricInput = z.infer<typeof rubricSchema>;

/** Keys understood at each level, for unknown-key warnings. */
export const KNOWN_KEYS = {
  file: Object.keys(evalFileSchema.shape),
  fileExecution: Object.keys(fileExecutionSchema.shape),
  case: Object.keys(evalCaseSchema.shape),
  caseExecution: Object.keys(caseExecutionSchema.shape),
  message: Object.keys(messageSchema.shape),
} as const;

/** How to fix a schema problem at `path` of an eval file. */
export function evalFileHint(path: readonly PropertyKey[], kind: ProblemKind): string | undefined {
  const keys = path.filter((segment): segment is string => typeof segment === 'string');
  const last = keys.at(-1);
  const lastSegment = path.at(-1);
  if (path.length === 1 && last === '$schema') {
    return 'use `$schema: agentv-eval-v2` or remove the line';
  }
  if (path.length === 1 && last === 'evalcases') {
    return 'add an `evalcases:` list with at least one case (`- id: ...`)';
  }
  if (last === 'evalcases' && typeof lastSegment === 'number') {
    return 'write each case as a mapping starting with `- id: <unique-id>`';
  }
  if (last === 'id' && path.length === 3) {
    return kind === 'type'
      ? 'write the id as text; quote ids that look like numbers, e.g. `id: "001"`'
      : 'give every case a unique `id:`, e.g. `id: refund-001`';
  }
  if (last === 'input_messages' && typeof lastSegment === 'string') {
    return 'add `input_messages:` with at least one message, e.g. `- {role: user, content: "..."}`';
  }
  if (last === 'role') return `use one of: ${MESSAGE_ROLES.join(', ')}`;
  if (last === 'content' && typeof lastSegment === 'number') {
    return 'write each content block as `{type: text, value: "..."}` or `{type: file, value: path}`';
  }
  if (last === 'content' && lastSegment === 'content') {
    return 'write content as text, a list of `{type: text|file, value}` blocks, or a mapping';
  }
  if (keys.includes('content') && (last === 'type' || last === 'value')) {
    return last === 'type'
      ? 'a content block `type` is `text` or `file`'
      : 'a block `value` is the text, or the file path, as a string';
  }
  if (keys.includes('tool_calls')) return 'write each tool call as `{tool: name, input: {...}}`';
  if (last === 'evaluators' && typeof lastSegment === 'number') {
    return 'write each evaluator as a mapping with a `type`, e.g. `- {type: contains, value: refund}`';
  }
  if (keys.includes('evaluators')) {
    if (last === 'type') return 'give the evaluator a `type`, e.g. `type: llm_judge`';
    if (last === 'weight')
      return 'weight is a number >= 0 (0 excludes the evaluator from the score)';
    if (last === 'name') return 'write the evaluator name as non-empty text';
  }
  if (last === 'threshold') return 'threshold is a number from 0 to 1, e.g. `threshold: 0.8`';
  if (last === 'target') return 'name a target from the targets file, e.g. `target: default`';
  if (keys.includes('rubrics')) {
    return 'write each rubric as text, or as `{description: "...", weight: 1, required: true}`';
  }
  if (last === 'expected_messages' || last === 'input_messages') {
    return 'write messages as a list of `{role, content}` mappings';
  }
  if (last === 'conversation_id' || last === 'expected_outcome' || last === 'outcome') {
    return `write ${last} as text (quote it if it looks like a number)`;
  }
  if (last === 'description') return 'write the description as text';
  if (last === 'dataset')
    return 'write the dataset name as text, or remove it to use the file name';
  if (last === 'execution')
    return 'write execution as a mapping, e.g. `execution: {target: default}`';
  if (last === 'name') return 'write the message name as non-empty text';
  return undefined;
}
