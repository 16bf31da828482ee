import { z } from 'zod';
import { RECORDED_TRACE_SOURCES } from '../provider/recorded-trace.js';
import { targetSchema } from '../targets/targets-schema.js';
import type { ProblemKind } from '../yaml/describe-zod-issues.js';
import { schemaIdentityCheck } from './schema-identity-check.js';
import { workspaceHint, workspaceSchemas } from './workspace-schema.js';

/** The message roles an eval file may use. */
export const MESSAGE_ROLES = ['system', 'user', 'assistant', 'tool'] as const;

/** `{type: text, value}` or `{type: file, value: path}`. */
export const contentBlockSchema = z.object({
  type: z
    .enum(['text', 'file'])
    .describe('`text`: inline text; `file`: a file embedded in the prompt'),
  value: z
    .string()
    .describe(
      "The text, or the file's path (relative to the eval file, then its parent folders, then the current directory); it must be inside the project root or a folder of allowed_file_roots",
    ),
});

/** Message content: text, a list of blocks, or a JSON object. */
export const messageContentSchema = z
  .union([z.string(), z.array(contentBlockSchema), z.record(z.string(), z.unknown())])
  .describe('Text, a list of `{type: text|file, value}` blocks, or a JSON object');

/** A tool call in an expected (or prior assistant) message. */
export const toolCallSchema = z.looseObject({
  tool: z.string().min(1).describe('The tool name'),
  input: z.unknown().optional().describe('The arguments of the call'),
  output: z.unknown().optional().describe('What the tool returned'),
});

/** A message in `expected_messages` (content optional: a turn may be tool calls only). */
export const messageSchema = z.looseObject({
  role: z.enum(MESSAGE_ROLES),
  name: z
    .string()
    .min(1)
    .optional()
    .describe('Who speaks (a user name, or the tool of a tool turn)'),
  content: messageContentSchema.optional(),
  tool_calls: z
    .array(toolCallSchema)
    .optional()
    .describe('Tool calls of this turn, e.g. `[{tool: lookupOrder, input: {id: 42}}]`'),
});

/** A message in `input_messages` (content required). */
export const inputMessageSchema = messageSchema.extend({ content: messageContentSchema });

/** An evaluator entry; keys other than `type`, `name`, `weight`, `negate`, `metric`, `required` are its options. */
export const evaluatorEntrySchema = z
  .looseObject({
    type: z
      .string()
      .min(1)
      .describe(
        'code_judge, llm_judge, rubric, composite, contains, icontains, contains_any, contains_all, icontains_any, icontains_all, starts_with, ends_with, equals, regex, levenshtein, is_json, json_schema, is_valid_openai_tools_call (and not_<type> of each), tool_trajectory, execution_metrics, latency, cost, command, file, diff (these three judge the workspace), or a type a plugin adds',
      ),
    name: z.string().min(1).optional().describe('Unique in the list; default: the type'),
    weight: z
      .number()
      .min(0)
      .optional()
      .describe('Weight in the case score (default 1; 0 excludes it)'),
    negate: z
      .boolean()
      .optional()
      .describe(
        'Pass when the check does not hold: score 1 - s, hits and misses swapped (e.g. an answer that must NOT contain a value)',
      ),
    metric: z
      .string()
      .min(1)
      .optional()
      .describe(
        "A named metric (e.g. accuracy) its score counts toward: result lines and the summary report each metric's mean score",
      ),
    required: z
      .union([z.boolean(), z.number().gt(0).max(1)])
      .optional()
      .describe(
        "The case fails (score 0) when this grader misses its bar: true (the case's threshold, else the grader's own pass) or a score from 0 (exclusive) to 1",
      ),
  })
  .describe("A grader; other keys are the evaluator's options (script, value, pattern, mode, ...)");

/**
 * A rubric criterion: a description, or an object with optional id, weight,
 * required (`expected_outcome` is AgentV 1.x's spelling of `description`).
 */
export const rubricSchema = z.union([
  z.string().min(1),
  z
    .object({
      id: z.string().min(1).optional(),
      description: z.string().min(1).optional(),
      expected_outcome: z.string().min(1).optional().describe('AgentV 1.x spelling of description'),
      weight: z.number().min(0).optional(),
      required: z.boolean().optional(),
    })
    .refine((item) => item.description !== undefined || item.expected_outcome !== undefined, {
      message: 'a rubric item needs a description',
      path: ['description'],
    }),
]);

/** A case's `execution:` block. */
/** `repeat_pass` as written: `all`, `any`, `majority` or `rate>=X` with X from 0 to 1. */
const REPEAT_PASS_PATTERN = /^(all|any|majority|rate\s*>=\s*(0(\.\d+)?|1(\.0+)?|0?\.\d+))$/;

export const caseExecutionSchema = z.looseObject({
  target: z.string().min(1).optional().describe('The target (from the targets file) that answers'),
  targets: z
    .array(z.string().min(1))
    .min(1)
    .optional()
    .describe('Several targets: every case runs against each of them, side by side'),
  evaluators: z.array(evaluatorEntrySchema).optional().describe('How answers are graded'),
  judge_target: z
    .string()
    .min(1)
    .optional()
    .describe(
      "The target that answers LLM graders (llm_judge, rubric); wins over the target's judge_target",
    ),
  repeat_pass: z
    .string()
    .regex(REPEAT_PASS_PATTERN)
    .optional()
    .describe(
      'Under --repeat N, when the case passes: all (default), any, majority or rate>=X of its repeats pass; --repeat-pass wins',
    ),
  max_cost_usd: z
    .number()
    .positive()
    .optional()
    .describe(
      "The case's budget in US dollars (agent calls of all its attempts): crossing it fails the case",
    ),
  max_tokens: z
    .int()
    .positive()
    .optional()
    .describe(
      "The case's budget in tokens (input + output of the agent's calls): crossing it fails the case",
    ),
  max_duration_seconds: z
    .number()
    .positive()
    .optional()
    .describe("The case's budget in seconds of answering: crossing it fails the case"),
  threshold: z
    .number()
    .min(0)
    .max(1)
    .optional()
    .describe('A case passes when its score reaches this, instead of every evaluator passing'),
});

/** How the scores of a conversation's graded turns become one grade (README, "Conversations"). */
export const TURN_AGGREGATIONS = ['all', 'mean', 'last', 'min'] as const;

/** One scripted user turn of `turns:`: its message as `input` (text) or `input_messages`. */
export const conversationTurnSchema = z.looseObject({
  input: z.string().optional().describe("The user's message as plain text"),
  input_messages: z
    .array(inputMessageSchema)
    .min(1)
    .optional()
    .describe('The turn as messages (like a case), e.g. `- {role: user, content: "..."}`'),
  expected_outcome: z
    .string()
    .optional()
    .describe("What a good answer to this turn achieves, for this turn's LLM judges"),
  evaluators: z.array(evaluatorEntrySchema).optional().describe("Graders of this turn's answer"),
});

/** `simulated_user:`: an LLM target that plays the user. */
export const simulatedUserSchema = z.looseObject({
  target: z.string().min(1).describe('The target (an LLM) that plays the user'),
  persona: z.string().min(1).optional().describe('Who the user is and how they write'),
  goal: z.string().min(1).describe('What the user wants from the conversation'),
  max_turns: z
    .number()
    .int()
    .min(1)
    .max(100)
    .optional()
    .describe('The most user turns (scripted ones included); default 10'),
  stop_when: z
    .string()
    .min(1)
    .optional()
    .describe('When the goal counts as reached, told to the simulated user'),
  first_message: z
    .string()
    .min(1)
    .optional()
    .describe("The user's first message, as written (the simulator is not asked for it)"),
});

/**
 * The keys of one entry of `evalcases:`. `workspace` is a getter: its schemas are made only
 * when it is read (the loaders check the block with `readWorkspaceBlock`; the published JSON
 * Schema reads it).
 */
const evalCaseShape = {
  id: z.string().min(1).describe('Unique within the file'),
  expected_outcome: z.string().optional().describe('What a good answer achieves, for LLM judges'),
  outcome: z.string().optional().describe('Alias of expected_outcome'),
  input_messages: z
    .array(inputMessageSchema)
    .min(1)
    .optional()
    .describe(
      'What the agent is given, e.g. `- {role: user, content: "..."}`; with `turns` or `simulated_user`, what comes before the first turn (a system message)',
    ),
  turns: z
    .array(conversationTurnSchema)
    .min(1)
    .optional()
    .describe("A conversation: the user's turns, asked one after another"),
  simulated_user: simulatedUserSchema
    .optional()
    .describe('An LLM target plays the user (after the scripted `turns`, if any)'),
  aggregation: z
    .enum(TURN_AGGREGATIONS)
    .optional()
    .describe(
      'How the graded turns make one grade: all (default: every turn must pass), mean, last, min',
    ),
  expected_messages: z
    .array(messageSchema)
    .optional()
    .describe('The reference answer, tool calls included'),
  conversation_id: z.string().min(1).optional().describe('Copied to the result'),
  tags: z
    .array(z.string().min(1))
    .optional()
    .describe('Labels for choosing cases with --tag / --exclude-tag'),
  execution: caseExecutionSchema.optional().describe("Overrides of the file's execution block"),
  evaluators: z
    .array(evaluatorEntrySchema)
    .optional()
    .describe("This case's graders (else the file's execution.evaluators)"),
  rubrics: z.array(rubricSchema).optional().describe('Criteria for a rubric judge'),
  vars: z
    .record(z.string(), z.unknown())
    .optional()
    .describe(
      'Extra data of the case (a CSV dataset puts its other columns here); code judges get it',
    ),
  get workspace() {
    return workspaceSchemas()
      .field.optional()
      .describe(
        "This case's workspace: its keys replace the file's `workspace:` key by key (`hooks` hook by hook); or the path of a YAML file holding the block",
      );
  },
  trace: z
    .strictObject({
      source: z.enum(RECORDED_TRACE_SOURCES),
      path: z.string().min(1),
    })
    .optional()
    .describe(
      'A session recorded outside AgentV answers the case, its target never called: a Codex rollout (`codex-session`), a Claude Code session (`claude-session`) or OTLP/JSON spans (`otlp-file`); `path` is relative to the eval file',
    ),
};

/** One entry of `evalcases:`. */
export const evalCaseSchema = z.looseObject(evalCaseShape);

/** A case as parsed: its workspace block is checked by `readWorkspaceBlock`. */
export const evalCaseParseSchema = evalCaseSchema.extend({ workspace: z.unknown().optional() });

/**
 * True for a case `evalCaseSchema` accepts as it is, with no other key than
 * ids, outcomes, tags and messages of text or `{type, value}` blocks: such a
 * case is its own parsed value, and loading a large file skips zod for it.
 * Derived from `evalCaseParseSchema` (whose `workspace`, excluded here anyway, does not
 * make the workspace schemas). False says nothing: parse the case with
 * `evalCaseParseSchema`.
 */
export const isPlainValidCase = schemaIdentityCheck(evalCaseParseSchema, {
  // Only the shape most cases of large files have skips zod; cases with their own graders,
  // rubrics, vars, tool calls or a workspace are parsed by it.
  excludeKeys: [
    'execution',
    'evaluators',
    'rubrics',
    'vars',
    'tool_calls',
    'workspace',
    'turns',
    'simulated_user',
    'trace',
  ],
}) as (value: unknown) => value is EvalCaseInput;

/** The file's `execution:` block. */
export const fileExecutionSchema = caseExecutionSchema.extend({
  target: caseExecutionSchema.shape.target.describe(
    'The target for every case (default: `default`)',
  ),
  evaluators: caseExecutionSchema.shape.evaluators.describe('Graders for cases without their own'),
  repeat: z
    .strictObject({
      count: z.int().min(1),
      reducer: z.enum(['mean', 'pass_at_k']),
    })
    .optional()
    .describe(
      "How many times every case runs and how its runs are reduced, when `--repeat` is not given (AgentV 4.x's `trials`)",
    ),
});

/** The keys of an eval file; `workspace` is a getter, as in `evalCaseShape`. */
const evalFileShape = {
  $schema: z.literal('agentv-eval-v2').optional(),
  description: z.string().optional(),
  dataset: z.string().min(1).optional().describe('Default: the file name without extension'),
  execution: fileExecutionSchema.optional(),
  target: z.string().min(1).optional().describe('Legacy spelling of execution.target'),
  tags: z
    .array(z.string().min(1))
    .optional()
    .describe("Labels every case of the file gets, besides each case's own `tags`"),
  cases: z
    .string()
    .min(1)
    .optional()
    .describe(
      'A dataset of more cases: a .jsonl file (one case per line) or a .csv file (header row), relative to the eval file',
    ),
  evalcases: z.array(evalCaseSchema).min(1).optional().describe('Required unless `cases` is set'),
  targets: z
    .array(targetSchema)
    .min(1)
    .optional()
    .describe(
      "Targets only this file's cases use, written as in targets.yaml; a name also defined in targets.yaml is an error",
    ),
  get workspace() {
    return workspaceSchemas()
      .field.optional()
      .describe(
        "The folder every case works in (the agent's working directory, what graders inspect): `template` and/or `repos`, `isolation`, `mode`, `hooks`; or the path of a YAML file holding that mapping. A case's own `workspace:` replaces it key by key",
      );
  },
};

/** An eval file as written (`agentv-eval-v2`; README, "Eval files"). */
export const evalFileSchema = z.looseObject(evalFileShape);

/** The file without its cases, which are validated one by one (`evalCaseSchema`). */
export const evalFileHeaderSchema = evalFileSchema.extend({
  evalcases: z.array(z.unknown()).min(1).optional(),
  // Checked by the targets loader (`loadInlineTargets`), which accepts camelCase keys.
  targets: z.unknown().optional(),
  // Checked by `readWorkspaceBlock`, which explains removed and unsupported keys.
  workspace: z.unknown().optional(),
});

export type EvalFileInput = z.infer<typeof evalFileSchema>;
export type EvalCaseInput = z.infer<typeof evalCaseSchema>;
/** A case as `evalCaseParseSchema` returns it (its workspace block not yet read). */
export type EvalCaseParsed = z.infer<typeof evalCaseParseSchema>;
export type MessageInput = z.infer<typeof messageSchema>;
export type EvaluatorEntryInput = z.infer<typeof evaluatorEntrySchema>;
export type RubricInput = z.infer<typeof rubricSchema>;

/** Keys understood at each level, for unknown-key warnings. */
export const KNOWN_KEYS = {
  file: Object.keys(evalFileShape),
  fileExecution: Object.keys(fileExecutionSchema.shape),
  case: Object.keys(evalCaseShape),
  caseExecution: Object.keys(caseExecutionSchema.shape),
  message: Object.keys(messageSchema.shape),
  turn: Object.keys(conversationTurnSchema.shape),
  simulatedUser: Object.keys(simulatedUserSchema.shape),
} as const;

/** How to fix a schema problem at `path` of an eval file. */
export function evalFileHint(path: readonly PropertyKey[], kind: ProblemKind): string | undefined {
  const keys = path.filter((segment): segment is string => typeof segment === 'string');
  const last = keys.at(-1);
  const lastSegment = path.at(-1);
  if (keys.includes('workspace')) return workspaceHint(path.slice(path.indexOf('workspace')), kind);
  if (path.length === 1 && last === '$schema') {
    return 'use `$schema: agentv-eval-v2` or remove the line';
  }
  if (path.length === 1 && last === 'evalcases') {
    return 'add an `evalcases:` list with at least one case (`- id: ...`), or a dataset (`cases: ./cases.jsonl`)';
  }
  if (path.length === 1 && last === 'cases') {
    return 'write the dataset path as text, e.g. `cases: ./cases.jsonl` or `cases: ./cases.csv`';
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
    if (last === 'required')
      return 'required is true, false, or the lowest score the case accepts from this grader (above 0, at most 1), e.g. `required: 0.6`';
  }
  if (keys.includes('simulated_user')) {
    if (last === 'max_turns')
      return 'max_turns is a whole number from 1 to 100, e.g. `max_turns: 8`';
    if (last === 'simulated_user') {
      return 'write simulated_user as a mapping, e.g. `simulated_user: {target: user_llm, goal: "get a refund"}`';
    }
    return `write ${last} as text, e.g. \`${last === 'target' ? 'target: user_llm' : `${last}: "..."`}\``;
  }
  if (last === 'turns' && typeof lastSegment === 'number') {
    return 'write each turn as a mapping, e.g. `- input: "Where is my order?"`';
  }
  if (last === 'turns')
    return 'write turns as a list, e.g. `turns: [{input: "Hi"}, {input: "..."}]`';
  if (last === 'aggregation') return 'use one of: all, mean, last, min';
  if (last === 'input' && keys.includes('turns')) return "write the turn's input as text";
  if (last === 'threshold') return 'threshold is a number from 0 to 1, e.g. `threshold: 0.8`';
  if (last === 'repeat_pass') {
    return 'repeat_pass is all, any, majority or rate>=X (X from 0 to 1), e.g. `repeat_pass: rate>=0.8`';
  }
  if (last === 'max_cost_usd')
    return 'max_cost_usd is a number of US dollars above 0, e.g. `max_cost_usd: 0.5`';
  if (last === 'max_tokens')
    return 'max_tokens is a whole number above 0, e.g. `max_tokens: 20000`';
  if (last === 'max_duration_seconds') {
    return 'max_duration_seconds is a number of seconds above 0, e.g. `max_duration_seconds: 120`';
  }
  if (last === 'target') return 'name a target from the targets file, e.g. `target: default`';
  if (last === 'targets' && keys.includes('execution')) {
    if (typeof lastSegment === 'number') {
      return 'name a target from the targets file, e.g. `targets: [default, staging]`';
    }
    return kind === 'type'
      ? 'write the targets as a list of names, e.g. `targets: [default, staging]`'
      : 'name at least one target, e.g. `targets: [default, staging]`, or remove `targets:` to run against `target:`, else the target named "default"';
  }
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
