import path from 'node:path';
import { type ConversationTranscript, transcriptText } from '../eval-file/conversation.js';
import type { SimulatedUser } from '../eval-file/eval-case.js';
import type { Judge } from '../evaluators/evaluator.js';
import { extractJudgeJson } from '../evaluators/extract-judge-json.js';
import { createJudge } from '../evaluators/judge.js';
import type { TokenUsage } from '../provider/provider-response.js';
import { addTokenUsage } from '../provider/token-usage.js';
import { retryPolicyFor, verboseLog } from './case-retries.js';
import { messageOf } from './failure-message.js';
import type { PlannedCase } from './plan-run.js';
import { openProvider, type RunState } from './run-state.js';

/** What the simulated user said: its next message, or why the conversation ends. */
export type SimulatorReply =
  | { message: string }
  | { stop: 'goal_reached' | 'gave_up' }
  | { error: string };

/** The reply contract that goes out with every question to the simulated user. */
export const SIMULATOR_REPLY_CONTRACT = `Reply with one JSON object and nothing else:
{"message": "<your next message as the user>"} to go on, or
{"stop": "goal_reached"} when your goal is reached, or
{"stop": "gave_up"} when the assistant cannot or will not help and you would give up.`;

/** The instructions of the simulated user, its reply contract last. */
export function simulatorInstructions(user: SimulatedUser): string {
  const lines = [
    'You play the user in a conversation with an assistant. Stay in character: write only what this user would write, one message at a time, and never act as the assistant.',
    '',
  ];
  if (user.persona !== undefined) lines.push(`Who you are: ${user.persona.trim()}`);
  lines.push(`Your goal: ${user.goal.trim()}`);
  if (user.stopWhen !== undefined) {
    lines.push(`Your goal counts as reached when: ${user.stopWhen.trim()}`);
  }
  lines.push('', SIMULATOR_REPLY_CONTRACT);
  return lines.join('\n');
}

/** The question to the simulated user: the conversation so far. */
export function simulatorQuestion(transcript: ConversationTranscript): string {
  return transcript.turns.length === 0
    ? 'The conversation has not started yet. Write your first message.'
    : `The conversation so far:\n\n${transcriptText(transcript)}\n\nWhat do you reply?`;
}

/**
 * Reads the simulated user's reply: `{"message": text}` or `{"stop": "goal_reached" | "gave_up"}`;
 * a problem as text.
 */
export function parseSimulatorReply(text: string): SimulatorReply | string {
  const value = extractJudgeJson(text);
  if (value === undefined) return 'it holds no JSON object';
  if (value.stop !== undefined) {
    if (value.stop === 'goal_reached' || value.stop === 'gave_up') return { stop: value.stop };
    return `"stop" must be "goal_reached" or "gave_up", got ${JSON.stringify(value.stop)}`;
  }
  if (typeof value.message === 'string' && value.message.trim() !== '') {
    return { message: value.message };
  }
  return 'it has neither a non-empty "message" nor a "stop"';
}

/** The simulated user of one conversation; it adds up the tokens and cost of its calls. */
export interface Simulator {
  /** Asks for the user's next message after `transcript` (`turn`: the 1-based turn it would be). */
  next(transcript: ConversationTranscript, turn: number): Promise<SimulatorReply>;
  usage?: TokenUsage;
  costUsd?: number;
}

/**
 * The simulated user of `planned` (its `simulated_user` and planned target): a bad
 * reply is asked again once, with the cache skipped; a failed call or a second bad
 * reply is an `error` reply naming the target.
 */
export function simulatorFor(
  planned: PlannedCase,
  run: RunState,
  conversationId: string,
): Simulator {
  const user = planned.evalCase.conversation!.simulatedUser!;
  const target = planned.simulatorTarget!;
  const instructions = simulatorInstructions(user);
  const { evalCase } = planned;
  let asker: Judge | undefined;
  const simulator: Simulator = {
    async next(transcript, turn) {
      try {
        asker ??= askerFor(planned, run);
      } catch (error) {
        return { error: `simulated user "${target.name}" cannot be started: ${messageOf(error)}` };
      }
      const question = simulatorQuestion(transcript);
      let problem = '';
      for (let attempt = 0; attempt < 2; attempt++) {
        let text: string;
        try {
          const response = await asker.ask({
            question: `${instructions}\n\n${question}`,
            chatPrompt: [
              { role: 'system', content: instructions },
              { role: 'user', content: question },
            ],
            evalCaseId: evalCase.id,
            attempt,
            ...(attempt > 0 ? { refresh: true } : {}),
            evalDir: path.dirname(evalCase.filePath),
            metadata: {
              dataset: evalCase.dataset,
              purpose: 'simulated_user',
              target: planned.target.name,
              conversationId,
              turn,
            },
            ...(run.options.signal === undefined ? {} : { signal: run.options.signal }),
          });
          const usage = addTokenUsage(simulator.usage, response.usage);
          if (usage !== undefined) simulator.usage = usage;
          if (response.costUsd !== undefined) {
            simulator.costUsd = (simulator.costUsd ?? 0) + response.costUsd;
          }
          text = response.text;
        } catch (error) {
          // The asker words failures as a judge's; the cause is the provider's own.
          const cause = (error as { cause?: unknown }).cause ?? error;
          return { error: `simulated user "${target.name}" failed: ${messageOf(cause)}` };
        }
        const reply = parseSimulatorReply(text);
        if (typeof reply !== 'string') return reply;
        problem = `${reply}; the reply was: ${excerpt(text)}`;
      }
      return { error: `simulated user "${target.name}" gave an unusable reply twice: ${problem}` };
    },
  };
  return simulator;
}

function askerFor(planned: PlannedCase, run: RunState): Judge {
  const target = planned.simulatorTarget!;
  const key = `simulated_user\u0000${target.name}`;
  let asker = run.judges.get(key);
  if (asker === undefined) {
    const provider =
      run.providers.get(target.name) ??
      run.judgeProviders.get(target.name) ??
      openProvider(run, target, 'judge');
    asker = createJudge(provider, retryPolicyFor(target, run.options), verboseLog(run.options));
    run.judges.set(key, asker);
  }
  return asker;
}

function excerpt(text: string, max = 200): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > max ? `${oneLine.slice(0, max)}…` : oneLine;
}
