// The public API of @agentv/core: named exports only, each needed by another
// AgentV package or by users writing providers, evaluators or tools on top of
// core. Everything else (glob matching, dotenv parsing, YAML and case helpers…)
// is internal and may change in any release.

// Project loading: eval files, targets, config, .env
export type { AgentvConfig } from './config/config-schema.js';
export type { AgentvErrorKind, AgentvErrorOptions } from './errors/agentv-error.js';
export { AgentvError, isAgentvError } from './errors/agentv-error.js';
export type { Issue } from './errors/input-issue.js';
export { formatIssue } from './errors/input-issue.js';
export { InvalidInputError, isInvalidInputError } from './errors/invalid-input-error.js';
export type { ProviderErrorOptions } from './errors/provider-error.js';
export { isProviderError, ProviderError } from './errors/provider-error.js';
export { UnknownProviderError } from './errors/unknown-provider-error.js';
export { UnknownTargetError } from './errors/unknown-target-error.js';
export { isUsageError, UsageError } from './errors/usage-error.js';
export { judgeFilesOf } from './eval-file/check-judge-files.js';
export type {
  ContentBlock,
  EvalCase,
  EvalFile,
  EvalMessage,
  ExpectedToolCall,
  FileContentBlock,
  RubricItem,
  TextContentBlock,
} from './eval-file/eval-case.js';
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
  JudgeRequest,
  Verdict,
} from './evaluators/evaluator.js';
export type { EvaluatorErrorOptions } from './evaluators/evaluator-error.js';
export { EvaluatorError, isEvaluatorError } from './evaluators/evaluator-error.js';
export { createEvaluatorRegistry, defaultEvaluators } from './evaluators/evaluator-registry.js';
export type {
  AttemptRecord,
  EvaluationResult,
  RepeatRun,
  RepeatSummary,
} from './orchestrator/evaluation-result.js';
export type { PlannedCase, PlanRunOptions, RunPlan } from './orchestrator/plan-run.js';
export { planRun } from './orchestrator/plan-run.js';
export { reportIssues } from './orchestrator/report-issues.js';
export type { RunOutcome } from './orchestrator/run-evaluation.js';
export { runEvaluation } from './orchestrator/run-evaluation.js';
export type { ProviderRole, RunEvaluationOptions } from './orchestrator/run-options.js';
export { runTargetsOf } from './orchestrator/run-targets.js';
export { makeTempDir } from './process/make-temp-dir.js';
export type { OutputLimit, OutputLimitExceeded, WatchedFile } from './process/output-guard.js';
export type { ProcessOutcome, RunProcessOptions } from './process/run-process.js';
export { runProcess } from './process/run-process.js';
export type {
  LongLivedProcess,
  ProcessExit,
  StartProcessOptions,
} from './process/start-process.js';
export { startProcess } from './process/start-process.js';
export { stderrExcerpt, stderrSummary } from './process/stderr-excerpt.js';
export type { TargetPolicy } from './project/check-target.js';
export { checkTarget, RUN_TARGET_POLICY, targetSettingsIssue } from './project/check-target.js';
export type {
  EvalFilesLoader,
  LoadedProject,
  LoadProjectOptions,
  ProjectEvalFile,
} from './project/load-project.js';
export { loadProject } from './project/load-project.js';
export type { OptionNames } from './project/option-names.js';
export { CLI_OPTION_NAMES } from './project/option-names.js';
export type { BuiltPrompt } from './prompt/build-prompt.js';
export { callLabel } from './provider/call-label.js';
export type { CallTimeout } from './provider/call-timeout.js';
export { callTimeout, describeCallTimeout } from './provider/call-timeout.js';
export type { ChatMessage } from './provider/chat-message.js';
export { fetchWithBodyLimit } from './provider/fetch-with-body-limit.js';
export { createMockProvider, mockProviderFactory } from './provider/mock-provider.js';
export {
  DEFAULT_MAX_OUTPUT_BYTES,
  MAX_OUTPUT_BYTES_CEILING,
  maxOutputBytes,
  outputLimitError,
} from './provider/output-limit.js';
export type { Provider, ProviderSpecificationVersion } from './provider/provider.js';
export { PROVIDER_SPECIFICATION_VERSION } from './provider/provider.js';
export type { ProviderContext, ProviderFactory } from './provider/provider-factory.js';
export type { ProviderRegistry } from './provider/provider-registry.js';
export { createProviderRegistry } from './provider/provider-registry.js';
export type { ProviderRequest } from './provider/provider-request.js';
export type { ProviderResponse, TokenUsage } from './provider/provider-response.js';
export type { ResolvedTarget } from './provider/resolved-target.js';
export { parseRetryAfterMs } from './provider/retry-after.js';
export { parseTokenUsage, tokenUsageRecord } from './provider/token-usage.js';
export type { RetryPolicy } from './retry/retry-policy.js';
export { createResultTally, type ResultTally } from './statistics/result-tally.js';
export type {
  HistogramBin,
  RunStatistics,
  RunStatisticsOptions,
  TargetStatistics,
  TokenTotals,
} from './statistics/run-statistics.js';
export {
  computeRunStatistics,
  createRunStatisticsAccumulator,
  type RunStatisticsAccumulator,
} from './statistics/run-statistics.js';
export { hasPlaceholder } from './targets/interpolate-env.js';
export type { OutputMessage, OutputMessageRecord, ToolCall } from './trace/output-message.js';
export { outputMessageRecord } from './trace/output-message.js';
export { summarizeTrace } from './trace/summarize-trace.js';
export type { TraceEvent, TraceEventType } from './trace/trace-event.js';
export { parseOutputMessages, parseTraceEvents } from './trace/trace-schemas.js';
export type { TraceSummary } from './trace/trace-summary.js';
export { formatBytes } from './util/byte-size.js';
export { snakeCaseSettings } from './util/case-keys.js';
export { closestMatch } from './util/closest-match.js';
export { describeFetchError, networkFailure } from './util/describe-fetch-error.js';
export { displayPath } from './util/display-path.js';
export { findRepoRoot } from './util/find-repo-root.js';
export { jsonParseProblem } from './util/json-parse-problem.js';
export type { LoadResult } from './util/load-result.js';
export { uniqueIssues } from './util/load-result.js';
export { createSecretMask, type SecretMask } from './util/mask-secrets.js';
export { isRecord, parseJsonObject } from './util/records.js';
