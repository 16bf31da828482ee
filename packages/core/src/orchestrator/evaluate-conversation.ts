import type { FailureClass } from '../errors/failure-class.js';
import type { ConversationEnd, ConversationTranscript } from '../eval-file/conversation.js';
import type { ConversationTurn, EvalCase, EvalMessage } from '../eval-file/eval-case.js';
import type { CaseWorkspace, EvaluationContext, EvaluatorResult } from '../evaluators/evaluator.js';
import { gradeCase } from '../evaluators/grade-case.js';
import { type BuiltPrompt, buildPrompt } from '../prompt/build-prompt.js';
import { messageText } from '../prompt/message-text.js';
import type { Provider } from '../provider/provider.js';
import type { TokenUsage } from '../provider/provider-response.js';
import { addTokenUsage } from '../provider/token-usage.js';
import { summarizeTrace } from '../trace/summarize-trace.js';
import type { TraceEvent } from '../trace/trace-event.js';
import { isoTimestamp } from '../util/iso-timestamp.js';
import { askTurn } from './ask-turn.js';
import { addSpend, budgetOverrun, CaseBudgetGuard, type CaseSpend } from './case-budget.js';
import type { CaseContext } from './case-context.js';
import { errorResult, overBudget } from './case-steps.js';
import {
  changesIfKnown,
  type HeldWorkspace,
  holdWorkspace,
  workspaceForGraders,
} from './case-workspace.js';
import { combineResults, turnsResult } from './conversation-grade.js';
import type { ConversationTurnResult } from './conversation-turn-result.js';
import type { EvaluationResult } from './evaluation-result.js';
import { messageOf } from './failure-message.js';
import { judgeFor, meteredJudge } from './judge-for.js';
import type { PlannedCase } from './plan-run.js';
import type { RunState } from './run-state.js';
import { type Simulator, simulatorFor } from './simulated-user.js';

/**
 * Runs a conversation case (`evalCase.conversation`): the scripted turns in order,
 * then the simulated user's until it stops or `max_turns`; each turn the agent gets
 * the conversation so far. Each scripted turn is graded by its own graders, then the
 * whole conversation by the case's. A turn the agent could not answer (after its
 * retries) or a simulated user that failed ends the conversation with
 * `conversation_end: error`, the case's error. The case's budget holds for the agent's
 * turns together: a turn that crosses it ends the conversation with `conversation_end:
 * budget` (a running call is stopped), and the case fails without its conversation-level
 * graders. Throws only a `WorkspaceSetupError`.
 */
export async function evaluateConversation(
  planned: PlannedCase,
  provider: Provider,
  run: RunState,
): Promise<EvaluationResult> {
  const context: CaseContext = { planned, run, started: Date.now() };
  const { evalCase } = planned;
  let opening: BuiltPrompt;
  try {
    opening = await buildPrompt(evalCase);
  } catch (error) {
    return errorResult(context, 0, `could not build the prompt: ${messageOf(error)}`, 'infra');
  }
  let held: HeldWorkspace | undefined;
  if (evalCase.workspace !== undefined) {
    const taken = await holdWorkspace(context, opening);
    if ('error' in taken) return taken.error;
    held = taken;
  }
  const id = conversationIdOf(planned, run);
  let talk: Talk;
  try {
    talk = await converse(context, provider, id, held);
  } finally {
    provider.endConversation?.(id);
  }
  let workspace: CaseWorkspace | undefined;
  if (held !== undefined && talk.error === undefined && talk.overrun === undefined) {
    const got = await workspaceForGraders(context, held, talk.attempts);
    if ('error' in got) return got.error;
    workspace = got;
  }
  const result = await conversationResult(context, talk, workspace);
  if (held === undefined) return result;
  return held.finish(result, workspace?.changes ?? (await changesIfKnown(held)));
}

/** What happened in a conversation, before it is graded as a whole. */
interface Talk {
  turns: ConversationTurnResult[];
  transcript: ConversationTranscript;
  attempts: number;
  /** Set when the conversation ended with `error`. */
  error?: string;
  /** Whose fault that error is (a failed turn: its call's class; the simulated user: `grader`). */
  errorClass?: FailureClass;
  /** Set when the conversation ended with `budget`: the limit and the measured value. */
  overrun?: string;
  simulator?: Simulator;
  judge?: ReturnType<typeof meteredJudge>;
}

/** `<conversation_id or dataset/id>`, with `#<repeat>` under `--repeat`: a new conversation each repeat. */
function conversationIdOf({ evalCase }: PlannedCase, run: RunState): string {
  const base = evalCase.conversationId ?? `${evalCase.dataset}/${evalCase.id}`;
  return run.options.repeat === undefined ? base : `${base}#${run.options.repeat}`;
}

async function converse(
  context: CaseContext,
  provider: Provider,
  id: string,
  held: HeldWorkspace | undefined,
): Promise<Talk> {
  const { planned, run } = context;
  const { evalCase } = planned;
  const conversation = evalCase.conversation!;
  const simulated = conversation.simulatedUser;
  const history: EvalMessage[] = [...evalCase.inputMessages];
  const transcript: ConversationTranscript = { turns: [], end: 'completed' };
  const shared = judgeFor(planned, run);
  const talk: Talk = { turns: [], transcript, attempts: 0 };
  const { budget } = evalCase;
  // What the agent's turns spent so far (a cached answer spent nothing).
  let spent: CaseSpend = { durationMs: 0 };
  if (shared) talk.judge = meteredJudge(shared);
  if (simulated !== undefined) talk.simulator = simulatorFor(planned, run, id);
  const end = (why: ConversationEnd, error?: string, errorClass?: FailureClass): Talk => {
    transcript.end = why;
    if (error !== undefined) {
      talk.error = error;
      talk.errorClass = errorClass ?? 'grader';
    }
    return talk;
  };
  for (let index = 0; ; index++) {
    const turn = index + 1;
    const scripted: ConversationTurn | undefined = conversation.turns[index];
    let messages: EvalMessage[];
    if (scripted !== undefined) {
      messages = scripted.messages;
    } else if (simulated === undefined) {
      return end('completed');
    } else {
      const first = index === 0 && simulated.firstMessage !== undefined;
      const reply = first
        ? { message: simulated.firstMessage! }
        : await talk.simulator!.next(transcript, turn);
      if ('error' in reply) return end('error', reply.error);
      if ('stop' in reply) return end(reply.stop);
      // Asked after the last allowed turn only to learn whether the goal was reached.
      if (index >= simulated.maxTurns) return end('max_turns');
      messages = [{ role: 'user', content: [{ type: 'text', value: reply.message }] }];
    }
    history.push(...messages);
    const userMessage = messages.map(messageText).join('\n');
    let prompt: BuiltPrompt;
    try {
      prompt = await buildPrompt({ ...evalCase, inputMessages: history });
    } catch (error) {
      return end('error', `turn ${turn}: could not build the prompt: ${messageOf(error)}`, 'infra');
    }
    const turnStarted = Date.now();
    const guard =
      budget === undefined ? undefined : new CaseBudgetGuard(budget, run.options.signal, spent);
    const asked = await askTurn(
      context,
      provider,
      prompt,
      { id, turn, messages: prompt.chatPrompt.slice(-messages.length) },
      held,
      guard,
    );
    guard?.dispose();
    if ('error' in asked) {
      const overrun =
        guard?.overrun === undefined ? undefined : `${guard.overrun} (the agent was stopped)`;
      // A turn the agent did not answer stays in `turns` with its error and no answer.
      talk.attempts += asked.attempts;
      talk.turns.push({
        turn,
        source: scripted ? 'scripted' : 'simulated',
        userMessage,
        answer: '',
        traceSummary: null,
        evaluatorResults: [],
        attempts: asked.attempts,
        durationMs: overrun === undefined ? 0 : Date.now() - turnStarted,
        error: overrun === undefined ? asked.error : `over budget: ${overrun}`,
      });
      if (overrun === undefined) {
        return end('error', `turn ${turn}: ${asked.error}`, asked.failureClass);
      }
      talk.overrun = overrun;
      return end('budget');
    }
    talk.attempts += asked.attempts;
    const { response } = asked;
    history.push({ role: 'assistant', content: [{ type: 'text', value: response.text }] });
    transcript.turns.push({ user: userMessage, answer: response.text });
    const record: ConversationTurnResult = {
      turn,
      source: scripted ? 'scripted' : 'simulated',
      userMessage,
      answer: response.text,
      traceSummary: asked.traceSummary,
      evaluatorResults: [],
      attempts: asked.attempts,
      durationMs: asked.durationMs,
    };
    if (asked.trace !== undefined) record.trace = asked.trace;
    if (response.usage !== undefined) record.usage = response.usage;
    if (response.costUsd !== undefined) record.costUsd = response.costUsd;
    if (response.cached === true) record.cached = true;
    spent = addSpend(spent, {
      usage: response.cached === true ? undefined : response.usage,
      costUsd: response.cached === true ? undefined : response.costUsd,
      durationMs: asked.durationMs,
    });
    if (scripted !== undefined && scripted.evaluators.length > 0) {
      const turnCase: EvalCase = { ...evalCase, evaluators: scripted.evaluators };
      if (scripted.expectedOutcome !== undefined)
        turnCase.expectedOutcome = scripted.expectedOutcome;
      const grade = await gradeCase(
        scripted.evaluators,
        {
          ...graderContext(context, talk),
          evalCase: turnCase,
          question: prompt.question,
          candidateAnswer: response.text,
          trace: asked.trace,
          traceSummary: asked.traceSummary,
          outputMessages: response.outputMessages,
          guidelineFiles: prompt.guidelineFiles,
          inputFiles: prompt.inputFiles,
          conversation: { turns: transcript.turns.slice(), end: 'completed', turn },
        },
        run.options.evaluatorRegistry,
        { threshold: run.options.threshold ?? evalCase.threshold },
      );
      record.evaluatorResults = grade.evaluatorResults;
      record.score = grade.error === undefined ? grade.score : 0;
      record.passed = grade.passed;
      if (grade.error !== undefined) record.error = grade.error;
    }
    talk.turns.push(record);
    // Checked once the turn is graded: its answer is kept, and no further turn is asked.
    const overrun = guard?.overrun ?? budgetOverrun(budget, spent);
    if (overrun !== undefined) {
      talk.overrun = overrun;
      return end('budget');
    }
  }
}

/** What every grader of the conversation gets besides the answer it grades. */
function graderContext(
  { planned, run }: CaseContext,
  talk: Talk,
): Omit<
  EvaluationContext,
  'question' | 'candidateAnswer' | 'traceSummary' | 'guidelineFiles' | 'inputFiles'
> {
  const { options } = run;
  return {
    evalCase: planned.evalCase,
    signal: options.signal,
    evaluators: options.evaluatorRegistry,
    env: options.providerContext?.env,
    judge: talk.judge?.judge,
    warn: run.warnGrader,
  };
}

/** Grades the whole conversation and builds the case's result. */
async function conversationResult(
  context: CaseContext,
  talk: Talk,
  workspace: CaseWorkspace | undefined,
): Promise<EvaluationResult> {
  const { planned, run } = context;
  const { evalCase } = planned;
  const conversation = evalCase.conversation!;
  const trace: TraceEvent[] = talk.turns.flatMap((turn) => turn.trace ?? []);
  const anyTrace = talk.turns.some((turn) => turn.trace !== undefined);
  const traceSummary = anyTrace ? summarizeTrace(trace) : null;
  const answers = talk.turns.map((turn) => turn.answer);
  const results: EvaluatorResult[] = [];
  const fromTurns = turnsResult(talk.turns, conversation.aggregation);
  if (fromTurns !== undefined) results.push(fromTurns);
  let error = talk.error;
  // A conversation cut short by its budget is not graded as a whole: it fails anyway.
  let requiredMissed = false;
  if (
    error === undefined &&
    talk.overrun === undefined &&
    (evalCase.evaluators.length > 0 || fromTurns === undefined)
  ) {
    const grade = await gradeCase(
      evalCase.evaluators,
      {
        ...graderContext(context, talk),
        question: talk.transcript.turns.map((turn) => turn.user).join('\n\n'),
        candidateAnswer: answers.join('\n\n'),
        ...(anyTrace ? { trace } : {}),
        traceSummary,
        guidelineFiles: [],
        inputFiles: [],
        conversation: talk.transcript,
        ...(workspace === undefined ? {} : { workspace }),
      },
      run.options.evaluatorRegistry,
      { threshold: run.options.threshold ?? evalCase.threshold },
    );
    results.push(...grade.evaluatorResults);
    if (grade.error !== undefined) {
      error = grade.error;
      talk.errorClass = 'grader';
    }
    requiredMissed = grade.requiredMissed === true;
  }
  const combined = combineResults(results, run.options.threshold ?? evalCase.threshold);
  // A conversation-level grader under its `required` bar makes the case score 0, as gradeCase does.
  if (requiredMissed) combined.score = 0;
  let usage: TokenUsage | undefined;
  let costUsd: number | undefined;
  for (const turn of talk.turns) {
    // An answer from the cache spent nothing, as a single case's does (`--budget-usd` too).
    usage = addTokenUsage(usage, turn.cached === true ? zeroUsage(turn.usage) : turn.usage);
    if (turn.costUsd !== undefined) costUsd = (costUsd ?? 0) + (turn.cached ? 0 : turn.costUsd);
  }
  const result: EvaluationResult = {
    timestamp: isoTimestamp(),
    evalId: evalCase.id,
    dataset: evalCase.dataset,
    evalFile: evalCase.filePath,
    target: planned.target.name,
    score: error === undefined ? combined.score : 0,
    passed: error === undefined && combined.passed,
    hits: results.flatMap((entry) => entry.hits),
    misses: results.flatMap((entry) => entry.misses),
    reasoning: results
      .filter((entry) => entry.reasoning)
      .map((entry) => `${entry.name}: ${entry.reasoning}`)
      .join('\n'),
    candidateAnswer: answers.at(-1) ?? '',
    evaluatorResults: results,
    attempts: talk.attempts,
    durationMs: Date.now() - context.started,
    traceSummary,
    turns: talk.turns,
    conversationEnd: talk.transcript.end,
  };
  if (evalCase.conversationId !== undefined) result.conversationId = evalCase.conversationId;
  if (usage !== undefined) result.usage = usage;
  if (costUsd !== undefined) result.costUsd = costUsd;
  if (talk.turns.length > 0 && talk.turns.every((turn) => turn.cached === true))
    result.cached = true;
  if (talk.judge?.usage !== undefined) result.judgeUsage = talk.judge.usage;
  if (talk.judge?.costUsd !== undefined) result.judgeCostUsd = talk.judge.costUsd;
  if (talk.simulator?.usage !== undefined) result.simulatorUsage = talk.simulator.usage;
  if (talk.simulator?.costUsd !== undefined) result.simulatorCostUsd = talk.simulator.costUsd;
  if (error !== undefined) {
    result.error = error;
    result.failureClass = talk.errorClass ?? 'agent';
  } else if (!result.passed) {
    result.failureClass = 'agent';
  }
  if (anyTrace) result.trace = trace;
  return talk.overrun === undefined ? result : overBudget(result, talk.overrun);
}

/** Zero tokens, when any were reported. */
function zeroUsage(usage: TokenUsage | undefined): TokenUsage | undefined {
  return usage === undefined ? undefined : { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
}
