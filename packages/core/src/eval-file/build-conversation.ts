import type { Issue } from '../errors/input-issue.js';
import type { SourceLocator } from '../yaml/yaml-source.js';
import { buildMessages, buildMessagesWithoutFiles } from './build-messages.js';
import { DEFAULT_MAX_TURNS } from './conversation.js';
import type { Conversation, ConversationTurn, EvalMessage } from './eval-case.js';
import type { EvalCaseParsed } from './eval-file-schema.js';
import type { EvaluatorConfig } from './evaluator-config.js';
import { evaluatorPositions } from './evaluator-positions.js';
import type { FileLookup } from './resolve-input-file.js';

/** What `buildConversation` needs from the loader. */
export interface ConversationContext {
  file: string;
  source: SourceLocator;
  /** Data path of the case, e.g. `['evalcases', 0]`. */
  casePath: readonly PropertyKey[];
  caseId: string;
  lookup: FileLookup;
  issues: Issue[];
  /** Names and checks an evaluator list written at `path` (the loader's own rules). */
  readEvaluators(list: unknown, path: readonly PropertyKey[]): Promise<EvaluatorConfig[]>;
}

/**
 * The conversation of a case with `turns:` and/or `simulated_user:`, or
 * undefined for a plain case. A turn must give exactly one of `input` and
 * `input_messages`; problems are error issues at the turn's `file:line`.
 */
export async function buildConversation(
  input: EvalCaseParsed,
  context: ConversationContext,
): Promise<Conversation | undefined> {
  if (input.turns === undefined && input.simulated_user === undefined) return undefined;
  const turns: ConversationTurn[] = [];
  for (const [index, written] of (input.turns ?? []).entries()) {
    const turn = await buildTurn(written, index, context);
    if (turn !== undefined) turns.push(turn);
  }
  const conversation: Conversation = { turns, aggregation: input.aggregation ?? 'all' };
  const simulated = input.simulated_user;
  if (simulated !== undefined) {
    conversation.simulatedUser = {
      target: simulated.target,
      goal: simulated.goal,
      maxTurns: simulated.max_turns ?? DEFAULT_MAX_TURNS,
      ...(simulated.persona === undefined ? {} : { persona: simulated.persona }),
      ...(simulated.stop_when === undefined ? {} : { stopWhen: simulated.stop_when }),
      ...(simulated.first_message === undefined ? {} : { firstMessage: simulated.first_message }),
    };
    if (conversation.simulatedUser.maxTurns < turns.length) {
      context.issues.push({
        severity: 'error',
        file: context.file,
        ...context.source.locate([...context.casePath, 'simulated_user', 'max_turns']),
        caseId: context.caseId,
        message: `simulated_user.max_turns (${conversation.simulatedUser.maxTurns}) is less than the ${turns.length} scripted turns`,
        hint: 'max_turns counts every user turn, the scripted ones included: raise it, or script fewer turns',
      });
    }
  }
  return conversation;
}

type TurnInput = NonNullable<EvalCaseParsed['turns']>[number];

async function buildTurn(
  written: TurnInput,
  index: number,
  context: ConversationContext,
): Promise<ConversationTurn | undefined> {
  const turnPath = [...context.casePath, 'turns', index];
  const at = context.source.locate(turnPath);
  const both = written.input !== undefined && written.input_messages !== undefined;
  if (both || (written.input === undefined && written.input_messages === undefined)) {
    context.issues.push({
      severity: 'error',
      file: context.file,
      ...at,
      caseId: context.caseId,
      message: `turn ${index + 1} ${both ? 'gives both input and input_messages' : 'has no input'}`,
      hint: 'give each turn its message as `input: "..."` or as `input_messages: [{role: user, content: "..."}]`, one of the two',
    });
    return undefined;
  }
  let messages: EvalMessage[];
  if (written.input !== undefined) {
    messages = [{ role: 'user', content: [{ type: 'text', value: written.input }] }];
  } else {
    const list = written.input_messages!;
    messages =
      buildMessagesWithoutFiles(list) ??
      (await buildMessages(list, {
        file: context.file,
        source: context.source,
        path: [...turnPath, 'input_messages'],
        caseId: context.caseId,
        lookup: context.lookup,
        issues: context.issues,
      }));
  }
  const turn: ConversationTurn = { messages, evaluators: [] };
  if (at !== undefined) turn.line = at.line;
  if (written.expected_outcome !== undefined) turn.expectedOutcome = written.expected_outcome;
  if (written.evaluators !== undefined) {
    const listPath = [...turnPath, 'evaluators'];
    turn.evaluators = await context.readEvaluators(written.evaluators, listPath);
    turn.evaluatorPositions = evaluatorPositions(turn.evaluators, listPath, context.source);
  }
  return turn;
}
