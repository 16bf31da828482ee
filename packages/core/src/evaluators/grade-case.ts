import { isAgentvError } from '../errors/agentv-error.js';
import type { EvaluatorConfig } from '../eval-file/evaluator-config.js';
import type {
  EvaluationContext,
  EvaluationScore,
  Evaluator,
  EvaluatorRegistry,
  EvaluatorResult,
} from './evaluator.js';
import { isEvaluatorError } from './evaluator-error.js';
import { JUDGE_HINT } from './needs-judge.js';
import { passesOwnMark, requiredMiss } from './required-grader.js';
import { reaches, verdictFor } from './verdict.js';

/** The grade of one case across its evaluators. */
export interface CaseGrade {
  /** Weighted mean of the scores of evaluators with weight > 0 that did not error; in [0, 1]; 0 when a required grader missed its bar. */
  score: number;
  passed: boolean;
  hits: string[];
  misses: string[];
  /** Each evaluator's reasoning as `name: reasoning`, one per line. */
  reasoning: string;
  evaluatorResults: EvaluatorResult[];
  /** Set when an evaluator could not run, or nothing could grade the case. */
  error?: string;
  /** True when a `required` grader missed its bar (the score is then 0). */
  requiredMissed?: boolean;
}

export interface GradeCaseOptions {
  /** Pass mark for the case score; default the case's own `threshold`. */
  threshold?: number;
}

/**
 * Runs `configs` in order against `context` and combines their results.
 * Scores are clamped to [0, 1]. An evaluator that throws (or returns a score
 * that is not a number) gets verdict `error` and score 0, and the case gets
 * `error`: `evaluator "<name>" (<type>) failed: <message>`, several joined by
 * `; `. The case passes when nothing errored and, with a threshold, its score
 * reaches it, else every evaluator with weight > 0 has verdict `pass` (a
 * `required: <score>` one: reaches that score). A `required` grader under its
 * bar (`requiredMiss`) fails the case with score 0 and says why among its
 * misses. No evaluators, or none with weight > 0, is an error.
 * The grade is returned at once when every evaluator grades at once (`evaluateNow`),
 * else as a promise.
 */
export function gradeCase(
  configs: readonly EvaluatorConfig[],
  context: EvaluationContext,
  registry: EvaluatorRegistry,
  options: GradeCaseOptions = {},
): CaseGrade | Promise<CaseGrade> {
  const results: EvaluatorResult[] = [];
  // A context that already names the registry is used as it is (a spread per case is slow).
  const withRegistry: EvaluationContext =
    context.evaluators === registry ? context : { ...context, evaluators: registry };
  for (let index = 0; index < configs.length; index++) {
    const result = runEvaluator(configs[index]!, withRegistry, registry);
    if (result instanceof Promise) {
      return gradeRest(configs, withRegistry, registry, options, results, index, result);
    }
    results.push(result);
  }
  return combine(configs, results, context, options);
}

/** `gradeCase` from the first evaluator that waits (`index`, its result `pending`) on. */
async function gradeRest(
  configs: readonly EvaluatorConfig[],
  context: EvaluationContext,
  registry: EvaluatorRegistry,
  options: GradeCaseOptions,
  results: EvaluatorResult[],
  index: number,
  pending: Promise<EvaluatorResult>,
): Promise<CaseGrade> {
  results.push(await pending);
  for (let next = index + 1; next < configs.length; next++) {
    results.push(await runEvaluator(configs[next]!, context, registry));
  }
  return combine(configs, results, context, options);
}

/** The case's grade from its evaluators' results (`results[i]` is `configs[i]`'s). */
function combine(
  configs: readonly EvaluatorConfig[],
  results: EvaluatorResult[],
  context: EvaluationContext,
  options: GradeCaseOptions,
): CaseGrade {
  const threshold = options.threshold ?? context.evalCase.threshold;
  // One pass over the results (a run grades every case: no intermediate arrays).
  const errors: string[] = [];
  let requiredMissed = false;
  let weighted = false;
  let totalWeight = 0;
  let weightedScores = 0;
  let failsCase = false;
  let allPass = true;
  let reasoning = '';
  for (let index = 0; index < results.length; index++) {
    const result = results[index]!;
    const config = configs[index]!;
    if (config.required !== undefined) {
      const miss = requiredMiss(config, result, threshold);
      if (miss !== undefined) {
        requiredMissed = true;
        result.failsCase = true;
        // First, so a report that shows one miss shows why the score is 0.
        result.misses = [miss, ...result.misses];
      }
    }
    if (result.error !== undefined) {
      errors.push(`evaluator "${result.name}" (${result.type}) failed: ${result.error}`);
    }
    if (result.weight > 0) {
      weighted = true;
      if (result.verdict !== 'error') {
        totalWeight += result.weight;
        weightedScores += result.score * result.weight;
        if (result.failsCase) failsCase = true;
        if (!passesOwnMark(config, result)) allPass = false;
      }
    }
    if (result.reasoning) {
      reasoning += `${reasoning === '' ? '' : '\n'}${result.name}: ${result.reasoning}`;
    }
  }
  if (configs.length === 0) {
    errors.push(
      context.evalCase.testsFormat
        ? `test "${context.evalCase.id}" has no assertions; add "assertions" to the test or to the file, ${JUDGE_HINT}`
        : `case "${context.evalCase.id}" has no evaluators; add "evaluators" to the case or "execution.evaluators" to the file, ${JUDGE_HINT}`,
    );
  } else if (!weighted) {
    errors.push(
      `case "${context.evalCase.id}" has no evaluator with weight > 0, so nothing grades it; give one evaluator a positive weight`,
    );
  }

  // As AgentV 4.x: a required grader under its bar makes the case score 0.
  const score = totalWeight > 0 && !requiredMissed ? clamp(weightedScores / totalWeight) : 0;
  const passed =
    errors.length === 0 &&
    !failsCase &&
    (threshold !== undefined ? reaches(score, threshold) : allPass);

  const grade: CaseGrade = {
    score,
    passed,
    hits: results.length === 1 ? results[0]!.hits.slice() : results.flatMap((r) => r.hits),
    misses: results.length === 1 ? results[0]!.misses.slice() : results.flatMap((r) => r.misses),
    reasoning,
    evaluatorResults: results,
  };
  if (errors.length > 0) grade.error = errors.join('; ');
  if (requiredMissed) grade.requiredMissed = true;
  return grade;
}

/**
 * Runs one evaluator and turns its outcome (or failure) into a result: the
 * score clamped (a score outside 0–1 is reported through `context.warn`),
 * inverted under `negate: true`, verdict from the score unless the evaluator gave one, and an
 * error instead of a score when it threw. `composite` uses it for its members. The result is
 * returned at once when the evaluator grades at once (`evaluateNow`), else as a promise.
 */
export function runEvaluator(
  config: EvaluatorConfig,
  context: EvaluationContext,
  registry: EvaluatorRegistry,
): EvaluatorResult | Promise<EvaluatorResult> {
  try {
    const evaluator = registry.get(config.type);
    if (evaluator.evaluateNow === undefined) return runWaiting(evaluator, config, context);
    return evaluatorResult(config, context, evaluator.evaluateNow(config, context));
  } catch (error) {
    return failedResult(config, error);
  }
}

async function runWaiting(
  evaluator: Evaluator,
  config: EvaluatorConfig,
  context: EvaluationContext,
): Promise<EvaluatorResult> {
  try {
    return evaluatorResult(config, context, await evaluator.evaluate(config, context));
  } catch (error) {
    return failedResult(config, error);
  }
}

/** An evaluator's outcome as its result; throws for a score that is not a number. */
function evaluatorResult(
  config: EvaluatorConfig,
  context: EvaluationContext,
  outcome: EvaluationScore,
): EvaluatorResult {
  const { name, type } = config;
  const weight = config.weight ?? 1;
  if (typeof outcome.score !== 'number' || Number.isNaN(outcome.score)) {
    throw new Error(`it returned a score that is not a number (${String(outcome.score)})`);
  }
  const score = clamp(outcome.score);
  // A script on another scale (0–10, percent) must not pass or fail silently at the bounds.
  if (score !== outcome.score) {
    context.warn?.(
      context.evalCase,
      `"${name}" (${type})`,
      `returned score ${outcome.score}, outside 0–1; it counts as ${score}`,
    );
  }
  const negate = config.negate === true;
  // Written out rather than spread from a shared base: this runs for every case of a run.
  // `negate: true` grades the opposite: score 1 - s, its verdict from that score, hits and
  // misses swapped (what held is now what should not have).
  const result: EvaluatorResult = negate
    ? {
        name,
        type,
        weight,
        score: 1 - score,
        verdict: verdictFor(1 - score),
        hits: outcome.misses,
        misses: outcome.hits,
        negated: true,
      }
    : {
        name,
        type,
        weight,
        score,
        verdict: outcome.verdict ?? verdictFor(score),
        hits: outcome.hits,
        misses: outcome.misses,
      };
  if (outcome.reasoning) result.reasoning = outcome.reasoning;
  // A required item that failed the check is what a negated check asks for.
  if (outcome.failsCase && !negate) result.failsCase = true;
  if (outcome.details !== undefined) result.details = outcome.details;
  if (outcome.cached === true) result.cached = true;
  if (outcome.members !== undefined) result.members = outcome.members;
  if (typeof config.metric === 'string') result.metric = config.metric;
  return result;
}

/** The result of an evaluator that could not grade: verdict `error`, score 0. */
function failedResult(config: EvaluatorConfig, error: unknown): EvaluatorResult {
  const result: EvaluatorResult = {
    name: config.name,
    type: config.type,
    weight: config.weight ?? 1,
    score: 0,
    verdict: 'error',
    hits: [],
    misses: [],
    error: describeError(error),
  };
  // A composite whose aggregator failed still reports what its members did.
  if (isEvaluatorError(error) && error.members) result.members = error.members;
  if (typeof config.metric === 'string') result.metric = config.metric;
  return result;
}

function describeError(error: unknown): string {
  if (isAgentvError(error) && error.hint) return `${error.message}; ${error.hint}`;
  return error instanceof Error ? error.message : String(error);
}

export function clamp(score: number): number {
  return Math.min(1, Math.max(0, score));
}
