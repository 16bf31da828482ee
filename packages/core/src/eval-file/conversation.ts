import type { EvalMessage, EvaluatorPosition } from './eval-case.js';
import type { EvaluatorConfig } from './evaluator-config.js';

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

/** Why a conversation ended, as the result line's `conversation_end` says. */
export type ConversationEnd =
  /** Every scripted turn was answered (no simulated user). */
  'completed' | 'goal_reached' | 'gave_up' | 'max_turns' | 'error';

export const DEFAULT_MAX_TURNS = 10;

/** One exchange of a conversation as graders see it. */
export interface TranscriptTurn {
  /** The user's message(s) of the turn, as text. */
  user: string;
  /** The agent's answer. */
  answer: string;
}

/** A conversation as conversation-level graders see it. */
export interface ConversationTranscript {
  /** The answered turns, in order. */
  turns: TranscriptTurn[];
  end: ConversationEnd;
  /** Set when one turn's answer is graded (a turn's own grader): its 1-based number. */
  turn?: number;
}

/** The transcript as text, `User:` / `Assistant:` paragraphs: `{{ conversation }}` in judge prompts. */
export function transcriptText(transcript: ConversationTranscript): string {
  return transcript.turns
    .map((turn) => `User: ${turn.user.trim()}\n\nAssistant: ${turn.answer.trim()}`)
    .join('\n\n');
}
