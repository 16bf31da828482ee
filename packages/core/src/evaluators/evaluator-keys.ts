import type { Issue } from '../errors/input-issue.js';
import type { EvaluatorConfig } from '../eval-file/evaluator-config.js';
import { testsFileGraderTypes } from '../eval-file/upstream/upstream-graders.js';
import { closestMatch } from '../util/closest-match.js';
import type { EvaluatorRegistry } from './evaluator.js';
import { knownTypes } from './known-types.js';
import { needsJudge } from './needs-judge.js';

/** Keys every evaluator config may have, whatever its type. */
export const COMMON_EVALUATOR_KEYS: readonly string[] = [
  'name',
  'type',
  'weight',
  'negate',
  'metric',
  'required',
];

/** The common keys that change a grade or its report: a misspelling of one is an error. */
const GRADE_KEYS = ['weight', 'negate', 'metric', 'required'];

const NEGATE = 'write `negate: true` to pass when the check does not hold';
const THRESHOLD =
  'a grader passes at score 0.8; `required: 0.6` gives it its own pass mark (the case fails with score 0 below it); to pass cases at a lower score set `threshold` on the case or `execution.threshold` in the eval file (or --threshold)';
const TRANSFORM =
  'AgentV graders see the answer as the agent gave it; reshape it in a code_judge script, or grade the form the agent answers in';
const JUDGE =
  'an LLM grader asks the judge target of its case: set `judge_target` on the target or `execution.judge_target` in the eval file (or --judge-target)';

/**
 * Keys other eval tools (promptfoo, AgentV 1.x plugins...) put on a grader that
 * would change its verdict if they were ignored, with what to write instead.
 * `judgeOnly`: only graders that ask a judge are changed by it.
 */
const VERDICT_KEYS: Record<string, { hint: string; judgeOnly?: boolean }> = {
  not: { hint: NEGATE },
  negated: { hint: NEGATE },
  negative: { hint: NEGATE },
  inverse: { hint: NEGATE },
  invert: { hint: NEGATE },
  inverted: { hint: NEGATE },
  threshold: { hint: THRESHOLD },
  pass_threshold: { hint: THRESHOLD },
  passing_score: { hint: THRESHOLD },
  min_score: { hint: THRESHOLD },
  transform: { hint: TRANSFORM },
  transform_output: { hint: TRANSFORM },
  ignore_case: { hint: 'write `case_sensitive: false`' },
  case_insensitive: { hint: 'write `case_sensitive: false`' },
  provider: { hint: JUDGE, judgeOnly: true },
  judge: { hint: JUDGE, judgeOnly: true },
  judge_target: { hint: JUDGE, judgeOnly: true },
  model: { hint: JUDGE, judgeOnly: true },
};

/**
 * Problems with the keys of an evaluator config that its evaluator (found in
 * `registry`) does not read (its `options`, plus the common keys), each with
 * `path` `[key + ':key']` (the key itself, not its value). A key that would
 * change the verdict if it were ignored is an error: a spelling of `negate`, a
 * pass mark, a transform or a judge of another tool (`VERDICT_KEYS`; a judge
 * only on a grader that `needsJudge`), or a misspelling of `weight`, `negate`
 * or one of the evaluator's options (it would grade without the option the
 * author wrote). Any other unknown key is a warning. `negate` itself must be
 * true or false, and `metric` (the named score it reports to) a non-empty string.
 */
export function evaluatorKeyIssues(config: EvaluatorConfig, registry: EvaluatorRegistry): Issue[] {
  const issues: Issue[] = [];
  const options = registry.has(config.type) ? registry.get(config.type).options : undefined;
  if (config.negate !== undefined && typeof config.negate !== 'boolean') {
    issues.push({
      severity: 'error',
      path: ['negate'],
      message: `"negate" must be true or false, got ${JSON.stringify(config.negate)}`,
    });
  }
  if (
    config.metric !== undefined &&
    !(typeof config.metric === 'string' && config.metric.trim() !== '')
  ) {
    issues.push({
      severity: 'error',
      path: ['metric'],
      message: `"metric" must be a name such as "accuracy", got ${JSON.stringify(config.metric)}`,
    });
  }
  // Without a list of options the evaluator's other keys cannot be told from unknown ones.
  if (options === undefined) return issues;
  for (const key of Object.keys(config)) {
    if (COMMON_EVALUATOR_KEYS.includes(key) || options.includes(key)) continue;
    const path = [`${key}:key`];
    const known = VERDICT_KEYS[key.toLowerCase()];
    if (known !== undefined && (known.judgeOnly !== true || needsJudge(config, registry))) {
      issues.push({
        severity: 'error',
        path,
        message: `"${key}" is not a grader option here; ignoring it would change the verdict`,
        hint: known.hint,
      });
      continue;
    }
    const meant = closestMatch(key, [...GRADE_KEYS, ...options]);
    if (meant !== undefined) {
      issues.push({
        severity: 'error',
        path,
        message: `unknown key "${key}": ignoring it would change the grade`,
        hint: `did you mean "${meant}"?`,
      });
      continue;
    }
    issues.push({
      severity: 'warning',
      path,
      message: `unknown key "${key}" is ignored`,
      hint:
        options.length === 0
          ? `remove it: ${config.type} takes no options`
          : `remove it, or use one of: ${options.join(', ')}`,
    });
  }
  return issues;
}

// promptfoo's `not-` types and their AgentV type, where the name alone does not say it.
const PROMPTFOO_TYPES: Record<string, { type: string; add?: string }> = {
  'is-json': { type: 'is_json' },
  'is-valid-json': { type: 'is_json' },
  'contains-json': { type: 'is_json' },
};

/**
 * The hint for an unknown `type` written as another tool's negated check
 * (`not-contains`, promptfoo's `not-is-valid-json`): the AgentV `not_` type, or the
 * type with `negate: true`. Undefined when `type` is not such a spelling.
 */
export function negatedTypeHint(type: string, registry: EvaluatorRegistry): string | undefined {
  const match = /^not[-_](.+)$/i.exec(type);
  if (!match) return undefined;
  const rest = match[1]!.toLowerCase();
  const mapped = PROMPTFOO_TYPES[rest] ?? { type: rest.replace(/-/g, '_') };
  if (!registry.has(mapped.type)) return undefined;
  const negated = `not_${mapped.type}`;
  if (mapped.add === undefined && registry.has(negated)) {
    return `write \`type: ${negated}\` (or \`type: ${mapped.type}\` with \`negate: true\`)`;
  }
  return `write \`type: ${mapped.type}\`${mapped.add ?? ''} with \`negate: true\``;
}

/**
 * The hint for an unknown grader `type`: another tool's negated spelling
 * (`negatedTypeHint`), else a did-you-mean over every registered type and the
 * list of types (`not_<type>` forms summed up).
 */
export function unknownTypeHint(
  type: string,
  registry: EvaluatorRegistry,
  /** The grader is a `tests:` file's: its types are named as AgentV 4.x names them. */
  testsFile = false,
): string {
  const negated = negatedTypeHint(type, registry);
  if (negated !== undefined) return negated;
  const types = testsFile ? testsFileGraderTypes(registry.types()) : registry.types();
  const list = testsFile ? types.join(', ') : knownTypes(registry);
  // A tests: file also reads this AgentV's names (`llm_judge`): they are matched after 4.x's.
  const match = closestMatch(type, testsFile ? [...types, ...registry.types()] : types);
  return match === undefined
    ? `use one of: ${list}`
    : `did you mean "${match}"? Or use one of: ${list}`;
}
