// @agentv/core/provider-utils: what a provider package needs — the provider
// contract and the helpers every provider shares (settings checks, time limits,
// output limits, health checks, masking, parsing agents' answers, processes).
// Named exports only, kept sorted by file by biome; CONTRIBUTING.md, "Adding a
// provider", walks through them: the contract, settings, calls, answers, processes.

export { InvalidInputError } from './errors/invalid-input-error.js';
export type { ProviderErrorOptions } from './errors/provider-error.js';
export { isProviderError, ProviderError } from './errors/provider-error.js';
export { callsEnterCgroups } from './process/call-cgroup.js';
export { makeTempDir, makeTempDirSync } from './process/make-temp-dir.js';
export type { OutputLimitExceeded } from './process/output-guard.js';
export type { ProcessOutcome, RunProcessOptions } from './process/run-process.js';
export { runProcess } from './process/run-process.js';
export type { LongLivedProcess, StartProcessOptions } from './process/start-process.js';
export { startProcess } from './process/start-process.js';
export { stderrExcerpt, stderrSummary } from './process/stderr-excerpt.js';
export { assertValidSettings } from './provider/assert-valid-settings.js';
export { callLabel } from './provider/call-label.js';
export type { CallTimeout } from './provider/call-timeout.js';
export { callTimeout, describeCallTimeout } from './provider/call-timeout.js';
export type { ChatMessage } from './provider/chat-message.js';
export type { ConversationRequest } from './provider/conversation-request.js';
export { fetchWithBodyLimit } from './provider/fetch-with-body-limit.js';
export type { HttpHealthcheck } from './provider/http-healthcheck.js';
export {
  DEFAULT_HTTP_HEALTHCHECK_SECONDS,
  runHttpHealthcheck,
} from './provider/http-healthcheck.js';
export {
  DEFAULT_MAX_OUTPUT_BYTES,
  maxOutputBytes,
  outputLimitError,
} from './provider/output-limit.js';
export type { ModelPricing } from './provider/price-table.js';
export { estimateCostUsd, lookupPrice, PRICE_TABLE } from './provider/price-table.js';
export type {
  HealthcheckUse,
  Provider,
  ProviderSpecificationVersion,
} from './provider/provider.js';
export { PROVIDER_SPECIFICATION_VERSION } from './provider/provider.js';
export type { ProviderContext, ProviderFactory } from './provider/provider-factory.js';
export type { ProviderOptions } from './provider/provider-options.js';
export { providerOptions } from './provider/provider-options.js';
export type { ProviderRequest } from './provider/provider-request.js';
export type { ProviderResponse, TokenUsage } from './provider/provider-response.js';
export type {
  RecordedTraceReader,
  RecordedTraceRef,
  RecordedTraceSource,
} from './provider/recorded-trace.js';
export { RECORDED_TRACE_SOURCES } from './provider/recorded-trace.js';
export type { ResolvedTarget } from './provider/resolved-target.js';
export { parseRetryAfterMs } from './provider/retry-after.js';
export type { SettingsIssuesOptions } from './provider/settings-issues.js';
export { settingsIssues } from './provider/settings-issues.js';
export { parseTokenUsage } from './provider/token-usage.js';
export type {
  CollectedTrace,
  TraceContext,
  TraceIntake,
  TraceIntakeCall,
} from './provider/trace-intake.js';
export { MIN_MEMORY_BYTES, parseMemorySize } from './sandbox/memory-size.js';
export type {
  Sandbox,
  SandboxExec,
  SandboxImage,
  SandboxMount,
  SandboxOutcome,
  SandboxProcess,
  SandboxRuntime,
  SandboxSpawn,
  SandboxSpec,
} from './sandbox/sandbox-runtime.js';
export { SANDBOX_EXCHANGE, SANDBOX_WORKSPACE } from './sandbox/sandbox-runtime.js';
export type { CanonicalToolName } from './trace/canonical-tool-names.js';
export { CANONICAL_TOOL_NAMES, mcpToolName } from './trace/canonical-tool-names.js';
export type { OutputMessage } from './trace/output-message.js';
export type { TraceEvent, TraceEventRecord } from './trace/trace-event.js';
export { fromTraceEventRecord, traceEventRecord, traceRecords } from './trace/trace-event.js';
export { parseOutputMessages, parseTraceEvents } from './trace/trace-schemas.js';
export { formatBytes } from './util/byte-size.js';
export { snakeCaseSettings } from './util/case-keys.js';
export { closestMatch } from './util/closest-match.js';
export { describeFetchError, networkFailure } from './util/describe-fetch-error.js';
export { hasPlaceholder } from './util/env-placeholder.js';
export { createSecretMask, type SecretMask } from './util/mask-secrets.js';
export { isRecord, parseJsonObject } from './util/records.js';
export { removeFolder } from './util/remove-folder.js';
export { shellQuote, shellWord } from './util/shell-quote.js';
export type { WorkspaceConfig } from './workspace/workspace-config.js';
