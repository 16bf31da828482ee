import { z } from 'zod';

// The one definition of a result line: `toResultRecord` writes it, `readResultFile` checks every
// line read against it, the types below are inferred from it and `schemas/result-line.schema.json`
// is generated from it. Keys are listed in the order lines are written. Objects are not strict:
// keys a newer AgentV adds are kept by readers (they check the value read, then use it as it is).
// Adding a field: CONTRIBUTING.md, "Adding a result-line field".

/** A count: a whole number, 0 or more. */
const count = () => z.int().min(0);

// `z.record` checks every key against a key schema; an object with only a catchall does the same
// job at half the cost, which matters when a 100,000-line file is read.
/** An object whose every key holds `value`. */
const mapOf = <T extends z.ZodType>(value: T) => z.object({}).catchall(value);

const tokenCounts = mapOf(z.number()).describe(
  'Token counts with snake_case keys: input_tokens, output_tokens, total_tokens, ….',
);

const evaluatorResultShape = {
  name: z.string().describe('The grader name from the eval file (its type when it has no name).'),
  type: z.string().describe('The grader type: contains, llm_judge, rubric, composite, ….'),
  score: z.number().describe('Its score, in [0, 1] (1 - s when negated).'),
  weight: z.number().describe("Its weight in the case's weighted mean score."),
  verdict: z
    .enum(['pass', 'borderline', 'fail', 'error'])
    .describe('pass (score >= 0.8), borderline (>= 0.6), fail, or error when it could not grade.'),
  hits: z.array(z.string()).describe('What the answer got right, as the grader says it.'),
  misses: z.array(z.string()).describe('What the answer missed.'),
  reasoning: z.string().describe("The grader's explanation; empty when it gave none."),
  error: z.string().optional().describe('Why the grader could not grade; the case is errored.'),
  fails_case: z
    .boolean()
    .optional()
    .describe('Present (true) when this grader fails the case whatever the score.'),
  details: mapOf(z.unknown())
    .optional()
    .describe(
      'Grader-specific outcome; rubric: {items: [{id, description, weight, required, satisfied, reasoning}]}.',
    ),
  cached: z
    .boolean()
    .optional()
    .describe("Present (true) when the judge's reply came from the LLM call cache."),
  get members(): z.ZodOptional<z.ZodArray<typeof evaluatorResultLineSchema>> {
    return z
      .array(evaluatorResultLineSchema)
      .optional()
      .describe("A composite's member results, in order.");
  },
  negated: z
    .boolean()
    .optional()
    .describe(
      'Present (true) for a grader with negate: true: score is 1 - s, hits and misses swapped.',
    ),
  metric: z
    .string()
    .optional()
    .describe('The named metric its score counts toward (`metric:` in the eval file).'),
};

/** One grader's outcome in a result line (`evaluator_results[]`, and a composite's `members[]`). */
export const evaluatorResultLineSchema = z
  .object(evaluatorResultShape)
  .meta({ id: 'evaluator_result' });

const repeatRunSchema = z.object({
  repeat: z.int().min(1).describe('1-based repeat number.'),
  score: z.number(),
  passed: z.boolean(),
  attempts: count(),
  duration_ms: z.number(),
  cached: z.literal(true).optional().describe('Present (true) when answered from the cache.'),
  error: z.string().optional(),
});

/** Under `--repeat N`: how the repeats of a case were reduced to its line. */
export const repeatSummaryLineSchema = z.object({
  rule: z
    .string()
    .optional()
    .describe('The verdict rule: all, any, majority or rate>=X (absent in lines of AgentV < 5).'),
  reducer: z
    .string()
    .describe('How the score was reduced: mean, median, pass_at_k, pass_all or majority.'),
  count: count().describe('How many repeats ran.'),
  planned: count().optional().describe('How many repeats were asked for (--repeat N).'),
  passed: count().describe('How many of them passed.'),
  pass_rate: z.number().optional().describe('passed / count.'),
  pass_at_k: z
    .number()
    .optional()
    .describe('1 when at least one of the k = count repeats passed, else 0.'),
  pass_hat_k: z.number().optional().describe('1 when all k = count repeats passed, else 0.'),
  early_stopped: z
    .literal(true)
    .optional()
    .describe('Present (true) when --repeat-early-stop ended the case before planned repeats.'),
  runs: z.array(repeatRunSchema).describe('Every repeat, in order.'),
});

/** What identifies the run a result line belongs to. */
export const runLineSchema = z.object({
  id: z
    .string()
    .describe('Hash of every (eval file, case id, target) the run selected, before sharding.'),
  cases: count().describe('How many cases the whole run has, across all shards.'),
  shard: z.string().optional().describe('i/n when the line was written by one shard of the run.'),
});

const traceSummarySchema = z.object({
  eventCount: count(),
  toolNames: z.array(z.string()).describe('Distinct tool names, sorted.'),
  toolCallsByName: mapOf(count()).describe('Tool name to number of calls.'),
  errorCount: count().describe('Number of error events.'),
});

const traceEventSchema = z.object({
  type: z.enum(['model_step', 'tool_call', 'tool_result', 'message', 'error']),
  timestamp: z.string(),
  id: z.string().optional(),
  name: z.string().optional(),
  raw_name: z
    .string()
    .optional()
    .describe(
      'The agent\'s own tool name when `name` is the canonical one (README, "Coding agents").',
    ),
  input: z.unknown().optional(),
  output: z.unknown().optional(),
  text: z.string().optional(),
  metadata: mapOf(z.unknown()).optional(),
});

const outputMessageSchema = z.object({
  role: z.string(),
  name: z.string().optional(),
  content: z.unknown().optional(),
  tool_calls: z
    .array(
      z.object({
        tool: z.string(),
        input: z.unknown().optional(),
        output: z.unknown().optional(),
        id: z.string().optional(),
      }),
    )
    .optional(),
});

/** One turn of a conversation case (`turns[]`). */
const conversationTurnSchema = z.object({
  turn: z.int().min(1).describe('1-based turn number.'),
  source: z
    .enum(['scripted', 'simulated'])
    .describe("Who wrote the user's message: the eval file's turns, or the simulated user."),
  user_message: z.string().describe("The user's message of the turn."),
  answer: z.string().describe("The agent's answer; empty when the turn errored."),
  trace_summary: traceSummarySchema
    .nullable()
    .describe("Counts over this turn's trace; null when the target gave none."),
  evaluator_results: z
    .array(evaluatorResultLineSchema)
    .describe("The turn's own graders (empty when it has none)."),
  score: z.number().optional().describe("The turn's score, when it has graders."),
  passed: z.boolean().optional().describe('Whether the turn passed, when it has graders.'),
  attempts: count().describe('Calls made to the target for this turn.'),
  duration_ms: z.number().describe('Time spent answering the turn.'),
  usage: tokenCounts.optional().describe("The turn's token counts, when reported."),
  cost_usd: z.number().optional().describe("The turn's cost in US dollars, when known."),
  cached: z.literal(true).optional().describe('Present (true) when answered from the cache.'),
  error: z
    .string()
    .optional()
    .describe(
      "Why the turn could not be answered or graded (`over budget: …` when the case's budget stopped the agent during it).",
    ),
  trace: z
    .array(traceEventSchema)
    .nullable()
    .optional()
    .describe("With --include-trace: this turn's trace events; null when there is none."),
});

/** One line of a JSONL result file (one YAML document of a YAML one): one case against one target. */
export const resultLineSchema = z.object({
  timestamp: z.string().describe('When the case finished (ISO 8601, UTC).'),
  eval_id: z.string().describe('The case id.'),
  dataset: z.string().describe("The case's dataset (the eval file's name unless it sets one)."),
  target: z.string().describe('The target that answered.'),
  conversation_id: z.string().optional().describe("The case's conversation_id, when it has one."),
  score: z.number().describe('Weighted mean of the grader scores, in [0, 1]; 0 when errored.'),
  passed: z.boolean().describe('Whether the case passed.'),
  hits: z.array(z.string()).describe("Every grader's hits."),
  misses: z.array(z.string()).describe("Every grader's misses."),
  reasoning: z.string().describe("The graders' reasoning joined; empty when none gave any."),
  candidate_answer: z.string().describe("The target's answer."),
  evaluator_results: z.array(evaluatorResultLineSchema).describe('One entry per grader, in order.'),
  metrics: mapOf(z.number())
    .optional()
    .describe(
      'Named metrics (`metric:` on graders) to the mean score of their graders in this case; absent when no grader names one.',
    ),
  attempts: count().describe(
    'Calls made to the target for this case (1 when the first succeeded).',
  ),
  duration_ms: z
    .number()
    .describe('Time spent answering the case (every attempt and retry wait), grading excluded.'),
  usage: tokenCounts.optional().describe("The target's token counts, when it reports them."),
  cost_usd: z.number().optional().describe("The target's cost in US dollars, when known."),
  cached: z
    .literal(true)
    .optional()
    .describe('Present (true) when an LLM target answered from .agentv/cache/.'),
  judge_usage: tokenCounts.optional().describe('Token counts of the judge calls that graded it.'),
  judge_cost_usd: z.number().optional().describe('Summed cost of those judge calls, when known.'),
  simulator_usage: tokenCounts
    .optional()
    .describe("Token counts of the simulated user's calls (a conversation with simulated_user)."),
  simulator_cost_usd: z
    .number()
    .optional()
    .describe("Summed cost of the simulated user's calls, when known."),
  error: z.string().optional().describe('Why the case could not be answered or graded.'),
  failure_class: z
    .enum(['agent', 'infra', 'timeout', 'budget', 'grader'])
    .optional()
    .describe(
      'On a failed or errored case: who the failure is on (agent, infra, timeout, budget, grader).',
    ),
  flaky: z
    .boolean()
    .optional()
    .describe('Under --repeat N: true when some repeats passed and others did not.'),
  repeats: repeatSummaryLineSchema.optional().describe('Under --repeat N: the repeats reduced.'),
  workspace: z
    .object({
      files_changed: count().describe('Paths the agent added, modified or deleted.'),
      insertions: count().describe('Lines added over all text files.'),
      deletions: count().describe('Lines removed over all text files.'),
      kept_at: z
        .string()
        .optional()
        .describe(
          'Where the workspace was kept (a failed or errored case, or --keep-workspaces); absent when it was removed.',
        ),
    })
    .optional()
    .describe(
      'For a case with a workspace: what the agent changed in it; the diff and file list are saved beside the result file (<result file>.workspaces/<case>.diff and .json).',
    ),
  conversation_end: z
    .enum(['completed', 'goal_reached', 'gave_up', 'max_turns', 'budget', 'error'])
    .optional()
    .describe(
      "For a conversation: why it ended (completed: every scripted turn was answered; budget: a turn crossed the case's budget; the others are the simulated user's, or error).",
    ),
  turns: z
    .array(conversationTurnSchema)
    .optional()
    .describe('For a conversation: every turn, in order.'),
  trace_summary: traceSummarySchema
    .nullable()
    .describe('Counts over the trace; null when the target gave none.'),
  trace: z
    .array(traceEventSchema)
    .nullable()
    .optional()
    .describe('With --include-trace: the trace events; null when there is no trace.'),
  output_messages: z
    .array(outputMessageSchema)
    .nullable()
    .optional()
    .describe("With --include-trace: the target's output messages; null when there are none."),
  eval_file: z
    .string()
    .optional()
    .describe('The eval file, relative to the project root (written by agentv eval and grade).'),
  run: runLineSchema.optional().describe('The run (and shard) that wrote the line.'),
  graded_from: z
    .string()
    .optional()
    .describe('Written by agentv grade: the result file whose answers the line re-graded.'),
});

/** One result line (README, "Result files"): snake_case, keys in the order written. */
export type ResultRecord = z.infer<typeof resultLineSchema>;
/** One grader's outcome in a result line. */
export type EvaluatorResultRecord = z.infer<typeof evaluatorResultLineSchema>;
export type RepeatSummaryRecord = z.infer<typeof repeatSummaryLineSchema>;
/** One turn of a conversation case's line. */
export type ConversationTurnRecord = z.infer<typeof conversationTurnSchema>;
/** A result line's `workspace`: what the agent changed in the case's workspace. */
export type WorkspaceRecord = NonNullable<ResultRecord['workspace']>;
/** What identifies the run a result line belongs to. */
export type RunRecord = z.infer<typeof runLineSchema>;
