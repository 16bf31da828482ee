/** Why a conversation ended, as the result line's `conversation_end` says. */
export type ConversationEnd =
  /** Every scripted turn was answered (no simulated user). `budget`: a turn crossed the case's budget. */
  'completed' | 'goal_reached' | 'gave_up' | 'max_turns' | 'budget' | 'error';

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
