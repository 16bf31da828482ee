import type { EvaluatorResult } from '../evaluators/evaluator.js';
import type { TokenUsage } from '../provider/provider-response.js';
import type { TraceEvent } from '../trace/trace-event.js';
import type { TraceSummary } from '../trace/trace-summary.js';

/** One turn of a conversation case's result (the result line's `turns[]`). */
export interface ConversationTurnResult {
  /** 1-based. */
  turn: number;
  /** Who wrote the user's message: the eval file's `turns:` or the simulated user. */
  source: 'scripted' | 'simulated';
  /** The user's message(s) of the turn, as text. */
  userMessage: string;
  /** The agent's answer ('' when the turn errored). */
  answer: string;
  /** This turn's provider calls only. */
  traceSummary: TraceSummary | null;
  trace?: TraceEvent[];
  /** The turn's own graders (empty when it has none). */
  evaluatorResults: EvaluatorResult[];
  /** Set when the turn has graders. */
  score?: number;
  passed?: boolean;
  attempts: number;
  durationMs: number;
  usage?: TokenUsage;
  costUsd?: number;
  cached?: boolean;
  error?: string;
}
