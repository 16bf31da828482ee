import type { RecordedTraceRef } from '../provider/recorded-trace.js';
import type { RepeatPassRule } from '../repeats/repeat-pass-rule.js';
import type { WorkspaceConfig } from '../workspace/workspace-config.js';
import type { EvaluatorConfig } from './evaluator-config.js';

/** A text block of a message's content. */
export interface TextContentBlock {
  type: 'text';
  value: string;
}

/** A file attached to a message; `path` is absolute and known to exist. */
export interface FileContentBlock {
  type: 'file';
  /** The path as written in the eval file. */
  value: string;
  /** The absolute path it resolved to. */
  path: string;
  /** True when the file matches `guideline_patterns`. */
  isGuideline: boolean;
}

export type ContentBlock = TextContentBlock | FileContentBlock;

/** An expected tool call in `expected_messages`. */
export interface ExpectedToolCall {
  tool: string;
  input?: unknown;
  output?: unknown;
}

/**
 * A message of an eval case. `content` is normalised: a string becomes one
 * text block; a JSON object stays an object (`structured`).
 */
export interface EvalMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  name?: string;
  content: ContentBlock[];
  /** Present when content was a JSON object. */
  structured?: Record<string, unknown>;
  toolCalls?: ExpectedToolCall[];
}

/** One criterion of a case's `rubrics:`, defaults applied. */
export interface RubricItem {
  /** As written, else `rubric-<n>` (1-based position in the list). */
  id: string;
  description: string;
  /** Default 1. */
  weight: number;
  /** Default true: the case cannot pass when this criterion is missed. */
  required: boolean;
}

/** Where an evaluator (or one of its options) is written in the eval file. */
export interface EvaluatorPosition {
  /** 1-based. */
  line: number;
  /** 1-based. */
  column: number;
  /**
   * It is written in the file's `execution.evaluators`, shared by the cases
   * without their own: a problem with it is the file's, not one case's.
   */
  shared?: true;
}

/**
 * What a case may spend answering (all its attempts): crossing a limit fails the case
 * with `failure_class: budget`; a provider that reports usage as it goes is stopped there.
 */
export interface CaseBudget {
  maxCostUsd?: number;
  /** Input + output tokens of the agent's calls. */
  maxTokens?: number;
  maxDurationSeconds?: number;
}

/** One eval case, loaded and validated, with everything resolved. */
export interface EvalCase {
  id: string;
  /** The file's `dataset`, default the file name without extension. */
  dataset: string;
  /** Absolute path of the eval file. */
  filePath: string;
  /** 1-based line of the case in the eval file. */
  line?: number;
  /** 1-based column of the case in the eval file (set with `line`). */
  column?: number;
  /**
   * Where the case's evaluators are written in the eval file (`evaluatorPositions`):
   * issues about an evaluator point at it, not at its case.
   */
  evaluatorPositions?: Record<string, EvaluatorPosition>;
  expectedOutcome?: string;
  inputMessages: EvalMessage[];
  expectedMessages: EvalMessage[];
  conversationId?: string;
  /** The case's target override, else the file's target; undefined means "default". */
  target?: string;
  /**
   * `execution.targets` of the case, else of the file: the case runs against
   * each of them (wins over `target`). `--target` wins over both.
   */
  targets?: string[];
  /** `execution.judge_target` of the case, else of the file. */
  judgeTarget?: string;
  /**
   * Where the target names the case runs against are written in the eval file
   * (`target.<name>`, and `judge_target`): an unknown target is reported at its name.
   */
  targetPositions?: Record<string, { line: number; column: number }>;
  /** The evaluators that grade this case (case-level, else file defaults). */
  evaluators: EvaluatorConfig[];
  /**
   * Set when the case would use the file's `execution.evaluators` and that list
   * has errors, or is under a misspelt key (in a `tests:` file also its suite-level
   * `assertions:`), reported where it is written:
   * `evaluators` is then empty, and the case is not reported as having none.
   */
  sharedEvaluatorsInvalid?: true;
  /**
   * Set when the case lists graders or rubrics under a misspelt key of its own or of its
   * `execution` (`evaluator:`; `assertion:` in a `tests:` file), an error reported at that key:
   * when `evaluators` is then empty, the case is not also reported as having none.
   */
  evaluatorsMisspelt?: true;
  /**
   * Set for a case of a `tests:` file (AgentV 2.7–4.x's format, translated): messages about it
   * name keys as that format spells them (`assertions:`, not `evaluators:`).
   */
  testsFormat?: true;
  /**
   * The file's `execution.repeat` (AgentV 4.x's `trials`): how often the run
   * repeats its cases when `--repeat` is not given.
   */
  repeat?: { count: number; reducer: 'mean' | 'pass_at_k' };
  /** Pass mark for the case score, from the file's `execution.threshold`. */
  threshold?: number;
  /** `execution.repeat_pass` of the case, else of the file: the verdict of its repeats under `--repeat N`. */
  repeatPass?: RepeatPassRule;
  /** `max_cost_usd`, `max_tokens`, `max_duration_seconds` of the case's `execution:`, each else the file's. */
  budget?: CaseBudget;
  /** The descriptions of the case's rubric criteria. */
  rubrics?: string[];
  /** The case's rubric criteria with id, weight and required flag (same order as `rubrics`). */
  rubricItems?: RubricItem[];
  /** The file's `tags` followed by the case's own, each once; absent when neither has any. */
  tags?: string[];
  /** The case's `vars` (a CSV dataset's other columns), as written. */
  vars?: Record<string, unknown>;
  /**
   * The case's `workspace:` block merged over the file's; absent when neither
   * declares one. Cases of one file that do not override it share one object.
   */
  workspace?: WorkspaceConfig;
  /**
   * Set for a conversation (`turns:` and/or `simulated_user:`): the agent is asked
   * turn by turn; `inputMessages` is what comes before the first turn (often empty),
   * and `evaluators` grade the whole conversation.
   */
  conversation?: Conversation;
  /**
   * `trace: { source, path }`: a session recorded outside AgentV answers the case; its
   * target is never called (README, "Sessions and trace files as answers").
   */
  recordedTrace?: RecordedTraceRef;
}

/** A loaded eval file. */
export interface EvalFile {
  filePath: string;
  dataset: string;
  description?: string;
  /** Absolute path of the dataset named by `cases:`, when it exists; its cases are in `cases`. */
  casesFile?: string;
  /** True when the file declares `targets:` inline (loaded by `loadInlineTargets`). */
  declaresTargets?: boolean;
  /**
   * Absolute paths its workspace blocks copy from or read: template folders,
   * local repositories, workspace files. YAML files there are not eval files.
   */
  workspaceSources?: string[];
  /** Set (with `partial`) when the file has neither `evalcases` nor `cases`: maybe not an eval file at all. */
  noCases?: true;
  cases: EvalCase[];
}

/** How the scores of a conversation's graded turns become one grade. */
export type TurnAggregation = 'all' | 'mean' | 'last' | 'min';

/** One scripted user turn of a case's `turns:`. */
export interface ConversationTurn {
  /** The user's message(s) of this turn, appended to the conversation before the agent answers. */
  messages: EvalMessage[];
  /** Graders of this turn's answer (none: the turn is not graded). */
  evaluators: EvaluatorConfig[];
  /** Where those evaluators are written in the eval file. */
  evaluatorPositions?: Record<string, EvaluatorPosition>;
  /** What a good answer to this turn achieves, for this turn's LLM judges. */
  expectedOutcome?: string;
  /** 1-based line of the turn in the eval file (absent for dataset rows). */
  line?: number;
}

/** The `simulated_user:` block, defaults applied. */
export interface SimulatedUser {
  /** The target (an LLM) that plays the user. */
  target: string;
  persona?: string;
  goal: string;
  /** The most user turns of the conversation, scripted ones included (default 10). */
  maxTurns: number;
  stopWhen?: string;
  /** Sent as the first simulated turn without asking the simulator. */
  firstMessage?: string;
}

/** The conversation of a case with `turns:` or `simulated_user:`. */
export interface Conversation {
  /** Scripted user turns, asked first, in order; empty when the simulated user starts. */
  turns: ConversationTurn[];
  simulatedUser?: SimulatedUser;
  /** Default `all`. */
  aggregation: TurnAggregation;
}
