import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Issue } from '../errors/input-issue.js';
import { transcriptText } from '../eval-file/conversation.js';
import { promptFileOf } from '../eval-file/prompt-file-of.js';
import { buildCodeJudgePayload } from './code-judge-payload.js';
import type { EvaluationContext, EvaluationScore } from './evaluator.js';
import { EvaluatorError } from './evaluator-error.js';
import { describe } from './evaluator-options.js';
import { extractJudgeJson } from './extract-judge-json.js';
import { capJudgeItems } from './judge-items.js';

/** The variables a judge prompt template may use, as `{{ name }}` (README, "Graders"). */
export const JUDGE_PROMPT_VARIABLES = [
  'question',
  'candidate_answer',
  'expected_outcome',
  'reference_answer',
  'expected_messages',
  'input_messages',
  'output_messages',
  'trace_summary',
  'conversation',
] as const;

/** The prompt `llm_judge` uses without `prompt:`. */
export const DEFAULT_JUDGE_PROMPT = `You are an expert evaluator. Grade the candidate answer by how well it achieves the expected outcome of the task.

Treat the reference answer, when there is one, as an example of a good answer: the candidate does not have to match it word for word, but should cover its key points in the same spirit. Be brief and specific.

[[ ## expected_outcome ## ]]
{{ expected_outcome }}

[[ ## question ## ]]
{{ question }}

[[ ## reference_answer ## ]]
{{ reference_answer }}

[[ ## candidate_answer ## ]]
{{ candidate_answer }}`;

/** The prompt `llm_judge` uses without `prompt:` to grade a whole conversation. */
export const DEFAULT_CONVERSATION_JUDGE_PROMPT = `You are an expert evaluator. Grade the assistant's part in the conversation below by how well it achieves the expected outcome: over the whole conversation, not only its last answer. Be brief and specific.

[[ ## expected_outcome ## ]]
{{ expected_outcome }}

[[ ## conversation ## ]]
{{ conversation }}`;

/** The reply contract appended to every score prompt. */
export const SCORE_REPLY_CONTRACT = `Reply with one JSON object and nothing else:
{"score": <number from 0.0 to 1.0>, "hits": [<up to 4 short strings: what the answer got right>], "misses": [<up to 4 short strings: what it missed or got wrong>], "reasoning": "<one or two sentences>"}`;

/** The values of the template variables for one case; absent values are empty text. */
export function judgeVariables(context: EvaluationContext): Record<string, string> {
  const payload = buildCodeJudgePayload(context);
  return {
    question: context.question.trim(),
    candidate_answer: context.candidateAnswer.trim(),
    expected_outcome: (context.evalCase.expectedOutcome ?? '').trim(),
    reference_answer: (context.referenceAnswer ?? '').trim(),
    expected_messages: JSON.stringify(payload.expected_messages, null, 2),
    input_messages: JSON.stringify(payload.input_messages, null, 2),
    output_messages: JSON.stringify(payload.output_messages ?? [], null, 2),
    trace_summary: context.traceSummary ? JSON.stringify(context.traceSummary, null, 2) : '',
    conversation: context.conversation ? transcriptText(context.conversation) : '',
  };
}

/** Replaces `{{ name }}` (spaces optional) with its value; unknown names stay as written. */
export function renderTemplate(template: string, variables: Record<string, string>): string {
  return template.replace(/\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g, (match, name: string) =>
    Object.hasOwn(variables, name) ? variables[name]! : match,
  );
}

/** Problems with a `prompt:` option (inline template or file path). */
export function validatePrompt(value: unknown, path: readonly string[] = ['prompt']): Issue[] {
  if (value === undefined) return [];
  if (typeof value !== 'string' || value.trim() === '') {
    return [
      {
        severity: 'error',
        path: [...path],
        message: `"${path.join('.')}" must be a prompt template or the path of a template file, got ${describe(value)}`,
      },
    ];
  }
  return [];
}

/**
 * The prompt template of an evaluator: `fallback` without `prompt`, the text
 * of the file it names (relative to the eval file's directory), else the
 * inline text. A missing file throws `EvaluatorError`.
 */
export async function loadPromptTemplate(
  prompt: unknown,
  context: EvaluationContext,
  fallback: string,
): Promise<string> {
  if (typeof prompt !== 'string' || prompt.trim() === '') return fallback;
  const file = promptFileOf(prompt);
  if (file === undefined) return prompt;
  const resolved = path.resolve(path.dirname(context.evalCase.filePath), file);
  try {
    return await readFile(resolved, 'utf8');
  } catch (error) {
    throw new EvaluatorError(`prompt file ${file} cannot be read (resolved to ${resolved})`, {
      hint: 'fix the path in "prompt"; it is relative to the eval file\'s directory',
      cause: error,
    });
  }
}

/** The passing grade a `--dry-run` judge stands for (a score reply). */
export const DRY_RUN_SCORE_REPLY: Record<string, unknown> = {
  score: 1,
  hits: [],
  misses: [],
  reasoning: 'dry run: the judge was not asked',
};

/**
 * Asks the judge `prompt` followed by `contract` and parses the JSON object of
 * its reply with `parse` (which returns the value, or a message saying what is
 * wrong). A reply without a usable object is asked once more; the second
 * failure throws `EvaluatorError` with an excerpt of the reply. A dry-run
 * judge is not asked: `dryRunReply` (a passing reply of the shape `parse`
 * reads) is parsed instead.
 */
export async function askJudgeJson<T>(
  context: EvaluationContext,
  prompt: string,
  contract: string,
  parse: (value: Record<string, unknown>) => T | string,
  dryRunReply: Record<string, unknown> = DRY_RUN_SCORE_REPLY,
): Promise<T> {
  const judge = context.judge;
  if (!judge) {
    throw new EvaluatorError('no judge target is configured', {
      hint: 'set judge_target on the target, execution.judge_target in the eval file, or pass --judge-target',
    });
  }
  if (judge.dryRun) {
    const parsed = parse(dryRunReply);
    if (typeof parsed === 'string') throw new EvaluatorError(`dry run: ${parsed}`);
    return parsed;
  }
  let problem = '';
  for (let attempt = 0; attempt < 2; attempt++) {
    const response = await judge.ask({
      question: `${prompt}\n\n${contract}`,
      chatPrompt: [
        { role: 'system', content: contract },
        { role: 'user', content: prompt },
      ],
      evalCaseId: context.evalCase.id,
      attempt,
      // The reply to the first question was unusable: a cached copy of it would be again.
      ...(attempt > 0 ? { refresh: true } : {}),
      evalDir: path.dirname(context.evalCase.filePath),
      metadata: { dataset: context.evalCase.dataset },
      ...(context.signal === undefined ? {} : { signal: context.signal }),
    });
    const value = extractJudgeJson(response.text);
    const parsed = value === undefined ? 'it holds no JSON object' : parse(value);
    if (typeof parsed !== 'string') {
      if (response.cached === true && typeof parsed === 'object' && parsed !== null) {
        Object.assign(parsed, { cached: true });
      }
      return parsed;
    }
    problem = `${parsed}; the reply was: ${replyExcerpt(response.text)}`;
  }
  throw new EvaluatorError(
    `judge target "${judge.targetName}" gave an unusable reply twice: ${problem}`,
    { hint: 'make the judge reply with the JSON object its prompt asks for' },
  );
}

/** Reads a `{score, hits, misses, reasoning}` reply: score clamped to [0, 1], hits and misses capped (`capJudgeItems`). */
export function parseScoreReply(value: Record<string, unknown>): EvaluationScore | string {
  const raw = typeof value.score === 'string' ? Number(value.score) : value.score;
  if (typeof raw !== 'number' || !Number.isFinite(raw)) {
    return `"score" must be a number from 0 to 1, got ${describe(value.score)}`;
  }
  const score: EvaluationScore = {
    score: Math.min(1, Math.max(0, raw)),
    hits: capJudgeItems(stringList(value.hits)),
    misses: capJudgeItems(stringList(value.misses)),
  };
  if (typeof value.reasoning === 'string' && value.reasoning.trim() !== '') {
    score.reasoning = value.reasoning.trim();
  }
  return score;
}

function stringList(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value.filter((item): item is string => typeof item === 'string' && item.trim() !== '');
}

function replyExcerpt(text: string, max = 200): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  if (oneLine === '') return '(empty)';
  return oneLine.length > max ? `${oneLine.slice(0, max - 3)}...` : oneLine;
}
