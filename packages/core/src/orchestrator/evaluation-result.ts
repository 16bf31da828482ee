import type { FailureClass } from '../errors/failure-class.js';
import type { ConversationEnd } from '../eval-file/conversation.js';
import type { EvaluatorResult } from '../evaluators/evaluator.js';
import type { TokenUsage } from '../provider/provider-response.js';
import type { OutputMessage } from '../trace/output-message.js';
import type { TraceEvent } from '../trace/trace-event.js';
import type { TraceSummary } from '../trace/trace-summary.js';
import type { ConversationTurnResult } from './conversation-turn-result.js';

/**
 * The outcome of one eval case. Writers in `@agentv/results` turn it into the
 * snake_case result line; `trace` and `outputMessages` are written only on request.
 */
export interface EvaluationResult {
  timestamp: string;
  evalId: string;
  dataset: string;
  /** Absolute path of the eval file the case came from. */
  evalFile: string;
  target: string;
  conversationId?: string;
  /** Weighted mean of the evaluator scores, in [0, 1]; 0 for an errored case. */
  score: number;
  passed: boolean;
  hits: string[];
  misses: string[];
  reasoning: string;
  candidateAnswer: string;
  evaluatorResults: EvaluatorResult[];
  /** Named metrics (`metric:` on graders) to the mean score of their graders in this case. */
  metrics?: Record<string, number>;
  /** Provider calls made for this case (1 when the first succeeded). */
  attempts: number;
  durationMs: number;
  usage?: TokenUsage;
  costUsd?: number;
  /** True when the provider answered from its cache. */
  cached?: boolean;
  /** Tokens of every judge call made to grade this case (LLM graders), when the judge reports them. */
  judgeUsage?: TokenUsage;
  /** Summed cost of those judge calls, when known. */
  judgeCostUsd?: number;
  /** Set when the case could not be answered or graded. */
  error?: string;
  /** Who a failed or errored case's failure is on; absent for a passing case. */
  failureClass?: FailureClass;
  traceSummary: TraceSummary | null;
  /** Under `--repeat N`: how the repeats of this case were reduced to this result. */
  repeats?: RepeatSummary;
  trace?: TraceEvent[];
  outputMessages?: OutputMessage[];
  /** What the agent changed in the case's workspace, when it had one. */
  workspace?: WorkspaceSummary;
  /** A conversation case's turns, in order (README, "Conversations"). */
  turns?: ConversationTurnResult[];
  /** Why a conversation case's conversation ended. */
  conversationEnd?: ConversationEnd;
  /** Tokens of the simulated user's calls, when it reports them. */
  simulatorUsage?: TokenUsage;
  /** Summed cost of those calls, when known. */
  simulatorCostUsd?: number;
}

/** The result line's `workspace` summary; the full diff is saved beside the results. */
export interface WorkspaceSummary {
  filesChanged: number;
  insertions: number;
  deletions: number;
  /** Absolute path of the workspace when it was kept (failed, errored, or `--keep-workspaces`). */
  keptAt?: string;
}

/** One provider call of a case, reported as it ends (for trace dumps and verbose logs). */
export interface AttemptRecord {
  evalId: string;
  /** The case's dataset; with `evalFile`, tells apart two cases that share an id. */
  dataset?: string;
  /** Absolute path of the eval file the case came from. */
  evalFile?: string;
  /** Under `--repeat N`: the 1-based repeat this call belongs to; absent in a run without repeats. */
  repeat?: number;
  /** 1-based attempt number (counted again from 1 in each repeat). */
  attempt: number;
  target: string;
  durationMs: number;
  trace: TraceEvent[] | null;
  traceSummary: TraceSummary | null;
  error?: string;
  /** The agent's raw event stream of this call, masked, when its provider keeps one (coding agents). */
  transcript?: string;
}

/** One repeat of a case under `--repeat N`. */
export interface RepeatRun {
  /** 1-based repeat number. */
  repeat: number;
  score: number;
  passed: boolean;
  attempts: number;
  durationMs: number;
  /** True when the provider answered this repeat from its cache. */
  cached?: boolean;
  error?: string;
}

/** The repeats an aggregated result was reduced from. */
export interface RepeatSummary {
  /** The verdict rule as written: `all`, `any`, `majority` or `rate>=X`. */
  rule: string;
  /** How the repeats' scores were reduced to the aggregate's `score`. */
  reducer: string;
  /** Repeats asked for (`--repeat N`); more than `runs.length` when early stop ended the case. */
  planned: number;
  /** True when some repeats passed and others did not. */
  flaky: boolean;
  /** Share of the repeats run that passed. */
  passRate: number;
  /** 1 when at least one of the k = `runs.length` repeats passed, else 0. */
  passAtK: number;
  /** 1 when every one of the k repeats passed, else 0. */
  passHatK: number;
  /** True when `--repeat-early-stop` ended the case before `planned` repeats. */
  earlyStopped?: boolean;
  runs: RepeatRun[];
}
