import type { EvaluationResult, EvaluatorResult } from '@agentv/core';
import { summarizeTrace } from '@agentv/core/internal';

/**
 * An evaluation result for tests: a passing case unless overridden. Like the
 * orchestrator's, its `traceSummary` is the summary of its `trace` unless given.
 */
export function makeResult(overrides: Partial<EvaluationResult> = {}): EvaluationResult {
  return {
    timestamp: '2025-01-01T12:00:00.000Z',
    evalId: 'case-1',
    dataset: 'suite',
    evalFile: '/repo/evals/suite.yaml',
    target: 'default',
    score: 1,
    passed: true,
    hits: ['Answer contains "42"'],
    misses: [],
    reasoning: '',
    candidateAnswer: 'It is 42.',
    evaluatorResults: [
      {
        name: 'mentions-42',
        type: 'contains',
        score: 1,
        weight: 1,
        verdict: 'pass',
        hits: ['Answer contains "42"'],
        misses: [],
      },
    ],
    attempts: 1,
    durationMs: 120,
    traceSummary: overrides.trace ? summarizeTrace(overrides.trace) : null,
    ...overrides,
  };
}

/** A result with the given id and score; passed when score >= 0.8. */
export function scored(evalId: string, score: number, overrides: Partial<EvaluationResult> = {}) {
  return makeResult({ evalId, score, passed: score >= 0.8, ...overrides });
}

/** An errored result. */
export function errored(evalId: string, error: string) {
  return makeResult({ evalId, score: 0, passed: false, error, evaluatorResults: [], hits: [] });
}

/** A failing rubric grader's result (one unmet item, answered from the cache), for nesting tests. */
export function makeRubricMember(overrides: Partial<EvaluatorResult> = {}): EvaluatorResult {
  return {
    name: 'rubrics',
    type: 'rubric',
    score: 0,
    weight: 1,
    verdict: 'fail',
    hits: [],
    misses: ['[amount] Says $20'],
    failsCase: true,
    details: { items: [{ id: 'amount', satisfied: false }] },
    cached: true,
    ...overrides,
  };
}
