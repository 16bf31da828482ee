export type { AgentvErrorOptions } from './errors/agentv-error.js';
export { AgentvError, isAgentvError } from './errors/agentv-error.js';
export { EvaluatorError } from './errors/evaluator-error.js';
export type { InputIssue, Issue } from './errors/input-issue.js';
export { formatInputIssue, formatIssue, formatIssuePath } from './errors/input-issue.js';
export { InvalidInputError } from './errors/invalid-input-error.js';
export type { ProviderErrorOptions } from './errors/provider-error.js';
export { ProviderError } from './errors/provider-error.js';
export { UnknownProviderError } from './errors/unknown-provider-error.js';
export { UnknownTargetError } from './errors/unknown-target-error.js';
export { UsageError } from './errors/usage-error.js';
export type {
  ContentBlock,
  EvalCase,
  EvalFile,
  EvalMessage,
  ExpectedToolCall,
  FileContentBlock,
  TextContentBlock,
} from './eval-file/eval-case.js';
export type {
  EvaluationContext,
  EvaluationScore,
  Evaluator,
  EvaluatorResult,
  Verdict,
} from './evaluators/evaluator.js';
export type { EvaluatorConfig } from './evaluators/evaluator-config.js';
export type { AttemptRecord, EvaluationResult } from './orchestrator/evaluation-result.js';
export type { ChatMessage } from './provider/chat-message.js';
export type { MockProviderSettings } from './provider/mock-provider.js';
export {
  createMockProvider,
  DEFAULT_MOCK_RESPONSE,
  mockProviderFactory,
} from './provider/mock-provider.js';
export type { Provider, ProviderSpecificationVersion } from './provider/provider.js';
export { PROVIDER_SPECIFICATION_VERSION } from './provider/provider.js';
export type {
  ProviderContext,
  ProviderFactory,
} from './provider/provider-factory.js';
export type { ProviderRegistry } from './provider/provider-registry.js';
export { createProviderRegistry } from './provider/provider-registry.js';
export type { ProviderRequest } from './provider/provider-request.js';
export type { ProviderResponse, TokenUsage } from './provider/provider-response.js';
export type { ResolvedTarget } from './targets/resolved-target.js';
export { deriveTraceFromOutputMessages, normalizeTrace } from './trace/normalize-trace.js';
export type { OutputMessage, ToolCall } from './trace/output-message.js';
export type { TraceEvent, TraceEventType } from './trace/trace-event.js';
export {
  isRecord,
  parseOutputMessages,
  parseTraceEvents,
  traceEventSchema,
} from './trace/trace-schemas.js';
export { summarizeTrace } from './trace/summarize-trace.js';
export type { TraceSummary } from './trace/trace-summary.js';
export { stringifyYaml } from './util/stringify-yaml.js';
export type { ProcessOutcome, RunProcessOptions } from './process/run-process.js';
export { DEFAULT_KILL_GRACE_MS, runProcess } from './process/run-process.js';
export { STDERR_EXCERPT_CHARS, stderrExcerpt } from './process/stderr-excerpt.js';
export * from './config/index.js';
export * from './eval-file/index.js';
export * from './evaluators/index.js';
export * from './prompt/index.js';
export * from './targets/index.js';
export type { PlannedCase, PlanRunOptions, RunPlan } from './orchestrator/plan-run.js';
export { DEFAULT_TARGET_NAME, planRun, targetNameOf } from './orchestrator/plan-run.js';
export type {
  RetryOutcome,
  RetryPolicy,
  WithRetriesOptions,
} from './orchestrator/retry-policy.js';
export {
  DEFAULT_RETRY_POLICY,
  MAX_RETRY_AFTER_MS,
  retryDelayMs,
  withRetries,
} from './orchestrator/retry-policy.js';
export type { RunOutcome } from './orchestrator/run-evaluation.js';
export type { RunEvaluationOptions } from './orchestrator/run-options.js';
export { DEFAULT_WORKERS, runEvaluation } from './orchestrator/run-evaluation.js';
export type { WorkerPool } from './orchestrator/worker-pool.js';
export { createWorkerPool } from './orchestrator/worker-pool.js';
export * from './project/index.js';
