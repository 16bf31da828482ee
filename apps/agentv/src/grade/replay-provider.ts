import path from 'node:path';
import type { EvalCase } from '@agentv/core';
import {
  PROVIDER_SPECIFICATION_VERSION,
  type Provider,
  ProviderError,
  type ProviderFactory,
  type ProviderRequest,
  type ProviderResponse,
  parseOutputMessages,
  parseTokenUsage,
} from '@agentv/core/provider-utils';
import type { ConversationTurnRecord, ResultRecord } from '@agentv/results';

/** The `provider:` kind of the stand-in targets `agentv grade` runs; not a kind users write. */
export const REPLAY_PROVIDER_KIND = 'agentv-replay';

/** Recorded answers by target, then by case (see `replayKey`). */
export type RecordedAnswers = Map<string, Map<string, ResultRecord>>;

/**
 * What identifies a case in a provider request: its eval file's folder,
 * dataset and id (a request does not name the eval file itself).
 */
export function replayKey(evalCase: Pick<EvalCase, 'filePath' | 'dataset' | 'id'>): string {
  return JSON.stringify([path.dirname(evalCase.filePath), evalCase.dataset, evalCase.id]);
}

function requestKey(request: ProviderRequest): string {
  return JSON.stringify([
    request.evalDir ?? '',
    String(request.metadata?.dataset ?? ''),
    request.evalCaseId,
  ]);
}

/**
 * A provider factory whose providers answer from a result file instead of an
 * agent: the recorded answer text, trace, output messages, token usage, cost
 * and duration of the case. Nothing is started and nothing is called.
 */
export function replayProviderFactory(answers: RecordedAnswers): ProviderFactory {
  return {
    kind: REPLAY_PROVIDER_KIND,
    create(target): Provider {
      const byCase = answers.get(target.name) ?? new Map<string, ResultRecord>();
      return {
        specificationVersion: PROVIDER_SPECIFICATION_VERSION,
        id: `${REPLAY_PROVIDER_KIND}:${target.name}`,
        kind: REPLAY_PROVIDER_KIND,
        targetName: target.name,
        async invoke(request) {
          const record = byCase.get(requestKey(request));
          if (record === undefined) {
            // The grade command plans only cases with a recorded answer; this is a bug.
            throw new ProviderError(`no recorded answer for case "${request.evalCaseId}"`, {
              retryable: false,
            });
          }
          if (request.metadata?.purpose === 'simulated_user') {
            return { text: replaySimulatorReply(record, request.metadata.turn) };
          }
          const turn = request.conversation?.turn;
          if (turn !== undefined && record.turns !== undefined) {
            const recordedTurn = record.turns[turn - 1];
            if (recordedTurn === undefined) {
              throw new ProviderError(
                `case "${request.evalCaseId}" has no recorded turn ${turn} (the recorded conversation has ${record.turns.length}); its eval file now scripts more turns`,
                { retryable: false },
              );
            }
            return replayTurn(recordedTurn);
          }
          return replayResponse(record);
        },
      };
    },
  };
}

/** The provider response a result line recorded. */
export function replayResponse(record: ResultRecord): ProviderResponse {
  const response: ProviderResponse = { text: record.candidate_answer };
  if (record.trace) response.trace = record.trace;
  const outputMessages = parseOutputMessages(record.output_messages);
  if (outputMessages !== undefined) response.outputMessages = outputMessages;
  const usage = parseTokenUsage(record.usage);
  if (usage !== undefined) response.usage = usage;
  if (record.cost_usd !== undefined) response.costUsd = record.cost_usd;
  response.durationMs = record.duration_ms;
  if (record.cached === true) response.cached = true;
  return response;
}

/** The agent's recorded answer to one turn of a conversation. */
function replayTurn(turn: ConversationTurnRecord): ProviderResponse {
  const response: ProviderResponse = { text: turn.answer, durationMs: turn.duration_ms };
  if (turn.trace) response.trace = turn.trace;
  const usage = parseTokenUsage(turn.usage);
  if (usage !== undefined) response.usage = usage;
  if (turn.cost_usd !== undefined) response.costUsd = turn.cost_usd;
  if (turn.cached === true) response.cached = true;
  return response;
}

/**
 * What the simulated user said before turn `turn` of the recorded conversation: the recorded
 * message of a simulated turn, else how the conversation ended (`goal_reached`, `gave_up`; after
 * `max_turns` any message, which ends it again at max_turns).
 */
function replaySimulatorReply(record: ResultRecord, turn: unknown): string {
  const recorded = typeof turn === 'number' ? record.turns?.[turn - 1] : undefined;
  if (recorded?.source === 'simulated') return JSON.stringify({ message: recorded.user_message });
  const end = record.conversation_end;
  if (end === 'goal_reached' || end === 'gave_up') return JSON.stringify({ stop: end });
  return JSON.stringify({ message: '(the recorded conversation ended here)' });
}
