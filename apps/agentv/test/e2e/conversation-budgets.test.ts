import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { chatReply, type LlmServer, startLlmServer } from '../support/llm-servers.js';
import { createProject, type Project, parseJsonl, runAgentv } from '../support/project.js';

// Case budgets over a whole conversation, and --budget-usd with conversations, through the
// built CLI: a `cli` agent reading {CONVERSATION_FILE} that reports 600 tokens and $0.30 a
// turn (and takes 20 s at a turn saying "slow"), and a local OpenAI-compatible simulated user.

const AGENT = `
import { appendFileSync, readFileSync } from 'node:fs';
const { id, turn, messages } = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const said = messages.filter((message) => message.role === 'user').at(-1).content;
appendFileSync('calls.log', id + ' ' + turn + '\\n');
if (said.includes('slow')) await new Promise((resolve) => setTimeout(resolve, 20_000));
console.log(JSON.stringify({ text: 'ok: ' + said, usage: { input_tokens: 500, output_tokens: 100 }, cost_usd: 0.3 }));
`;

/** The agent, and a simulated user at $0.30 a call (50 input tokens at $6000 per million). */
const TARGETS = (llmUrl = 'http://127.0.0.1:9') => `targets:
  - name: default
    provider: cli
    cwd: ..
    command_template: node agent.mjs {CONVERSATION_FILE}
    max_retries: 0
  - name: user_llm
    provider: openai-compatible
    base_url: ${llmUrl}/v1
    model: user
    pricing: { input_per_mtok: 6000, output_per_mtok: 0 }
`;

/** A scripted conversation of `turns` turns (the turn named "slow" asks the agent to take 20 s). */
const SCRIPTED = (id: string, turns: string[], execution = '') =>
  `  - id: ${id}
${execution === '' ? '' : `    execution: { ${execution} }\n`}    turns:
${turns.map((turn) => `      - input: ${turn}\n        evaluators: [{ type: contains, value: "ok:" }]`).join('\n')}
    evaluators: [{ type: conversation_turns, min: 1 }]
`;

// biome-ignore lint/suspicious/noExplicitAny: tests read result lines of a known shape
type Line = Record<string, any>;

let project: Project | undefined;
let llm: LlmServer | undefined;
afterEach(async () => {
  await llm?.close();
  await project?.cleanup();
  project = undefined;
  llm = undefined;
});

async function lines(file: string): Promise<Record<string, Line>> {
  const read = parseJsonl(await readFile(project!.file(file), 'utf8')) as Line[];
  return Object.fromEntries(read.map((line) => [line.eval_id, line]));
}

async function calls(): Promise<string[]> {
  return (await readFile(project!.file('calls.log'), 'utf8')).trim().split('\n');
}

/** The simulated user: says "next" until the agent has answered twice, then reaches its goal. */
async function startUser(): Promise<LlmServer> {
  return startLlmServer((request) => {
    const conversation: string = request.body.messages.at(-1).content;
    const answers = conversation.split('Assistant:').length - 1;
    return chatReply(answers >= 2 ? '{"stop": "goal_reached"}' : `{"message": "next ${answers}"}`);
  });
}

describe('a case budget over a conversation', () => {
  it('adds up the turns, stops at the turn that crosses it and fails the case with the turns so far', async () => {
    project = await createProject({
      'agent.mjs': AGENT,
      '.agentv/targets.yaml': TARGETS(),
      'evals/talk.yaml': `evalcases:
${SCRIPTED('within', ['one', 'two', 'three'], 'max_cost_usd: 1, max_tokens: 2000')}${SCRIPTED('cost', ['one', 'two', 'three', 'four'], 'max_cost_usd: 0.5')}${SCRIPTED('tokens', ['one', 'two', 'three'], 'max_tokens: 1000')}${SCRIPTED('slow', ['one', 'be slow', 'three'], 'max_duration_seconds: 6')}`,
    });
    const run = await runAgentv(
      ['eval', 'evals/talk.yaml', '--out', 'out.jsonl', '--workers', '2', '--include-trace'],
      project.dir,
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(1);
    const byId = await lines('out.jsonl');
    expect(byId.within).toMatchObject({
      passed: true,
      conversation_end: 'completed',
      cost_usd: expect.closeTo(0.9, 6),
      usage: { input_tokens: 1500, output_tokens: 300 },
    });
    // $0.30 a turn: the second turn crosses $0.50; turns three and four are never asked.
    expect(byId.cost).toMatchObject({
      passed: false,
      failure_class: 'budget',
      conversation_end: 'budget',
      cost_usd: expect.closeTo(0.6, 6),
    });
    expect(byId.cost!.error).toBeUndefined();
    expect(byId.cost!.misses[0]).toBe('over budget: cost $0.6 > max_cost_usd $0.5');
    expect(byId.cost!.turns.map((turn: Line) => [turn.user_message, turn.answer])).toEqual([
      ['one', 'ok: one'],
      ['two', 'ok: two'],
    ]);
    expect(byId.tokens!.misses[0]).toBe('over budget: 1200 tokens > max_tokens 1000');
    expect(byId.tokens!.turns).toHaveLength(2);
    // Stopped during its second turn, not after the agent's 20 s: that turn has no answer.
    expect(byId.slow).toMatchObject({
      passed: false,
      failure_class: 'budget',
      conversation_end: 'budget',
    });
    expect(byId.slow!.misses[0]).toMatch(
      /^over budget: .* > max_duration_seconds 6 \(the agent was stopped\)$/,
    );
    expect(
      byId.slow!.turns.map((turn: Line) => [turn.user_message, turn.answer, turn.error]),
    ).toEqual([
      ['one', 'ok: one', undefined],
      ['be slow', '', byId.slow!.misses[0]],
    ]);
    expect(byId.slow!.duration_ms).toBeLessThan(18_000);
    expect((await calls()).filter((call) => !call.startsWith('talk/within'))).toHaveLength(6);
    expect(run.stdout).toContain('Failures by class: budget 3');

    // Re-graded from the line, nobody called: the recorded usage crosses the budget at the same
    // turn again; a conversation stopped during a turn has no answer to grade there.
    const graded = await runAgentv(['grade', 'out.jsonl', '--out', 'graded.jsonl'], project.dir);
    expect(graded.stderr).toMatch(
      /case "slow" .* not graded: its conversation was stopped over its budget during turn 2/,
    );
    expect(await calls()).toHaveLength(9);
    const regraded = await lines('graded.jsonl');
    expect(Object.keys(regraded).sort()).toEqual(['cost', 'tokens', 'within']);
    expect(regraded.cost).toMatchObject({ conversation_end: 'budget', failure_class: 'budget' });
    expect(regraded.cost!.misses[0]).toBe('over budget: cost $0.6 > max_cost_usd $0.5');
    expect(regraded.within).toMatchObject({ passed: true, conversation_end: 'completed' });
  }, 90_000);

  it("does not count the simulated user's tokens against the case, but --budget-usd counts them", async () => {
    llm = await startUser();
    project = await createProject({
      'agent.mjs': AGENT,
      '.agentv/targets.yaml': TARGETS(llm.url),
      'evals/sim.yaml': `evalcases:
${['first', 'second', 'third']
  .map(
    (id) => `  - id: ${id}
    execution: { max_tokens: 1300 }
    simulated_user: { target: user_llm, goal: "help with ${id}", max_turns: 4 }
`,
  )
  .join('')}`,
    });
    // Each conversation: two agent turns (1200 tokens, $0.60) and three simulated user calls
    // (180 tokens, $0.90): within max_tokens 1300 only because the user's do not count.
    const run = await runAgentv(
      ['eval', 'evals/sim.yaml', '--out', 'out.jsonl', '--workers', '1', '--budget-usd', '2'],
      project.dir,
    );
    expect(run.code).toBe(3);
    const byId = await lines('out.jsonl');
    const ran = Object.values(byId);
    // $1.50 a conversation: the second one starts at $1.50 of $2, the third does not.
    expect(Object.keys(byId)).toEqual(['first', 'second']);
    for (const line of ran) {
      expect(line).toMatchObject({
        passed: true,
        conversation_end: 'goal_reached',
        usage: { input_tokens: 1000, output_tokens: 200 },
        cost_usd: expect.closeTo(0.6, 6),
        simulator_cost_usd: expect.closeTo(0.9, 6),
      });
    }
    expect(run.stdout).toMatch(/not run\s+third \(default\)/);
    expect(run.stdout).toContain(
      'budget spent: $3.0000 of --budget-usd $2; 1 of 3 cases were not run:',
    );
  }, 60_000);
});
