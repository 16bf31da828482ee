// The public API of @agentv/core for running evaluations from code and writing
// graders: named exports only, at most 45 (entry-points.test.ts holds the list).
// What provider authors need is on `@agentv/core/provider-utils`; what only
// AgentV's own packages use is on `@agentv/core/internal`; the mock provider is
// on `@agentv/core/test`. Everything else is internal and may change in any release.
// It holds: running (`evaluate`, and the `loadProject`/`planRun`/`runEvaluation` it is
// built on), results and their statistics, eval files, the registries, the grader
// contract and the errors users catch; biome keeps the lines sorted by file.

export { AgentvError, isAgentvError } from './errors/agentv-error.js';
export type { Issue } from './errors/input-issue.js';
export { formatIssue } from './errors/input-issue.js';
export { isInvalidInputError } from './errors/invalid-input-error.js';
export type { EvalCase, EvalFile } from './eval-file/eval-case.js';
export type { EvaluatorConfig } from './eval-file/evaluator-config.js';
export type { LoadEvalFileOptions } from './eval-file/load-eval-file.js';
export { loadEvalFile } from './eval-file/load-eval-file.js';
export { evaluate } from './evaluate/evaluate.js';
export type {
  EvaluateOptions,
  EvaluateOutcome,
  EvaluateProgressEvent,
  TargetDefinition,
} from './evaluate/evaluate-options.js';
export type {
  EvaluationContext,
  EvaluationScore,
  Evaluator,
  EvaluatorRegistry,
  EvaluatorResult,
  Judge,
  Verdict,
} from './evaluators/evaluator.js';
export { EvaluatorError, isEvaluatorError } from './evaluators/evaluator-error.js';
export { createEvaluatorRegistry, defaultEvaluators } from './evaluators/evaluator-registry.js';
export type { AttemptRecord, EvaluationResult } from './orchestrator/evaluation-result.js';
export type { PlannedCase, PlanRunOptions, RunPlan } from './orchestrator/plan-run.js';
export { planRun } from './orchestrator/plan-run.js';
export type { RunOutcome } from './orchestrator/run-evaluation.js';
export { runEvaluation } from './orchestrator/run-evaluation.js';
export type { RunEvaluationOptions } from './orchestrator/run-options.js';
export type { LoadedProject, LoadProjectOptions } from './project/load-project.js';
export { loadProject } from './project/load-project.js';
export type { ProviderRegistry } from './provider/provider-registry.js';
export { createProviderRegistry } from './provider/provider-registry.js';
export type { RetryPolicy } from './retry/retry-policy.js';
export type { RunStatistics, TargetStatistics } from './statistics/run-statistics.js';
export { computeRunStatistics } from './statistics/run-statistics.js';
