import { AgentvError } from '../errors/agentv-error.js';
import { codeJudgeEvaluator } from './code-judge.js';
import { commandEvaluator } from './command.js';
import { compositeEvaluator } from './composite.js';
import { containsEvaluator } from './contains.js';
import { conversationTurnsEvaluator } from './conversation-turns.js';
import { costEvaluator } from './cost.js';
import { diffEvaluator } from './diff.js';
import { equalsEvaluator } from './equals.js';
import type { Evaluator, EvaluatorRegistry } from './evaluator.js';
import { executionMetricsEvaluator } from './execution-metrics.js';
import { fileEvaluator } from './file.js';
import { goalReachedEvaluator } from './goal-reached.js';
import { isJsonEvaluator } from './is-json.js';
import { jsonSchemaEvaluator } from './json-schema.js';
import { knownTypes } from './known-types.js';
import { latencyEvaluator } from './latency.js';
import { levenshteinEvaluator } from './levenshtein.js';
import { llmJudgeEvaluator } from './llm-judge.js';
import { negatedEvaluator } from './negated-evaluator.js';
import { openAiToolsCallEvaluator } from './openai-tools-call.js';
import { regexEvaluator } from './regex.js';
import { rubricEvaluator } from './rubric.js';
import { textMatchEvaluators } from './text-match.js';
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
        throw new AgentvError(`unknown evaluator type "${type}"`, {
          hint:
            byType.size > 0
              ? `use one of: ${knownTypes(registry)}`
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
            message: `unknown evaluator type "${config.type}"; use one of: ${knownTypes(registry)}`,
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
 * judge target; `command`, `file` and `diff` read the case's workspace), and
 * `not_<type>` for each deterministic answer check.
 */
export function defaultEvaluators(): Evaluator[] {
  const answerChecks = [
    containsEvaluator,
    ...textMatchEvaluators,
    equalsEvaluator,
    regexEvaluator,
    isJsonEvaluator,
    jsonSchemaEvaluator,
    levenshteinEvaluator,
    openAiToolsCallEvaluator,
  ];
  return [
    ...answerChecks,
    ...answerChecks.map(negatedEvaluator),
    codeJudgeEvaluator,
    commandEvaluator,
    compositeEvaluator,
    conversationTurnsEvaluator,
    costEvaluator,
    diffEvaluator,
    executionMetricsEvaluator,
    fileEvaluator,
    goalReachedEvaluator,
    latencyEvaluator,
    llmJudgeEvaluator,
    rubricEvaluator,
    toolTrajectoryEvaluator,
  ];
}
