import type { Issue } from '../errors/input-issue.js';
import type { ConversationTranscript } from '../eval-file/conversation.js';
import type { EvalCase } from '../eval-file/eval-case.js';
import type { EvaluatorConfig } from '../eval-file/evaluator-config.js';
import type { ChatMessage } from '../provider/chat-message.js';
import type { ProviderResponse, TokenUsage } from '../provider/provider-response.js';
import type { Sandbox } from '../sandbox/sandbox-runtime.js';
import type { OutputMessage } from '../trace/output-message.js';
import type { TraceEvent } from '../trace/trace-event.js';
import type { TraceSummary } from '../trace/trace-summary.js';
import type { FileChanges } from '../workspace/file-changes.js';

/** Verdict of one evaluator score: `pass` >= 0.8, `borderline` >= 0.6, else `fail`. */
export type Verdict = 'pass' | 'borderline' | 'fail';

/** What an evaluator gets to grade one answer. */
export interface EvaluationContext {
  evalCase: EvalCase;
  /** The prompt exactly as the candidate saw it. */
  question: string;
  /** The text of the last expected assistant message, if any. */
  referenceAnswer?: string;
  candidateAnswer: string;
  /** The normalised trace (derived from output messages when the provider gave none). */
  trace?: TraceEvent[];
  traceSummary: TraceSummary | null;
  outputMessages?: OutputMessage[];
  /** Token counts the provider reported for the answer (none when it reported none). */
  usage?: TokenUsage;
  /** Cost the provider reported (or was priced) for the answer, in USD. */
  costUsd?: number;
  /** The case's `duration_ms`: the time it spent being answered. */
  durationMs?: number;
  guidelineFiles: string[];
  inputFiles: string[];
  /** Aborted when the run is interrupted. */
  signal?: AbortSignal;
  /**
   * The environment judge scripts start from: the project's (the shell's
   * variables over `.env`). Default `process.env`.
   */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * Asks the judge target; set when one of the case's graders declares
   * `needsJudge` (`llm_judge`, `rubric`, a `composite` that asks one).
   */
  judge?: Judge;
  /** The registry grading the case; `composite` runs its members with it (set by `gradeCase`). */
  evaluators?: EvaluatorRegistry;
  /**
   * Reports what a user should know about one grader's grade of `evalCase` that
   * does not stop it (a score outside 0–1); `grader` names it as `"name" (type)`.
   * The run prints it, naming the case. One function serves a whole run.
   */
  warn?: (evalCase: EvalCase, grader: string, message: string) => void;
  /**
   * The case's workspace, when it has one: graders that judge what the agent
   * left behind (`command`, `file`, `diff`, `code_judge`) read it. `changes` is
   * computed once, after the agent ran.
   */
  workspace?: CaseWorkspace;
  /**
   * Set when a conversation-level grader grades a conversation case: every
   * answered turn and why it ended (`{{ conversation }}` in judge prompts).
   */
  conversation?: ConversationTranscript;
}

/** A case's workspace as graders see it. */
export interface CaseWorkspace {
  /** Absolute path; graders that run processes run them here. */
  path: string;
  changes: FileChanges;
  /** The sandbox holding the workspace at `/workspace`, when it has one (`in_sandbox` graders run there). */
  sandbox?: Sandbox;
}

/** What an evaluator returns. Scores are clamped to [0, 1]. */
export interface EvaluationScore {
  score: number;
  hits: string[];
  misses: string[];
  reasoning?: string;
  /** Overrides the verdict derived from the score (a rubric with a missed required item is `fail`). */
  verdict?: Verdict;
  /** When true the case fails whatever its score or threshold (a missed required rubric item). */
  failsCase?: boolean;
  /** Evaluator-specific structured outcome, snake_case keys (`rubric`: `{items: [...]}`). */
  details?: Record<string, unknown>;
  /** True when the judge's reply came from the LLM call cache (nothing was asked). */
  cached?: boolean;
  /** The results of a `composite`'s members, in order. */
  members?: EvaluatorResult[];
}

/** One evaluator's graded outcome, as stored on the result. */
export interface EvaluatorResult {
  name: string;
  type: string;
  score: number;
  weight: number;
  verdict: Verdict | 'error';
  hits: string[];
  misses: string[];
  reasoning?: string;
  /** Set when the evaluator could not run; the case is then an error. */
  error?: string;
  /** True when this result fails the case whatever the score (a missed required rubric item). */
  failsCase?: boolean;
  /** Evaluator-specific structured outcome, snake_case keys; `rubric` puts `items` here. */
  details?: Record<string, unknown>;
  /** True when the judge's reply came from the LLM call cache (nothing was asked). */
  cached?: boolean;
  /** A `composite`'s member results, in order (nested composites nest). */
  members?: EvaluatorResult[];
  /** The config's `negate: true` inverted it: score 1 - s, hits and misses swapped. */
  negated?: boolean;
  /** The named metric (`metric:` in its config) its score counts toward. */
  metric?: string;
}

/** An evaluator implementation for one `type`. */
export interface Evaluator {
  readonly type: string;
  /**
   * The option keys it reads besides `name`, `type`, `weight`, `negate` and `metric`. When given,
   * any other key of its config is reported before the run as unknown (with a
   * did-you-mean), like a misspelt key anywhere else in an eval file.
   */
  readonly options?: readonly string[];
  /**
   * Whether grading a config asks the judge target: `true` for every config of
   * this type, or a function for a type that asks only with some options (a
   * `composite` whose aggregator or a member asks). The planner then resolves,
   * and requires, a judge target for the case, and `evaluate` gets it as
   * `context.judge`; without it `context.judge` is unset. Default false.
   */
  readonly needsJudge?:
    | boolean
    | ((config: EvaluatorConfig, registry: EvaluatorRegistry) => boolean);
  /**
   * Whether grading a config reads the case's workspace (`context.workspace`):
   * `true` for every config of this type (`command`, `file`, `diff`), or a
   * function for a type that does only with some options (a `composite` with
   * such a member). A case without a workspace is then reported before the run
   * (`workspaceGraderIssues`), and grading it is an evaluator error. Default false.
   */
  readonly needsWorkspace?:
    | boolean
    | ((config: EvaluatorConfig, registry: EvaluatorRegistry) => boolean);
  /**
   * Check an evaluator config before the run; return every problem (empty
   * when valid), each with `path` set to the option it is about (`['script']`).
   */
  validate?(config: EvaluatorConfig, registry?: EvaluatorRegistry): Issue[];
  /** Grade one answer. Throw `EvaluatorError` when the evaluator cannot run. */
  evaluate(config: EvaluatorConfig, context: EvaluationContext): Promise<EvaluationScore>;
  /**
   * The grade `evaluate` gives, returned at once: for a grader that never waits for anything
   * (`contains`, `equals`, `regex`…). When it is there AgentV calls it instead of `evaluate`,
   * so a case graded only by such graders is graded without a promise; `evaluate` must give
   * the same grade (a throw there is a rejection).
   */
  evaluateNow?(config: EvaluatorConfig, context: EvaluationContext): EvaluationScore;
}

/** Resolves an evaluator config's `type` to its implementation. */
export interface EvaluatorRegistry {
  /** Adds an evaluator; registering a type twice is a programming error and throws. */
  register(evaluator: Evaluator): EvaluatorRegistry;
  has(type: string): boolean;
  /** The evaluator for `type`; an unknown type throws an `AgentvError` listing the known types. */
  get(type: string): Evaluator;
  /** Registered types, sorted. */
  types(): string[];
  /**
   * Problems with a config before the run: an unknown type, or whatever the
   * evaluator's own `validate` reports. Empty when the config is valid.
   */
  validate(config: EvaluatorConfig): Issue[];
}

/** One question to the judge. */
export interface JudgeRequest {
  /** The whole prompt as one string (what `cli` judges get). */
  question: string;
  /** The same prompt as messages (what chat providers get); default one user message. */
  chatPrompt?: ChatMessage[];
  evalCaseId: string;
  /** 0-based; a re-asked question (unparseable reply) increases it. */
  attempt: number;
  /** Ask the model itself even when a cached answer exists (a re-asked question). */
  refresh?: boolean;
  signal?: AbortSignal;
  /** The eval file's folder: a `cli` judge's relative `cwd` resolves against it. */
  evalDir?: string;
  /** Passed on to the provider. */
  metadata?: Record<string, unknown>;
}

/** The judge target, as graders see it: any provider (`cli`, `mock`, an LLM) can be one. */
export interface Judge {
  /** The judge target's name, for messages. */
  readonly targetName: string;
  /**
   * A `--dry-run` stand-in: graders do not ask it and grade as if every check
   * passed (each grader knows the reply shape it expects).
   */
  readonly dryRun?: boolean;
  /** Asks the judge; a retryable provider failure is retried, the last failure throws `EvaluatorError`. */
  ask(request: JudgeRequest): Promise<ProviderResponse>;
}
