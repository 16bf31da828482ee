// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${{ NAME }} is targets-file syntax, not a JS template
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import {
  chatReply,
  type LlmRequest,
  type LlmServer,
  startLlmServer,
} from '../support/llm-servers.js';
import { type LocalServer, startLocalServer } from '../support/processes.js';
import { createProject, type Project, parseJsonl, runAgentv } from '../support/project.js';

// Conversations end to end: the built CLI against one local OpenAI-compatible server that
// plays both the support agent (model "agent") and the simulated user (model "user").

let project: Project | undefined;
let llm: LlmServer | undefined;
let http: LocalServer | undefined;
afterEach(async () => {
  await llm?.close();
  await http?.close();
  await project?.cleanup();
  project = undefined;
  llm = undefined;
  http = undefined;
});

type Message = { role: string; content: string };
const messagesOf = (request: LlmRequest): Message[] => request.body.messages;

/** The support agent: asks for the order number, then refunds it. */
function agentReply(messages: Message[]): string {
  const last = messages.filter((message) => message.role === 'user').at(-1)!.content;
  if (/\b42\b/.test(last)) return 'Order 42 is refunded.';
  if (/refund/i.test(last)) return 'What is your order number?';
  return 'How can I help?';
}

/** The simulated user, by its goal: reaches it, gives up, or never stops. */
function userReply(messages: Message[]): string {
  const instructions = messages[0]!.content;
  const conversation = messages.at(-1)!.content;
  if (instructions.includes('Your goal: talk forever')) return '{"message": "hello?"}';
  if (instructions.includes('Your goal: a human')) {
    return conversation.includes('Assistant:')
      ? '{"stop": "gave_up"}'
      : '{"message": "Human please"}';
  }
  if (conversation.includes('refunded')) return 'Done:\n```json\n{"stop": "goal_reached"}\n```';
  if (conversation.includes('order number')) return '{"message": "It is 42"}';
  return '{"message": "I want a refund"}';
}

async function startModels(): Promise<LlmServer> {
  return startLlmServer((request) =>
    chatReply(
      request.body.model === 'user'
        ? userReply(messagesOf(request))
        : agentReply(messagesOf(request)),
    ),
  );
}

const LLM_TARGETS = (url: string) => `targets:
  - name: default
    provider: openai-compatible
    base_url: ${url}/v1
    api_key: sk-test
    model: agent
  - name: user_llm
    provider: openai-compatible
    base_url: ${url}/v1
    api_key: sk-test
    model: user
`;

const SUPPORT_EVAL = `evalcases:
  - id: scripted
    input_messages: [{ role: system, content: You are a support agent. }]
    turns:
      - input: I want a refund
        evaluators: [{ type: contains, value: order number }]
      - input: It is 42
        evaluators: [{ type: contains, value: refunded }]
    evaluators: [{ type: conversation_turns, max: 2 }]
  - id: goal
    simulated_user: { target: user_llm, goal: get a refund for order 42, max_turns: 5 }
  - id: gives-up
    simulated_user: { target: user_llm, goal: a human agent, max_turns: 5 }
  - id: loops
    simulated_user: { target: user_llm, goal: talk forever, max_turns: 3 }
`;

describe('conversations against OpenAI-compatible agent and user', () => {
  it('runs scripted turns and simulated users, replays them from the cache and re-grades them', async () => {
    llm = await startModels();
    project = await createProject({
      '.agentv/targets.yaml': LLM_TARGETS(llm.url),
      'evals/support.yaml': SUPPORT_EVAL,
    });
    const first = await runAgentv(
      ['eval', 'evals/support.yaml', '--out', 'out.jsonl', '--include-trace', '--workers', '2'],
      project.dir,
    );
    expect(first.stderr).toBe('');
    const lines = parseJsonl(await readFile(project.file('out.jsonl'), 'utf8'));
    const byId = Object.fromEntries(lines.map((line) => [line.eval_id, line]));
    expect(byId.scripted).toMatchObject({
      passed: true,
      conversation_end: 'completed',
      candidate_answer: 'Order 42 is refunded.',
      usage: { input_tokens: 100, output_tokens: 20 },
    });
    expect(
      byId.scripted!.turns.map((turn: Record<string, unknown>) => [
        turn.user_message,
        turn.answer,
        turn.passed,
      ]),
    ).toEqual([
      ['I want a refund', 'What is your order number?', true],
      ['It is 42', 'Order 42 is refunded.', true],
    ]);
    expect(byId.goal).toMatchObject({ passed: true, conversation_end: 'goal_reached' });
    expect(byId.goal!.turns.map((turn: Record<string, unknown>) => turn.user_message)).toEqual([
      'I want a refund',
      'It is 42',
    ]);
    expect(byId.goal!.simulator_usage).toMatchObject({
      input_tokens: 150,
      output_tokens: 30,
      total_tokens: 180,
    });
    expect(byId['gives-up']).toMatchObject({ passed: false, conversation_end: 'gave_up' });
    expect(byId.loops).toMatchObject({ passed: false, conversation_end: 'max_turns' });
    expect(byId.loops!.turns).toHaveLength(3);
    // The agent saw the whole conversation at each turn.
    const agentCalls = llm.requests.filter((request) => request.body.model === 'agent');
    expect(agentCalls.map((request) => messagesOf(request).length)).toContain(4);
    expect(first.code).toBe(1);

    // A second run replays every turn and every simulated reply from the cache.
    const calls = llm.requests.length;
    const second = await runAgentv(
      ['eval', 'evals/support.yaml', '--out', 'again.jsonl'],
      project.dir,
    );
    expect(second.stderr).toBe('');
    expect(llm.requests).toHaveLength(calls);
    const again = parseJsonl(await readFile(project.file('again.jsonl'), 'utf8'));
    const sorted = (rows: unknown[][]) =>
      rows.sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(sorted(again.map((line) => [line.eval_id, line.conversation_end, line.cached]))).toEqual(
      sorted(lines.map((line) => [line.eval_id, line.conversation_end, true])),
    );

    // grade re-grades the recorded conversations without calling anyone.
    const graded = await runAgentv(['grade', 'out.jsonl', '--out', 'graded.jsonl'], project.dir);
    expect(graded.stderr).toBe('');
    expect(llm.requests).toHaveLength(calls);
    const regraded = parseJsonl(await readFile(project.file('graded.jsonl'), 'utf8'));
    expect(
      sorted(regraded.map((line) => [line.eval_id, line.conversation_end, line.passed])),
    ).toEqual(sorted(lines.map((line) => [line.eval_id, line.conversation_end, line.passed])));
  });

  it('asks a cli agent with {CONVERSATION_FILE} and {TURN}, a persistent agent by conversation id, an http agent with {MESSAGES}', async () => {
    http = await startLocalServer((request: IncomingMessage, response: ServerResponse) => {
      let raw = '';
      request.on('data', (chunk) => {
        raw += chunk;
      });
      request.on('end', () => {
        const body = JSON.parse(raw);
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            answer: `turn ${body.turn}: ${body.messages.map((m: Message) => m.content).join(' | ')}`,
          }),
        );
      });
    });
    project = await createProject({
      'cli-agent.mjs': `import { readFileSync } from 'node:fs';
const { id, turn, messages } = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const first = messages.find((message) => message.role === 'user').content;
console.log('turn ' + process.env.AGENTV_TURN + '/' + turn + ' of ' + id + ', you first said: ' + first);
`,
      'persistent-agent.mjs': `import { createInterface } from 'node:readline';
const memory = new Map();
for await (const line of createInterface({ input: process.stdin })) {
  const request = JSON.parse(line);
  const seen = memory.get(request.conversation_id) ?? [];
  seen.push(request.message);
  memory.set(request.conversation_id, seen);
  console.log(JSON.stringify({ id: request.id, text: 'turn ' + request.turn + ', I remember: ' + seen.join(', ') }));
}
`,
      '.agentv/targets.yaml': `targets:
  - name: cli_agent
    provider: cli
    cwd: ..
    command_template: node cli-agent.mjs {CONVERSATION_FILE}
  - name: persistent_agent
    provider: cli
    mode: persistent
    cwd: ..
    command_template: node persistent-agent.mjs
    workers: 2
  - name: http_agent
    provider: http
    url: ${http.url}/chat
    body: { messages: "{MESSAGES}", turn: "{TURN}" }
    response_path: answer
`,
      'evals/memory.yaml': `evalcases:
  - id: remember
    turns:
      - input: my name is Ada
      - input: what is my name?
        evaluators: [{ type: contains, value: Ada }]
  - id: other
    turns:
      - input: I like tea
      - input: and coffee
        evaluators: [{ type: contains, value: tea }]
`,
    });
    const run = await runAgentv(
      [
        'eval',
        'evals/memory.yaml',
        '--target',
        'cli_agent',
        '--target',
        'persistent_agent',
        '--target',
        'http_agent',
        '--out',
        'out.jsonl',
      ],
      project.dir,
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lines = parseJsonl(await readFile(project.file('out.jsonl'), 'utf8'));
    const answers = Object.fromEntries(
      lines.map((line) => [
        `${line.target}/${line.eval_id}`,
        line.turns.map((turn: { answer: string }) => turn.answer),
      ]),
    );
    expect(answers['cli_agent/remember']).toEqual([
      'turn 1/1 of memory/remember, you first said: my name is Ada',
      'turn 2/2 of memory/remember, you first said: my name is Ada',
    ]);
    expect(answers['persistent_agent/remember']).toEqual([
      'turn 1, I remember: my name is Ada',
      'turn 2, I remember: my name is Ada, what is my name?',
    ]);
    expect(answers['persistent_agent/other']).toEqual([
      'turn 1, I remember: I like tea',
      'turn 2, I remember: I like tea, and coffee',
    ]);
    expect(answers['http_agent/remember']![1]).toBe(
      'turn 2: my name is Ada | turn 1: my name is Ada | what is my name?',
    );
  });
});
