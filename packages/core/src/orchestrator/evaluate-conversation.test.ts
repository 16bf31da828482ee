import { describe, expect, it } from 'vitest';
import type { Conversation, EvalCase } from '../eval-file/eval-case.js';
import { createEvaluatorRegistry, defaultEvaluators } from '../evaluators/evaluator-registry.js';
import { mockProviderFactory } from '../provider/mock-provider.js';
import type { Provider } from '../provider/provider.js';
import { createProviderRegistry } from '../provider/provider-registry.js';
import type { ProviderRequest } from '../provider/provider-request.js';
import type { ResolvedTarget } from '../provider/resolved-target.js';
import { planRun } from './plan-run.js';
import { runEvaluation } from './run-evaluation.js';
import type { ProviderRole } from './run-options.js';

const text = (value: string) => [{ type: 'text' as const, value }];

function conversationCase(
  conversation: Partial<Conversation>,
  overrides: Partial<EvalCase> = {},
): EvalCase {
  return {
    id: 'support',
    dataset: 'suite',
    filePath: '/evals/suite.yaml',
    inputMessages: [{ role: 'system', content: text('You are a support agent.') }],
    expectedMessages: [],
    evaluators: [],
    conversation: { turns: [], aggregation: 'all', ...conversation },
    ...overrides,
  };
}

function target(name: string): ResolvedTarget {
  return { name, provider: 'mock', settings: {}, filePath: '/t.yaml', baseDir: '/' };
}

/** A provider answering with `answer`, its requests recorded. */
function scripted(name: string, answer: (request: ProviderRequest) => string) {
  const requests: ProviderRequest[] = [];
  const ended: string[] = [];
  const provider: Provider & { requests: ProviderRequest[]; ended: string[] } = {
    specificationVersion: 'v1',
    id: `scripted:${name}`,
    kind: 'scripted',
    targetName: name,
    requests,
    ended,
    async invoke(request) {
      requests.push(request);
      return { text: answer(request), usage: { inputTokens: 10, outputTokens: 2 }, costUsd: 0.5 };
    },
    endConversation: (id) => ended.push(id),
  };
  return provider;
}

async function run(evalCase: EvalCase, agent: Provider, user?: Provider, repeat?: number) {
  const providerRegistry = createProviderRegistry([mockProviderFactory]);
  const evaluatorRegistry = createEvaluatorRegistry(defaultEvaluators());
  const { plan, issues } = planRun({
    cases: [evalCase],
    targets: [target('default'), target('user_llm')],
    providerRegistry,
    evaluatorRegistry,
  });
  expect(issues).toEqual([]);
  const outcome = await runEvaluation({
    plan,
    providerRegistry,
    evaluatorRegistry,
    createProvider: (resolved: ResolvedTarget, role: ProviderRole) =>
      role === 'target' || user === undefined || resolved.name === 'default' ? agent : user,
    retryPolicy: { baseDelayMs: 1, maxDelayMs: 2 },
    ...(repeat === undefined ? {} : { repeat }),
  });
  return outcome.results[0]!;
}

const lastUser = (request: ProviderRequest) =>
  request.chatPrompt.filter((message) => message.role === 'user').at(-1)!.content;

describe('scripted turns', () => {
  const turns = [
    {
      messages: [{ role: 'user' as const, content: text('I want a refund') }],
      evaluators: [{ name: 'asks', type: 'contains', value: 'order number' }],
    },
    {
      messages: [{ role: 'user' as const, content: text('It is 42') }],
      evaluators: [{ name: 'refunds', type: 'contains', value: 'refunded 42' }],
    },
  ];

  it('asks each turn with the conversation so far and grades each answer', async () => {
    const agent = scripted('default', (request) =>
      lastUser(request) === 'I want a refund'
        ? 'What is your order number?'
        : 'Order 42 is refunded 42.',
    );
    const result = await run(conversationCase({ turns }), agent);
    expect(agent.requests.map((request) => request.chatPrompt)).toEqual([
      [
        { role: 'system', content: 'You are a support agent.' },
        { role: 'user', content: 'I want a refund' },
      ],
      [
        { role: 'system', content: 'You are a support agent.' },
        { role: 'user', content: 'I want a refund' },
        { role: 'assistant', content: 'What is your order number?' },
        { role: 'user', content: 'It is 42' },
      ],
    ]);
    expect(agent.requests.map((request) => request.conversation)).toEqual([
      { id: 'suite/support', turn: 1, messages: [{ role: 'user', content: 'I want a refund' }] },
      { id: 'suite/support', turn: 2, messages: [{ role: 'user', content: 'It is 42' }] },
    ]);
    expect(agent.ended).toEqual(['suite/support']);
    expect(result).toMatchObject({
      passed: true,
      score: 1,
      conversationEnd: 'completed',
      candidateAnswer: 'Order 42 is refunded 42.',
      attempts: 2,
      costUsd: 1,
      usage: { inputTokens: 20, outputTokens: 4 },
    });
    expect(result.turns!.map((turn) => [turn.turn, turn.userMessage, turn.passed])).toEqual([
      [1, 'I want a refund', true],
      [2, 'It is 42', true],
    ]);
    expect(result.evaluatorResults.map((entry) => entry.name)).toEqual(['turns']);
  });

  it('fails under `all` when one turn fails, and passes under `last`', async () => {
    const agent = scripted('default', (request) =>
      lastUser(request) === 'I want a refund' ? 'Sure, refunded.' : 'Order 42 is refunded 42.',
    );
    const all = await run(conversationCase({ turns }), agent);
    expect(all.passed).toBe(false);
    expect(all.misses).toEqual([expect.stringMatching(/^turn 1: /)]);
    const last = await run(conversationCase({ turns, aggregation: 'last' }), agent);
    expect(last.passed).toBe(true);
  });

  it('grades the whole conversation with conversation_turns', async () => {
    const agent = scripted('default', () => 'ok');
    const result = await run(
      conversationCase(
        { turns },
        { evaluators: [{ name: 'short', type: 'conversation_turns', max: 1 }] },
      ),
      agent,
    );
    expect(result.passed).toBe(false);
    expect(result.evaluatorResults.map((entry) => [entry.name, entry.score])).toEqual([
      ['turns', 0],
      ['short', 0],
    ]);
    expect(result.misses).toContain('2 turns (expected at most 1)');
  });

  it('scores the case 0 when a required conversation grader misses its bar', async () => {
    const agent = scripted('default', (request) =>
      lastUser(request) === 'I want a refund'
        ? 'What is your order number?'
        : 'Order 42 is refunded 42.',
    );
    const result = await run(
      conversationCase(
        { turns },
        {
          threshold: 0.5,
          evaluators: [{ name: 'short', type: 'conversation_turns', max: 1, required: true }],
        },
      ),
      agent,
    );
    expect(result).toMatchObject({ passed: false, score: 0 });
    expect(result.misses[0]).toMatch(
      /^required grader "short" \(conversation_turns\) scored 0\.00/,
    );
  });

  it('gives each repeat a conversation of its own', async () => {
    const agent = scripted('default', () => 'ok');
    await run(conversationCase({ turns: turns.slice(0, 1) }), agent, undefined, 2);
    expect(agent.requests[0]!.conversation!.id).toBe('suite/support#2');
  });
});

describe('simulated user', () => {
  const simulated = (maxTurns = 3) =>
    conversationCase(
      {
        simulatedUser: { target: 'user_llm', goal: 'get a refund', maxTurns, persona: 'terse' },
      },
      { evaluators: [{ name: 'goal_reached', type: 'goal_reached' }] },
    );
  const agent = () => scripted('default', (request) => `answer ${request.conversation!.turn}`);

  it('runs until the user reaches its goal', async () => {
    const user = scripted('user_llm', (request) =>
      request.question.includes('answer 2')
        ? '```json\n{"stop": "goal_reached"}\n```'
        : '{"message": "more please"}',
    );
    const result = await run(simulated(), agent(), user);
    expect(result).toMatchObject({
      passed: true,
      conversationEnd: 'goal_reached',
      simulatorCostUsd: 1.5,
    });
    expect(result.turns!.map((turn) => [turn.source, turn.userMessage, turn.answer])).toEqual([
      ['simulated', 'more please', 'answer 1'],
      ['simulated', 'more please', 'answer 2'],
    ]);
    expect(user.requests[0]!.chatPrompt[0]!.content).toContain('Your goal: get a refund');
    expect(user.requests[0]!.chatPrompt[0]!.content).toContain('{"stop": "gave_up"}');
  });

  it('records a user that gives up', async () => {
    const user = scripted('user_llm', (request) =>
      request.question.includes('answer 1') ? '{"stop": "gave_up"}' : '{"message": "hi"}',
    );
    const result = await run(simulated(), agent(), user);
    expect(result).toMatchObject({ passed: false, conversationEnd: 'gave_up' });
    expect(result.turns).toHaveLength(1);
  });

  it('ends at max_turns', async () => {
    const user = scripted('user_llm', () => '{"message": "and again"}');
    const result = await run(simulated(2), agent(), user);
    expect(result).toMatchObject({ passed: false, conversationEnd: 'max_turns' });
    expect(result.turns).toHaveLength(2);
  });

  it('asks again once after a bad reply, then ends with error', async () => {
    let calls = 0;
    const user = scripted('user_llm', () => (calls++ === 0 ? 'no json' : '{"message": "hi"}'));
    const retried = await run(simulated(1), agent(), user);
    expect(user.requests.map((request) => request.refresh)).toEqual([undefined, true, undefined]);
    expect(retried.conversationEnd).toBe('max_turns');
    const bad = scripted('user_llm', () => '{"stop": "bored"}');
    const result = await run(simulated(), agent(), bad);
    expect(result.conversationEnd).toBe('error');
    expect(result.error).toBe(
      'simulated user "user_llm" gave an unusable reply twice: "stop" must be "goal_reached" or "gave_up", got "bored"; the reply was: {"stop": "bored"}',
    );
  });
});

describe('a budget across the conversation', () => {
  const turn = (message: string, evaluators: EvalCase['evaluators'] = []) => ({
    messages: [{ role: 'user' as const, content: text(message) }],
    evaluators,
  });
  const three = [
    turn('one', [{ name: 'ok', type: 'contains', value: 'ok' }]),
    turn('two'),
    turn('three'),
  ];

  it('adds up every turn and stops the conversation at the turn that crosses it', async () => {
    // $0.50 and 12 tokens a turn: the second turn crosses $0.80.
    const agent = scripted('default', () => 'ok');
    const result = await run(
      conversationCase(
        { turns: three },
        {
          budget: { maxCostUsd: 0.8 },
          evaluators: [{ name: 'short', type: 'conversation_turns', max: 5 }],
        },
      ),
      agent,
    );
    expect(agent.requests).toHaveLength(2);
    expect(result).toMatchObject({
      passed: false,
      failureClass: 'budget',
      conversationEnd: 'budget',
      costUsd: 1,
      usage: { inputTokens: 20, outputTokens: 4 },
    });
    expect(result.error).toBeUndefined();
    expect(result.misses[0]).toBe('over budget: cost $1 > max_cost_usd $0.8');
    expect(result.turns!.map((entry) => [entry.userMessage, entry.answer])).toEqual([
      ['one', 'ok'],
      ['two', 'ok'],
    ]);
    // Cut short, the conversation is not graded as a whole.
    expect(result.evaluatorResults.map((entry) => entry.name)).toEqual(['turns']);
  });

  it('stops the running call through its signal once the turns together cross max_tokens', async () => {
    const agent = scripted('default', () => 'ok');
    const invoke = agent.invoke.bind(agent);
    agent.invoke = async (request) => {
      if (request.conversation!.turn === 1) return invoke(request);
      agent.requests.push(request);
      request.onUsage?.({ inputTokens: 20 });
      const signal = request.signal!;
      if (signal.aborted) throw signal.reason;
      return new Promise((_, reject) => {
        signal.addEventListener('abort', () => reject(signal.reason));
      });
    };
    const result = await run(
      conversationCase({ turns: three }, { budget: { maxTokens: 25 } }),
      agent,
    );
    expect(agent.requests).toHaveLength(2);
    expect(result).toMatchObject({
      passed: false,
      failureClass: 'budget',
      conversationEnd: 'budget',
    });
    expect(result.misses[0]).toBe('over budget: 32 tokens > max_tokens 25 (the agent was stopped)');
    expect(result.turns!.map((entry) => [entry.userMessage, entry.answer, entry.error])).toEqual([
      ['one', 'ok', undefined],
      ['two', '', 'over budget: 32 tokens > max_tokens 25 (the agent was stopped)'],
    ]);
  });

  it('counts a turn answered from the cache as spending nothing', async () => {
    const agent = scripted('default', () => 'ok');
    const invoke = agent.invoke.bind(agent);
    agent.invoke = async (request) => ({ ...(await invoke(request)), cached: true });
    const result = await run(
      conversationCase({ turns: three }, { budget: { maxCostUsd: 0.8 } }),
      agent,
    );
    expect(result).toMatchObject({
      passed: true,
      cached: true,
      conversationEnd: 'completed',
      costUsd: 0,
      usage: { inputTokens: 0, outputTokens: 0 },
    });
    expect(result.turns).toHaveLength(3);
  });

  it("does not count the simulated user's tokens: they are the run's, not the agent's", async () => {
    const agent = scripted('default', (request) => `answer ${request.conversation!.turn}`);
    const user = scripted('user_llm', (request) =>
      request.question.includes('answer 2') ? '{"stop": "goal_reached"}' : '{"message": "more"}',
    );
    const result = await run(
      conversationCase(
        { simulatedUser: { target: 'user_llm', goal: 'a refund', maxTurns: 5 } },
        {
          budget: { maxTokens: 30, maxCostUsd: 1 },
          evaluators: [{ name: 'goal', type: 'goal_reached' }],
        },
      ),
      agent,
      user,
    );
    // The agent spent 24 tokens and $1, the simulated user 36 tokens and $1.50.
    expect(result).toMatchObject({
      passed: true,
      conversationEnd: 'goal_reached',
      costUsd: 1,
      simulatorCostUsd: 1.5,
    });
  });
});
