import type { Sandbox } from '../sandbox/sandbox-runtime.js';
import type { ChatMessage } from './chat-message.js';
import type { ConversationRequest } from './conversation-request.js';
import type { TokenUsage } from './provider-response.js';
import type { TraceContext } from './trace-intake.js';

/** Everything a provider needs to answer one eval case. */
export interface ProviderRequest {
  /** The eval case id. */
  evalCaseId: string;
  /** 0-based attempt number; retries increase it. */
  attempt: number;
  /** 1-based repeat number under `--repeat N` (1 without it); independent of `attempt`. */
  repeat?: number;
  /** The prompt as one string; the judge sees exactly this. */
  question: string;
  /** The prompt as a message list, guidelines merged into the system message. */
  chatPrompt: ChatMessage[];
  /** Guideline text (files matched by `guideline_patterns`), possibly empty. */
  guidelines: string;
  /** Absolute paths of the guideline files. */
  guidelineFiles: string[];
  /** Absolute paths of the non-guideline files attached to the input messages. */
  inputFiles: string[];
  /**
   * Absolute path of the folder of the case's eval file. Providers resolve
   * paths the user wrote relative to the eval file against it (the `cli`
   * provider's `cwd`). Set by the orchestrator for every case; absent only for
   * requests made outside a run.
   */
  evalDir?: string;
  /**
   * Set when a stored answer must not be reused: a judge asking again after
   * an unusable reply. Providers that cache answers skip the cache for this
   * request and store the new answer in place of the old one.
   */
  refresh?: boolean;
  /** The case's reference outcome, for batch runners that grade or log it. */
  expectedOutcome?: string;
  /**
   * Aborted when the run is interrupted, or when the case goes over its budget;
   * providers stop their work when it fires.
   */
  signal?: AbortSignal;
  /**
   * Set when the case has a budget (`max_tokens`, `max_cost_usd`): a provider that learns
   * its usage as it goes (a streamed LLM reply, a coding agent's event stream) calls it with
   * the call's running totals, and `signal` is aborted once they cross the budget.
   */
  onUsage?: (usage: TokenUsage | undefined, costUsd?: number) => void;
  /**
   * Absolute path of the case's workspace, when it has one: providers that run
   * processes run them there and set `AGENTV_WORKSPACE` (README, "Workspaces").
   */
  workspace?: string;
  /**
   * Set when the case's workspace runs in a sandbox (`workspace.docker`):
   * providers that run processes run them through it instead of on this
   * machine, with `/workspace` (`SANDBOX_WORKSPACE`) as working directory and
   * as the value of `{WORKSPACE}` / `AGENTV_WORKSPACE`.
   */
  sandbox?: Sandbox;
  /**
   * Set for targets with `trace: { source: otlp }`: the variables (`cli`) or the
   * `traceparent` header (`http`) that send the agent's spans to AgentV's receiver.
   */
  traceContext?: TraceContext;
  /**
   * Set when the case is a conversation: which turn this is. `chatPrompt` then
   * holds the conversation so far (earlier answers as `assistant` messages).
   */
  conversation?: ConversationRequest;
  /** Free-form data about the case (dataset, conversation id); providers must not depend on it. */
  metadata?: Record<string, unknown>;
}
