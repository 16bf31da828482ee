import { describe, expect, it } from 'vitest';
import type { EvaluatorConfig } from '../eval-file/evaluator-config.js';
import { evaluatorKeyIssues, negatedTypeHint, unknownTypeHint } from './evaluator-keys.js';
import { createEvaluatorRegistry, defaultEvaluators } from './evaluator-registry.js';

const registry = createEvaluatorRegistry(defaultEvaluators());

/** Issues of `config`'s keys, as `severity key: message (hint)`. */
function keyIssues(config: Omit<EvaluatorConfig, 'name'>): string[] {
  const full = { name: 'check', ...config } as EvaluatorConfig;
  return evaluatorKeyIssues(full, registry).map(
    (issue) =>
      `${issue.severity} ${issue.path?.join('.')}: ${issue.message}${issue.hint ? ` (${issue.hint})` : ''}`,
  );
}

describe('evaluatorKeyIssues', () => {
  it('accepts the common keys, negate included, and the options of the type', () => {
    expect(
      keyIssues({ type: 'contains', value: 'x', case_sensitive: false, weight: 2, negate: true }),
    ).toEqual([]);
  });

  it("makes another tool's key that would change the verdict an error, with what to write instead", () => {
    expect(keyIssues({ type: 'contains', value: 'x', not: true })).toEqual([
      'error not:key: "not" is not a grader option here; ignoring it would change the verdict (write `negate: true` to pass when the check does not hold)',
    ]);
    expect(keyIssues({ type: 'llm_judge', threshold: 0.5 })[0]).toMatch(
      /^error threshold:key: .* \(a grader passes at score 0\.8; `required: 0\.6` .* set `threshold` on the case/,
    );
    expect(keyIssues({ type: 'regex', pattern: 'x', transform: 'output.trim()' })[0]).toMatch(
      /^error transform:key: .*reshape it in a code_judge script/,
    );
    expect(keyIssues({ type: 'contains', value: 'x', ignore_case: true })).toEqual([
      'error ignore_case:key: "ignore_case" is not a grader option here; ignoring it would change the verdict (write `case_sensitive: false`)',
    ]);
  });

  it('makes a judge of another tool an error only on graders that ask a judge', () => {
    expect(keyIssues({ type: 'llm_judge', provider: 'openai:gpt-4o' })[0]).toMatch(
      /^error provider:key: .*set `judge_target` on the target/,
    );
    expect(keyIssues({ type: 'contains', value: 'x', provider: 'openai:gpt-4o' })).toEqual([
      'warning provider:key: unknown key "provider" is ignored (remove it, or use one of: value, case_sensitive)',
    ]);
  });

  it('makes a misspelt negate, weight or option an error: the grade would change', () => {
    expect(keyIssues({ type: 'contains', value: 'x', negat: true })).toEqual([
      'error negat:key: unknown key "negat": ignoring it would change the grade (did you mean "negate"?)',
    ]);
    expect(keyIssues({ type: 'contains', value: 'x', wieght: 0 })[0]).toMatch(
      /did you mean "weight"\?/,
    );
    expect(keyIssues({ type: 'contains', value: 'x', case_sensitve: false })[0]).toMatch(
      /^error case_sensitve:key: .*did you mean "case_sensitive"\?/,
    );
    expect(keyIssues({ type: 'contains', value: 'x', requird: true })).toEqual([
      'error requird:key: unknown key "requird": ignoring it would change the grade (did you mean "required"?)',
    ]);
    expect(keyIssues({ type: 'contains', value: 'x', required: 0.6 })).toEqual([]);
  });

  it('keeps harmless unknown keys warnings', () => {
    expect(keyIssues({ type: 'contains', value: 'x', description: 'the refund' })).toEqual([
      'warning description:key: unknown key "description" is ignored (remove it, or use one of: value, case_sensitive)',
    ]);
    expect(keyIssues({ type: 'is_json', label: 'json' })).toEqual([
      'warning label:key: unknown key "label" is ignored (remove it: is_json takes no options)',
    ]);
  });

  it('reads metric on every grader and errs on a misspelt one', () => {
    expect(keyIssues({ type: 'is_json', metric: 'format' })).toEqual([]);
    expect(keyIssues({ type: 'latency', threshold: 10, metric: 'speed' })).toEqual([]);
    expect(keyIssues({ type: 'is_json', metric: 3 })).toEqual([
      'error metric: "metric" must be a name such as "accuracy", got 3',
    ]);
    expect(keyIssues({ type: 'is_json', metrik: 'format' })).toEqual([
      'error metrik:key: unknown key "metrik": ignoring it would change the grade (did you mean "metric"?)',
    ]);
  });

  it('errs on a misspelt option of the new graders, with did-you-mean', () => {
    expect(keyIssues({ type: 'execution_metrics', max_token: 10 })).toEqual([
      'error max_token:key: unknown key "max_token": ignoring it would change the grade (did you mean "max_tokens"?)',
    ]);
    expect(keyIssues({ type: 'tool_trajectory', max_step: 3 })).toEqual([
      'error max_step:key: unknown key "max_step": ignoring it would change the grade (did you mean "max_steps"?)',
    ]);
    expect(keyIssues({ type: 'levenshtein', value: 'x', threshold: 2 })).toEqual([]);
    expect(keyIssues({ type: 'not_contains', value: 'x', case_sensitiv: false })).toEqual([
      'error case_sensitiv:key: unknown key "case_sensitiv": ignoring it would change the grade (did you mean "case_sensitive"?)',
    ]);
  });

  it('wants negate to be true or false', () => {
    expect(keyIssues({ type: 'contains', value: 'x', negate: 'yes' })).toEqual([
      'error negate: "negate" must be true or false, got "yes"',
    ]);
  });
});

describe('negatedTypeHint', () => {
  it("names the AgentV type with negate: true for another tool's not- type", () => {
    expect(negatedTypeHint('not-contains', registry)).toBe(
      'write `type: not_contains` (or `type: contains` with `negate: true`)',
    );
    expect(negatedTypeHint('not-icontains-any', registry)).toBe(
      'write `type: not_icontains_any` (or `type: icontains_any` with `negate: true`)',
    );
    expect(negatedTypeHint('not-is-valid-json', registry)).toBe(
      'write `type: not_is_json` (or `type: is_json` with `negate: true`)',
    );
    expect(negatedTypeHint('not-similar', registry)).toBeUndefined();
    expect(negatedTypeHint('contains', registry)).toBeUndefined();
  });
});

describe('unknownTypeHint', () => {
  it('suggests the closest type, not_ forms included, and lists the types with not_ summed up', () => {
    const hint = unknownTypeHint('not_contans', registry);
    expect(hint).toMatch(/^did you mean "not_contains"\? Or use one of: code_judge, /);
    expect(hint).toMatch(/tool_trajectory, or not_<type> of an answer check$/);
    expect(unknownTypeHint('startswith', registry)).toMatch(/^did you mean "starts_with"\?/);
    expect(unknownTypeHint('not-contains', registry)).toBe(
      'write `type: not_contains` (or `type: contains` with `negate: true`)',
    );
  });
});
