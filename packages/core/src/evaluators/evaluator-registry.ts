import { AgentvError } from '../errors/agentv-error.js';
import { codeJudgeEvaluator } from './code-judge.js';
import { commandEvaluator } from './command.js';
import { compositeEvaluator } from './composite.js';
import { containsEvaluator } from './contains.js';
import { conversationTurnsEvaluator } from './conversation-turns.js';
import { diffEvaluator } from './diff.js';
import { equalsEvaluator } from './equals.js';
import type { Evaluator, EvaluatorRegistry } from './evaluator.js';
import { fileEvaluator } from './file.js';
import { goalReachedEvaluator } from './goal-reached.js';
import { isJsonEvaluator } from './is-json.js';
import { jsonSchemaEvaluator } from './json-schema.js';
import { llmJudgeEvaluator } from './llm-judge.js';
import { regexEvaluator } from './regex.js';
import { rubricEvaluator } from './rubric.js';
import { toolTrajectoryEvaluator } from './tool-trajectory.js';

/** Creates a registry holding `evaluators` (none by default; see `defaultEvaluators`). */
export function createEvaluatorRegistry(evaluators: readonly Evaluator[] = []): EvaluatorRegistry {
  const byType = new Map<string, Evaluator>();
  const registry: EvaluatorRegistry = {
    register(evaluator) {
      if (byType.has(evaluator.type)) {
        throw new Error(`evaluator type "${evaluator.type}" is registered twice`);
      }
      byType.set(evaluator.type, evaluator);
      return registry;
    },
    has: (type) => byType.has(type),
    get(type) {
      const evaluator = byType.get(type);
      if (!evaluator) {
        const known = registry.types();
        throw new AgentvError(`unknown evaluator type "${type}"`, {
          hint:
            known.length > 0
              ? `use one of: ${known.join(', ')}`
              : 'no evaluator types are registered',
        });
      }
      return evaluator;
    },
    types: () => [...byType.keys()].sort(),
    validate(config) {
      const evaluator = byType.get(config.type);
      if (!evaluator) {
        return [
          {
            severity: 'error',
            path: ['type'],
            message: `unknown evaluator type "${config.type}"; use one of: ${registry.types().join(', ')}`,
          },
        ];
      }
      return evaluator.validate?.(config, registry) ?? [];
    },
  };
  for (const evaluator of evaluators) registry.register(evaluator);
  return registry;
}

/**
 * Every built-in evaluator (`llm_judge`, `rubric` and some `composite`s ask the
 * judge target; `command`, `file` and `diff` read the case's workspace).
 */
export function defaultEvaluators(): Evaluator[] {
  return [
    codeJudgeEvaluator,
    commandEvaluator,
    compositeEvaluator,
    containsEvaluator,
    conversationTurnsEvaluator,
    diffEvaluator,
    equalsEvaluator,
    fileEvaluator,
    goalReachedEvaluator,
    isJsonEvaluator,
    jsonSchemaEvaluator,
    llmJudgeEvaluator,
    regexEvaluator,
    rubricEvaluator,
    toolTrajectoryEvaluator,
  ];
}
