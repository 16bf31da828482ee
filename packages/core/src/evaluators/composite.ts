import path from 'node:path';
import { type Issue, joinIssueMessages } from '../errors/input-issue.js';
import type { EvaluatorEntryInput } from '../eval-file/eval-file-schema.js';
import type { EvaluatorConfig } from '../eval-file/evaluator-config.js';
import { normalizeEvaluators } from '../eval-file/normalize-evaluators.js';
import { isRecord } from '../util/records.js';
import { DEFAULT_CODE_JUDGE_TIMEOUT_SECONDS } from './code-judge.js';
import type {
  EvaluationContext,
  EvaluationScore,
  Evaluator,
  EvaluatorRegistry,
  EvaluatorResult,
} from './evaluator.js';
import { EvaluatorError, isEvaluatorError } from './evaluator-error.js';
import { evaluatorKeyIssues, unknownTypeHint } from './evaluator-keys.js';
import { describe } from './evaluator-options.js';
import { clamp, runEvaluator } from './grade-case.js';
import {
  askJudgeJson,
  judgeVariables,
  loadPromptTemplate,
  parseScoreReply,
  renderTemplate,
  SCORE_REPLY_CONTRACT,
  validatePrompt,
} from './judge-prompt.js';
import { needsJudge } from './needs-judge.js';
import { needsWorkspace } from './needs-workspace.js';
import { parseJudgeOutput } from './parse-judge-output.js';
import { describeScript, runJudgeScript } from './run-judge-script.js';
import { verdictFor } from './verdict.js';

const AGGREGATORS = ['weighted_average', 'code_judge', 'llm_judge'] as const;

/** The prompt of an `llm_judge` aggregator without `prompt:`. */
export const DEFAULT_AGGREGATOR_PROMPT = `You are combining the results of several evaluators of one answer into a final grade.

[[ ## question ## ]]
{{ question }}

[[ ## candidate_answer ## ]]
{{ candidate_answer }}

[[ ## evaluator_results ## ]]
{{ evaluator_results }}

Decide the final score from all the evaluator results.`;

/**
 * `composite`: runs its members (`evaluators:`, any types, composites too)
 * with the same context as top-level evaluators and combines them with
 * `aggregator`: `{type: weighted_average, weights?: {member: n}}` (the
 * default; a member's weight is `weights[name]`, else its own `weight`, else
 * 1), `{type: code_judge, script, cwd?, timeout_seconds?}` (stdin:
 * `{results: {name: {score, verdict, hits, misses, reasoning}}}`, stdout as a
 * code judge) or `{type: llm_judge, prompt?}` (the judge gets the member
 * results as `{{ evaluator_results }}`, also `{{EVALUATOR_RESULTS_JSON}}`).
 * Member results are kept in `members`. A member that errors makes the
 * composite an error.
 */
export const compositeEvaluator: Evaluator = {
  type: 'composite',
  options: ['evaluators', 'aggregator'],
  needsJudge: (config, registry) =>
    (isRecord(config.aggregator) && config.aggregator.type === 'llm_judge') ||
    (Array.isArray(config.evaluators) ? config.evaluators : []).some(
      (member) =>
        isRecord(member) &&
        typeof member.type === 'string' &&
        needsJudge(member as EvaluatorConfig, registry),
    ),
  needsWorkspace: (config, registry) =>
    (Array.isArray(config.evaluators) ? config.evaluators : []).some(
      (member) =>
        isRecord(member) &&
        typeof member.type === 'string' &&
        needsWorkspace(member as EvaluatorConfig, registry),
    ),
  validate: (config, registry) => validateComposite(config, registry),
  async evaluate(config, context) {
    // Warnings (a member's harmless unknown key) were shown before the run.
    const problems = validateComposite(config, context.evaluators).filter(
      (problem) => problem.severity === 'error',
    );
    if (problems.length > 0) throw new EvaluatorError(joinIssueMessages(problems));
    const registry = context.evaluators;
    if (!registry) throw new EvaluatorError('composite was run without an evaluator registry');
    const members: EvaluatorResult[] = [];
    for (const member of membersOf(config)) {
      members.push(await runEvaluator(member, context, registry));
    }
    const failed = members.filter((member) => member.error !== undefined);
    if (failed.length > 0) {
      throw new EvaluatorError(
        failed
          .map((member) => `member "${member.name}" (${member.type}) failed: ${member.error}`)
          .join('; '),
        { members },
      );
    }
    const aggregator = aggregatorOf(config);
    try {
      const outcome =
        aggregator.type === 'code_judge'
          ? await aggregateWithScript(aggregator, members, context)
          : aggregator.type === 'llm_judge'
            ? await aggregateWithJudge(aggregator, members, context)
            : weightedAverage(aggregator, members);
      return { ...outcome, members };
    } catch (error) {
      if (isEvaluatorError(error)) {
        throw new EvaluatorError(`aggregator (${aggregator.type}): ${error.message}`, {
          ...(error.hint === undefined ? {} : { hint: error.hint }),
          cause: error,
          members,
        });
      }
      throw error;
    }
  },
};

/** The member configs with names filled in (`type`, `type-2`, ...). */
function membersOf(config: EvaluatorConfig): EvaluatorConfig[] {
  return normalizeEvaluators(config.evaluators as EvaluatorEntryInput[]).evaluators;
}

function aggregatorOf(config: EvaluatorConfig): Record<string, unknown> & { type: string } {
  const aggregator = config.aggregator;
  if (aggregator === undefined) return { type: 'weighted_average' };
  return aggregator as Record<string, unknown> & { type: string };
}

function validateComposite(config: EvaluatorConfig, registry?: EvaluatorRegistry): Issue[] {
  const problems: Issue[] = [];
  const add = (message: string, ...path: (string | number)[]) =>
    problems.push({ severity: 'error', path: ['evaluators', ...path], message });
  const usage =
    'give `evaluators:` as a list of member evaluators, e.g. `- {type: contains, value: refund}`';
  const entries = config.evaluators;
  if (!Array.isArray(entries) || entries.length === 0) {
    add(`"evaluators" must be a non-empty list of members; ${usage}`);
  } else if (
    !entries.every(
      (entry) => isRecord(entry) && typeof entry.type === 'string' && entry.type !== '',
    )
  ) {
    add(`every member in "evaluators" needs a \`type\`; ${usage}`);
  } else {
    const { evaluators, duplicates } = normalizeEvaluators(entries as EvaluatorEntryInput[]);
    for (const duplicate of duplicates) {
      add(`member name "${duplicate.name}" is used more than once`);
    }
    for (const [index, member] of evaluators.entries()) {
      if (!registry) continue;
      if (!registry.has(member.type)) {
        add(
          `member "${member.name}" has unknown type "${member.type}"; ${unknownTypeHint(member.type, registry)}`,
          index,
          'type',
        );
        continue;
      }
      const evaluator = registry.get(member.type);
      if (member.required !== undefined) {
        // The composite's own score is what the case sees; a member's bar would be ignored.
        problems.push({
          severity: 'error',
          path: ['evaluators', index, 'required:key'],
          message: `member "${member.name}": "required" is not read on a member of a composite; ignoring it would change the verdict`,
          hint: 'put `required` on the composite, or make this member a grader of the case',
        });
      }
      const memberProblems = [
        ...(evaluator.validate?.(member, registry) ?? []),
        ...evaluatorKeyIssues(member, registry),
      ];
      for (const problem of memberProblems) {
        problems.push({
          ...problem,
          path: ['evaluators', index, ...(problem.path ?? [])],
          message: `member "${member.name}": ${problem.message}`,
        });
      }
    }
  }
  for (const message of aggregatorProblems(
    config.aggregator,
    Array.isArray(entries) ? entries : [],
  )) {
    problems.push({ severity: 'error', path: ['aggregator'], message });
  }
  return problems;
}

function aggregatorProblems(aggregator: unknown, entries: unknown[]): string[] {
  if (aggregator === undefined) return [];
  const usage = `use \`aggregator: {type: ${AGGREGATORS.join(' | ')}}\``;
  if (!isRecord(aggregator))
    return [`"aggregator" must be a mapping, got ${describe(aggregator)}; ${usage}`];
  const type = aggregator.type;
  if (!AGGREGATORS.includes(type as (typeof AGGREGATORS)[number])) {
    return [`"aggregator.type" must be one of ${AGGREGATORS.join(', ')}, got ${describe(type)}`];
  }
  if (type === 'weighted_average') {
    const weights = aggregator.weights;
    if (weights === undefined) return [];
    if (!isRecord(weights))
      return [`"aggregator.weights" must map member names to numbers, got ${describe(weights)}`];
    const names = isRecordList(entries)
      ? normalizeEvaluators(entries as EvaluatorEntryInput[]).evaluators.map(
          (member) => member.name,
        )
      : [];
    const problems: string[] = [];
    for (const [name, weight] of Object.entries(weights)) {
      if (typeof weight !== 'number' || !Number.isFinite(weight) || weight < 0) {
        problems.push(
          `"aggregator.weights.${name}" must be a number >= 0, got ${describe(weight)}`,
        );
      } else if (names.length > 0 && !names.includes(name)) {
        problems.push(
          `"aggregator.weights" names "${name}", which is not a member; members: ${names.join(', ')}`,
        );
      }
    }
    return problems;
  }
  if (type === 'code_judge') {
    const script = aggregator.script ?? aggregator.path;
    const valid =
      (typeof script === 'string' && script.trim() !== '') ||
      (Array.isArray(script) &&
        script.length > 0 &&
        script.every((part) => typeof part === 'string' && part !== ''));
    return valid
      ? []
      : [
          `"aggregator.script" must be a command line or a list of strings, got ${describe(script)}`,
        ];
  }
  return validatePrompt(aggregator.prompt, ['aggregator', 'prompt']).map(({ message }) => message);
}

function isRecordList(entries: unknown[]): boolean {
  return entries.every((entry) => isRecord(entry) && typeof entry.type === 'string');
}

function weightedAverage(
  aggregator: Record<string, unknown>,
  members: EvaluatorResult[],
): EvaluationScore {
  const weights = (aggregator.weights as Record<string, number> | undefined) ?? {};
  let total = 0;
  let sum = 0;
  for (const member of members) {
    const weight = weights[member.name] ?? member.weight;
    member.weight = weight;
    total += weight;
    sum += member.score * weight;
  }
  const score = total > 0 ? clamp(sum / total) : 0;
  const failsCase = members.some((member) => member.weight > 0 && member.failsCase);
  const reasoning = members
    .filter((member) => member.reasoning)
    .map((member) => `${member.name}: ${member.reasoning}`)
    .join('; ');
  return {
    score,
    hits: members.flatMap((member) => member.hits.map((hit) => `[${member.name}] ${hit}`)),
    misses: members.flatMap((member) => member.misses.map((miss) => `[${member.name}] ${miss}`)),
    ...(reasoning === '' ? {} : { reasoning }),
    ...(failsCase ? { failsCase: true, verdict: 'fail' as const } : { verdict: verdictFor(score) }),
  };
}

/** The member results as the aggregators see them, keyed by member name. */
function resultsByName(members: EvaluatorResult[]): Record<string, unknown> {
  return Object.fromEntries(
    members.map((member) => [
      member.name,
      {
        type: member.type,
        score: member.score,
        verdict: member.verdict,
        hits: member.hits,
        misses: member.misses,
        reasoning: member.reasoning ?? '',
      },
    ]),
  );
}

async function aggregateWithScript(
  aggregator: Record<string, unknown>,
  members: EvaluatorResult[],
  context: EvaluationContext,
): Promise<EvaluationScore> {
  // `path` is an older AgentV spelling of `script`.
  const script = (aggregator.script ?? aggregator.path) as string | string[];
  const evalDirectory = path.dirname(context.evalCase.filePath);
  const timeoutSeconds =
    typeof aggregator.timeout_seconds === 'number'
      ? aggregator.timeout_seconds
      : DEFAULT_CODE_JUDGE_TIMEOUT_SECONDS;
  const { stdout } = await runJudgeScript({
    script,
    cwd: path.resolve(evalDirectory, typeof aggregator.cwd === 'string' ? aggregator.cwd : '.'),
    input: JSON.stringify({ results: resultsByName(members) }),
    timeoutMs: timeoutSeconds * 1000,
    signal: context.signal,
    ...(context.env === undefined ? {} : { env: context.env }),
  });
  return parseJudgeOutput(stdout, describeScript(script));
}

async function aggregateWithJudge(
  aggregator: Record<string, unknown>,
  members: EvaluatorResult[],
  context: EvaluationContext,
): Promise<EvaluationScore> {
  const template = await loadPromptTemplate(aggregator.prompt, context, DEFAULT_AGGREGATOR_PROMPT);
  const results = JSON.stringify(resultsByName(members), null, 2);
  const prompt = renderTemplate(template, {
    ...judgeVariables(context),
    evaluator_results: results,
    EVALUATOR_RESULTS_JSON: results,
  });
  return askJudgeJson(context, prompt, SCORE_REPLY_CONTRACT, parseScoreReply);
}
