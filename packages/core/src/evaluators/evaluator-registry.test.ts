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
      'conversation_turns',
      'diff',
      'equals',
      'file',
      'goal_reached',
      'is_json',
      'json_schema',
      'llm_judge',
      'regex',
      'rubric',
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
        'use one of: code_judge, command, composite, contains, conversation_turns, diff, equals, file, goal_reached, is_json, json_schema, llm_judge, regex, rubric, tool_trajectory',
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
      'unknown evaluator type "nope"; use one of: code_judge, command, composite, contains, conversation_turns, diff, equals, file, goal_reached, is_json, json_schema, llm_judge, regex, rubric, tool_trajectory',
    ]);
  });
});
