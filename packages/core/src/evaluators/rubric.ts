import { type Issue, joinIssueMessages } from '../errors/input-issue.js';
import { transcriptText } from '../eval-file/conversation.js';
import type { RubricItem } from '../eval-file/eval-case.js';
import type { EvaluatorConfig } from '../eval-file/evaluator-config.js';
import { isRecord } from '../util/records.js';
import type { EvaluationContext, EvaluationScore, Evaluator } from './evaluator.js';
import { EvaluatorError } from './evaluator-error.js';
import { describe } from './evaluator-options.js';
import { askJudgeJson } from './judge-prompt.js';
import { verdictFor } from './verdict.js';

/** One rubric item as graded, in `EvaluatorResult.details.items`. */
export interface RubricItemOutcome {
  id: string;
  description: string;
  weight: number;
  required: boolean;
  satisfied: boolean;
  reasoning: string;
}

const RUBRIC_REPLY_CONTRACT = `Reply with one JSON object and nothing else, with one check per rubric item, using the item ids given:
{"checks": [{"id": "<rubric item id>", "satisfied": <true or false>, "reasoning": "<one sentence>"}], "overall_reasoning": "<one or two sentences>"}`;

/**
 * `rubric`: the judge checks each rubric item (`rubrics:` on the evaluator,
 * else the case's `rubrics:`) as satisfied or not. Score: the weight of the
 * satisfied items over the total weight. A missed `required` item makes the
 * verdict `fail` and fails the case whatever its score or threshold. Each
 * item's outcome is in `details.items`.
 */
export const rubricEvaluator: Evaluator = {
  type: 'rubric',
  options: ['rubrics'],
  needsJudge: true,
  validate: (config) => validateRubricItems(config.rubrics, false),
  evaluate: (config, context) => gradeRubric(config, context),
};

/** Whether `value` is a non-empty list (rubric items given on the evaluator). */
export function hasRubricItems(value: unknown): boolean {
  return Array.isArray(value) && value.length > 0;
}

/**
 * Problems with `rubrics:` on an evaluator: a list of non-empty strings or
 * `{id?, description (or expected_outcome), weight?, required?}` mappings.
 * With `required` an absent or empty list is a problem too.
 */
export function validateRubricItems(value: unknown, required: boolean): Issue[] {
  const at = (message: string, ...path: (string | number)[]): Issue => ({
    severity: 'error',
    path: ['rubrics', ...path],
    message,
  });
  const usage =
    'give `rubrics:` as a list of criteria, e.g. `- Mentions the refund amount` or `- {id: amount, description: "...", weight: 2, required: true}`';
  if (value === undefined) return required ? [at(`the rubric has no items; ${usage}`)] : [];
  if (!Array.isArray(value))
    return [at(`"rubrics" must be a list, got ${describe(value)}; ${usage}`)];
  if (value.length === 0) return [at(`the rubric has no items; ${usage}`)];
  const problems: Issue[] = [];
  value.forEach((item, index) => {
    if (typeof item === 'string' && item.trim() !== '') return;
    const problem = itemProblem(item);
    if (problem !== undefined)
      problems.push(at(`rubric item ${index + 1}: ${problem}; ${usage}`, index));
  });
  const ids = value.map((item, index) => toRubricItem(item, index)?.id);
  const duplicate = ids.find((id, index) => id !== undefined && ids.indexOf(id) !== index);
  if (duplicate !== undefined) problems.push(at(`rubric item id "${duplicate}" is used twice`));
  return problems;
}

function itemProblem(item: unknown): string | undefined {
  if (!isRecord(item)) return `must be text or a mapping, got ${describe(item)}`;
  const description = item.description ?? item.expected_outcome;
  if (typeof description !== 'string' || description.trim() === '') {
    return '"description" is missing';
  }
  if (item.id !== undefined && (typeof item.id !== 'string' || item.id === '')) {
    return `"id" must be non-empty text, got ${describe(item.id)}`;
  }
  if (
    item.weight !== undefined &&
    (typeof item.weight !== 'number' || !Number.isFinite(item.weight) || item.weight < 0)
  ) {
    return `"weight" must be a number >= 0, got ${describe(item.weight)}`;
  }
  if (item.required !== undefined && typeof item.required !== 'boolean') {
    return `"required" must be true or false, got ${describe(item.required)}`;
  }
  return undefined;
}

/** A rubric item as written, defaults applied (`rubric-<n>` ids, weight 1, required true). */
export function toRubricItem(item: unknown, index: number): RubricItem | undefined {
  const fallbackId = `rubric-${index + 1}`;
  if (typeof item === 'string') {
    return { id: fallbackId, description: item, weight: 1, required: true };
  }
  if (!isRecord(item) || itemProblem(item) !== undefined) return undefined;
  return {
    id: (item.id as string | undefined) ?? fallbackId,
    description: (item.description ?? item.expected_outcome) as string,
    weight: (item.weight as number | undefined) ?? 1,
    required: (item.required as boolean | undefined) ?? true,
  };
}

/** The items a rubric grades: the evaluator's own, else the case's. */
function itemsFor(config: EvaluatorConfig, context: EvaluationContext): RubricItem[] {
  if (hasRubricItems(config.rubrics)) {
    const problems = validateRubricItems(config.rubrics, true);
    if (problems.length > 0) throw new EvaluatorError(joinIssueMessages(problems));
    return (config.rubrics as unknown[]).map((item, index) => toRubricItem(item, index)!);
  }
  const items = context.evalCase.rubricItems ?? [];
  if (items.length === 0) {
    throw new EvaluatorError(`the rubric has no items`, {
      hint: 'add `rubrics:` to the evaluator or to the case',
    });
  }
  return items;
}

/** Grades the answer against rubric items (shared by `rubric` and `llm_judge` with `rubrics:`). */
export async function gradeRubric(
  config: EvaluatorConfig,
  context: EvaluationContext,
): Promise<EvaluationScore> {
  const items = itemsFor(config, context);
  const prompt = buildRubricPrompt(items, context);
  const dryRunReply = {
    checks: items.map((item) => ({ id: item.id, satisfied: true, reasoning: '' })),
    overall_reasoning: 'dry run: the judge was not asked',
  };
  return askJudgeJson(
    context,
    prompt,
    RUBRIC_REPLY_CONTRACT,
    (reply) => scoreChecks(items, reply),
    dryRunReply,
  );
}

function buildRubricPrompt(items: readonly RubricItem[], context: EvaluationContext): string {
  const conversation = context.conversation;
  const whole = conversation !== undefined && conversation.turn === undefined;
  const parts = whole
    ? [
        "You are an expert evaluator. Check the assistant's part in the conversation below against each rubric item.",
        '',
        '[[ ## conversation ## ]]',
        transcriptText(conversation),
        '',
      ]
    : [
        'You are an expert evaluator. Check the candidate answer against each rubric item below.',
        '',
        ...(conversation === undefined
          ? []
          : ['[[ ## conversation ## ]]', transcriptText(conversation), '']),
        '[[ ## question ## ]]',
        context.question.trim(),
        '',
      ];
  const outcome = context.evalCase.expectedOutcome?.trim();
  if (outcome) parts.push('[[ ## expected_outcome ## ]]', outcome, '');
  const reference = context.referenceAnswer?.trim();
  if (reference) parts.push('[[ ## reference_answer ## ]]', reference, '');
  if (!whole) parts.push('[[ ## candidate_answer ## ]]', context.candidateAnswer.trim(), '');
  parts.push('[[ ## rubrics ## ]]');
  for (const item of items) {
    const labels = [
      item.required ? ' (REQUIRED)' : '',
      item.weight !== 1 ? ` (weight: ${item.weight})` : '',
    ];
    parts.push(`- [${item.id}]${labels.join('')}: ${item.description}`);
  }
  parts.push('', 'For each rubric item, decide whether the answer satisfies it.');
  return parts.join('\n');
}

function scoreChecks(
  items: readonly RubricItem[],
  reply: Record<string, unknown>,
): EvaluationScore | string {
  if (!Array.isArray(reply.checks)) return '"checks" must be a list of {id, satisfied, reasoning}';
  const byId = new Map<string, { satisfied: boolean; reasoning: string }>();
  for (const check of reply.checks) {
    if (!isRecord(check) || typeof check.id !== 'string') continue;
    const satisfied = check.satisfied;
    if (typeof satisfied !== 'boolean') {
      return `check "${check.id}": "satisfied" must be true or false, got ${describe(satisfied)}`;
    }
    byId.set(check.id, {
      satisfied,
      reasoning: typeof check.reasoning === 'string' ? check.reasoning.trim() : '',
    });
  }
  const missing = items.filter((item) => !byId.has(item.id)).map((item) => item.id);
  if (missing.length > 0) return `no check for rubric item(s) ${missing.join(', ')}`;

  const outcomes: RubricItemOutcome[] = items.map((item) => ({ ...item, ...byId.get(item.id)! }));
  const totalWeight = outcomes.reduce((sum, item) => sum + item.weight, 0);
  const earned = outcomes
    .filter((item) => item.satisfied)
    .reduce((sum, item) => sum + item.weight, 0);
  const score =
    totalWeight > 0 ? earned / totalWeight : outcomes.every((item) => item.satisfied) ? 1 : 0;
  const failedRequired = outcomes.some((item) => item.required && !item.satisfied);
  const line = (item: RubricItemOutcome) =>
    `[${item.id}] ${item.description}${item.reasoning ? `: ${item.reasoning}` : ''}`;
  const result: EvaluationScore = {
    score,
    hits: outcomes.filter((item) => item.satisfied).map(line),
    misses: outcomes.filter((item) => !item.satisfied).map(line),
    verdict: failedRequired ? 'fail' : verdictFor(score),
    details: { items: outcomes },
  };
  if (failedRequired) result.failsCase = true;
  if (typeof reply.overall_reasoning === 'string' && reply.overall_reasoning.trim() !== '') {
    result.reasoning = reply.overall_reasoning.trim();
  }
  return result;
}
