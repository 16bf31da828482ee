// @agentv/core/internal: what AgentV's own packages (the CLI, @agentv/results)
// use from core besides its public entries. Not an API for anyone else: it
// changes with them, in any release.

export { classifyFailure, FAILURE_CLASSES, type FailureClass } from './errors/failure-class.js';
export { isUsageError, UsageError } from './errors/usage-error.js';
export { judgeFilesOf } from './eval-file/check-judge-files.js';
export type { ConversationEnd } from './eval-file/conversation.js';
export { EVAL_FILE_KEYS } from './eval-file/eval-file-keys.js';
export type { ConversationTurnResult } from './orchestrator/conversation-turn-result.js';
export type {
  RepeatRun,
  RepeatSummary,
  WorkspaceSummary,
} from './orchestrator/evaluation-result.js';
export { reportIssues } from './orchestrator/report-issues.js';
export type {
  ProviderRole,
  RunBudget,
  WorkspaceChangesRecord,
} from './orchestrator/run-options.js';
export { runTargetsOf } from './orchestrator/run-targets.js';
export { prepareProcessStarts } from './process/spare-launcher.js';
export { checkTarget, RUN_TARGET_POLICY } from './project/check-target.js';
export { CLI_OPTION_NAMES } from './project/option-names.js';
export type { BuiltPrompt } from './prompt/build-prompt.js';
export { addTokenUsage, tokenUsageRecord } from './provider/token-usage.js';
export {
  DEFAULT_REPEAT_PASS,
  parseRepeatPassRule,
  REPEAT_PASS_SPELLINGS,
  type RepeatPassRule,
  repeatPassName,
  repeatVerdict,
  repeatVerdictDecided,
} from './repeats/repeat-pass-rule.js';
export { jsonSchemaFile } from './schemas/json-schema-file.js';
export { createResultTally, type ResultTally } from './statistics/result-tally.js';
export {
  createRunStatisticsAccumulator,
  type RunStatisticsAccumulator,
} from './statistics/run-statistics.js';
export { interpolateEnv } from './targets/interpolate-env.js';
export type { OutputMessageRecord } from './trace/output-message.js';
export { outputMessageRecord } from './trace/output-message.js';
export { summarizeTrace } from './trace/summarize-trace.js';
export type { TraceSummary } from './trace/trace-summary.js';
export { displayPath } from './util/display-path.js';
export { findRepoRoot } from './util/find-repo-root.js';
export { isAtOrInside } from './util/is-at-or-inside.js';
export { jsonParseProblem } from './util/json-parse-problem.js';
export type { LoadResult } from './util/load-result.js';
export { uniqueIssues } from './util/load-result.js';
export {
  createWorkspaceManager,
  type WorkspaceManagerOptions,
} from './workspace/create-workspace-manager.js';
export type { FileChanges } from './workspace/file-changes.js';
export { WorkspaceCaseError } from './workspace/workspace-errors.js';
export type {
  WorkspaceCaseInfo,
  WorkspaceLease,
  WorkspaceManager,
} from './workspace/workspace-manager.js';
