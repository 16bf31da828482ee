import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadEvalFile } from './load-eval-file.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'agentv-conversation-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function load(name: string, text: string) {
  const file = path.join(dir, name);
  await writeFile(file, text);
  return loadEvalFile(file);
}

describe('conversations in eval files', () => {
  it('loads scripted turns with their graders, a simulated user and the aggregation', async () => {
    const result = await load(
      'support.yaml',
      `evalcases:
  - id: refund
    input_messages:
      - {role: system, content: You are a support agent.}
    aggregation: min
    turns:
      - input: I want a refund
        evaluators:
          - {type: contains, value: order number}
      - input_messages:
          - {role: user, content: "It is 42"}
        expected_outcome: Refunds order 42
    simulated_user:
      target: user_llm
      goal: get a refund
      max_turns: 5
      first_message: hello
    evaluators:
      - {type: conversation_turns, max: 5}
`,
    );
    expect(result.issues).toEqual([]);
    const [refund] = result.value!.cases;
    expect(refund!.inputMessages).toHaveLength(1);
    expect(refund!.conversation).toEqual({
      aggregation: 'min',
      turns: [
        {
          line: 7,
          messages: [{ role: 'user', content: [{ type: 'text', value: 'I want a refund' }] }],
          evaluators: [{ name: 'contains', type: 'contains', value: 'order number' }],
          evaluatorPositions: expect.any(Object),
        },
        {
          line: 10,
          messages: [{ role: 'user', content: [{ type: 'text', value: 'It is 42' }] }],
          evaluators: [],
          expectedOutcome: 'Refunds order 42',
        },
      ],
      simulatedUser: {
        target: 'user_llm',
        goal: 'get a refund',
        maxTurns: 5,
        firstMessage: 'hello',
      },
    });
    expect(refund!.targetPositions?.simulated_user).toEqual({ line: 14, column: 15 });
    expect(refund!.evaluators.map((config) => config.type)).toEqual(['conversation_turns']);
  });

  it('grades a simulated user without graders by goal_reached', async () => {
    const result = await load(
      'sim.yaml',
      `evalcases:
  - id: sim
    simulated_user: {target: user_llm, goal: get a refund}
`,
    );
    expect(result.issues).toEqual([]);
    const [sim] = result.value!.cases;
    expect(sim!.evaluators).toEqual([{ name: 'goal_reached', type: 'goal_reached' }]);
    expect(sim!.conversation?.simulatedUser?.maxTurns).toBe(10);
    expect(sim!.conversation?.aggregation).toBe('all');
  });

  it('reports turn and case problems at their line', async () => {
    const result = await load(
      'bad.yaml',
      `evalcases:
  - id: no-input
    expected_outcome: x
  - id: bad-turns
    turns:
      - expected_outcome: nothing to say
      - input: a
        input_messages: [{role: user, content: b}]
    aggregation: median
  - id: few-turns
    turns: [{input: a}, {input: b}]
    simulated_user: {target: u, goal: g, max_turns: 1}
`,
    );
    const brief = result.issues.map((issue) => ({
      line: issue.line,
      caseId: issue.caseId,
      message: issue.message,
    }));
    expect(brief).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ line: 9, message: expect.stringContaining('aggregation') }),
      ]),
    );
    const fixed = await load(
      'bad2.yaml',
      `evalcases:
  - id: no-input
    expected_outcome: x
  - id: bad-turns
    turns:
      - expected_outcome: nothing to say
      - input: a
        input_messages: [{role: user, content: b}]
  - id: few-turns
    turns: [{input: a}, {input: b}]
    simulated_user: {target: u, goal: g, max_turns: 1}
`,
    );
    expect(
      fixed.issues.map((issue) => ({
        line: issue.line,
        caseId: issue.caseId,
        message: issue.message,
      })),
    ).toEqual([
      { line: 2, caseId: 'no-input', message: 'missing required key "input_messages"' },
      { line: 6, caseId: 'bad-turns', message: 'turn 1 has no input' },
      { line: 7, caseId: 'bad-turns', message: 'turn 2 gives both input and input_messages' },
      {
        line: 11,
        caseId: 'few-turns',
        message: 'simulated_user.max_turns (1) is less than the 2 scripted turns',
      },
    ]);
  });

  it('reads turns from a JSONL dataset row', async () => {
    await writeFile(
      path.join(dir, 'cases.jsonl'),
      `${JSON.stringify({ id: 'row', turns: [{ input: 'hi' }, { input: 'bye', evaluators: [{ type: 'contains', value: 'bye' }] }] })}\n${JSON.stringify({ id: 'broken', turns: [{}] })}\n`,
    );
    const result = await load(
      'data.yaml',
      'cases: ./cases.jsonl\nexecution: {evaluators: [{type: contains, value: x}]}\n',
    );
    expect(
      result.issues.map((issue) => [path.basename(issue.file ?? ''), issue.line, issue.message]),
    ).toEqual([['cases.jsonl', 2, 'turn 1 has no input']]);
    const partial = await loadEvalFile(path.join(dir, 'data.yaml'), { partial: true });
    const row = partial.value!.cases.find((evalCase) => evalCase.id === 'row')!;
    expect(row.conversation?.turns.map((turn) => turn.evaluators.length)).toEqual([0, 1]);
  });
});
