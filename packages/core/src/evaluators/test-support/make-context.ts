import path from 'node:path';
import type { EvalCase } from '../../eval-file/eval-case.js';
import type { EvaluatorConfig } from '../../eval-file/evaluator-config.js';
import type { TraceEvent } from '../../trace/trace-event.js';
import type { EvaluationContext } from '../evaluator.js';

/** The directory test eval cases pretend to live in: this folder's `__fixtures__`. */
export const FIXTURES_DIR = path.resolve(import.meta.dirname, '../__fixtures__');

/** An evaluation context for tests; `evalCase` fields may be overridden too. */
export function makeContext(
  overrides: Partial<Omit<EvaluationContext, 'evalCase'>> & { evalCase?: Partial<EvalCase> } = {},
): EvaluationContext {
  const { evalCase, ...rest } = overrides;
  return {
    evalCase: {
      id: 'case-1',
      dataset: 'suite',
      filePath: path.join(FIXTURES_DIR, 'suite.yaml'),
      inputMessages: [{ role: 'user', content: [{ type: 'text', value: 'What is 6 x 7?' }] }],
      expectedMessages: [],
      evaluators: [],
      ...evalCase,
    },
    question: 'What is 6 x 7?',
    candidateAnswer: 'The answer is 42.',
    traceSummary: null,
    guidelineFiles: [],
    inputFiles: [],
    ...rest,
  };
}

/** An evaluator config for tests. */
export function makeConfig(type: string, options: Record<string, unknown> = {}): EvaluatorConfig {
  return { name: `${type}-check`, type, ...options };
}

/** A `tool_call` trace event. */
export function toolCall(name: string, input?: unknown): TraceEvent {
  return {
    type: 'tool_call',
    timestamp: '2025-01-01T00:00:00.000Z',
    name,
    ...(input === undefined ? {} : { input }),
  };
}
