import { describe, expect, it } from 'vitest';
import type { Evaluator } from './evaluator.js';
import { createEvaluatorRegistry, defaultEvaluators } from './evaluator-registry.js';
import { makeConfig } from './test-support/make-context.js';

/** The messages of the issues `validate` returned. */
const messagesOf = (issues: { message: string }[] | undefined) =>
  issues?.map((issue) => issue.message);

describe('createEvaluatorRegistry', () => {
  it('holds the built-in evaluators', () => {
    const registry = createEvaluatorRegistry(defaultEvaluators());
    expect(registry.types()).toEqual([
      'code_judge',
      'command',
      'composite',
      'contains',
      'contains_all',
      'contains_any',
      'conversation_turns',
      'cost',
      'diff',
      'ends_with',
      'equals',
      'execution_metrics',
      'file',
      'goal_reached',
      'icontains',
      'icontains_all',
      'icontains_any',
      'is_json',
      'is_valid_openai_tools_call',
      'json_schema',
      'latency',
      'levenshtein',
      'llm_judge',
      'not_contains',
      'not_contains_all',
      'not_contains_any',
      'not_ends_with',
      'not_equals',
      'not_icontains',
      'not_icontains_all',
      'not_icontains_any',
      'not_is_json',
      'not_is_valid_openai_tools_call',
      'not_json_schema',
      'not_levenshtein',
      'not_regex',
      'not_starts_with',
      'regex',
      'rubric',
      'starts_with',
      'tool_trajectory',
    ]);
    expect(registry.has('regex')).toBe(true);
    expect(registry.get('regex').type).toBe('regex');
  });

  it('lists the known types when asked for an unknown one', () => {
    const registry = createEvaluatorRegistry(defaultEvaluators());
    expect(() => registry.get('llm_grader')).toThrow('unknown evaluator type "llm_grader"');
    try {
      registry.get('llm_grader');
    } catch (error) {
      expect((error as { hint?: string }).hint).toBe(
        'use one of: code_judge, command, composite, contains, contains_all, contains_any, conversation_turns, cost, diff, ends_with, equals, execution_metrics, file, goal_reached, icontains, icontains_all, icontains_any, is_json, is_valid_openai_tools_call, json_schema, latency, levenshtein, llm_judge, regex, rubric, starts_with, tool_trajectory, or not_<type> of an answer check',
      );
    }
  });

  it('registers more evaluators, but not the same type twice', () => {
    const custom: Evaluator = {
      type: 'always_one',
      evaluate: async () => ({ score: 1, hits: [], misses: [] }),
    };
    const registry = createEvaluatorRegistry().register(custom);
    expect(registry.types()).toEqual(['always_one']);
    expect(() => registry.register(custom)).toThrow(
      'evaluator type "always_one" is registered twice',
    );
  });

  it('validates configs, including their type', () => {
    const registry = createEvaluatorRegistry(defaultEvaluators());
    expect(messagesOf(registry.validate(makeConfig('contains', { value: 'x' })))).toEqual([]);
    expect(messagesOf(registry.validate(makeConfig('contains')))).toEqual([
      expect.stringContaining('"value" is missing'),
    ]);
    expect(messagesOf(registry.validate(makeConfig('nope')))).toEqual([
      'unknown evaluator type "nope"; use one of: code_judge, command, composite, contains, contains_all, contains_any, conversation_turns, cost, diff, ends_with, equals, execution_metrics, file, goal_reached, icontains, icontains_all, icontains_any, is_json, is_valid_openai_tools_call, json_schema, latency, levenshtein, llm_judge, regex, rubric, starts_with, tool_trajectory, or not_<type> of an answer check',
    ]);
  });
});
