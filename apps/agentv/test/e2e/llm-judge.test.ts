// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${{ NAME }} is targets-file syntax, not a JS template
import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import {
  anthropicReply,
  chatError,
  chatReply,
  geminiReply,
  type LlmReply,
  type LlmRequest,
  type LlmServer,
  lastUserText,
  startLlmServer,
} from '../support/llm-servers.js';
import {
  createProject,
  ECHO_AGENT,
  type Project,
  parseJsonl,
  runAgentv,
} from '../support/project.js';

// LLM graders end to end: the built agentv binary, a `cli` agent, and an
// `openai-compatible` judge target served by a local chat completions server.

const JUDGE_KEY = 'sk-judge-secret-9876543210';

let project: Project | undefined;
let server: LlmServer | undefined;
afterEach(async () => {
  await server?.close();
  await project?.cleanup();
  project = undefined;
  server = undefined;
});

/** Whether a judge request is a rubric's (its contract asks for per-item checks). */
function isRubricRequest(request: LlmRequest): boolean {
  return JSON.stringify(request.body.messages).includes('\\"checks\\"');
}

/** A judge that answers like chatty models do: the JSON in a code fence, prose around it. */
function fencedJudge(request: LlmRequest): LlmReply {
  const reply = isRubricRequest(request)
    ? {
        checks: [
          { id: 'greets', satisfied: true, reasoning: 'It repeats the greeting.' },
          { id: 'price', satisfied: false, reasoning: 'No price is given.' },
        ],
        overall_reasoning: 'Greets, but gives no price.',
      }
    : {
        score: 0.8,
        hits: ['Echoes the question'],
        misses: ['No price'],
        reasoning: 'Mostly fine.',
      };
  return chatReply(
    `Sure! Here is my assessment:\n\n\`\`\`json\n${JSON.stringify(reply, null, 2)}\n\`\`\`\n\nLet me know if you need more.`,
  );
}

const RUBRIC = `
    rubrics:
      - { id: greets, description: Repeats the question, required: false }
      - { id: price, description: States the monthly price, weight: 2, required: false }`;

/** A `cli` agent whose target names the judge; `withRubric` grades by a rubric too. */
async function judgedProject(judgeUrl: string, withRubric = false): Promise<Project> {
  const evaluators = withRubric
    ? '[{ name: quality, type: llm_judge }, { name: checklist, type: rubric }]'
    : '[{ name: quality, type: llm_judge }]';
  return createProject({
    'agent.mjs': ECHO_AGENT,
    '.env': `JUDGE_BASE_URL=${judgeUrl}/v1\nJUDGE_API_KEY=${JUDGE_KEY}\n`,
    '.agentv/targets.yaml': `targets:
  - name: default
    provider: cli
    cwd: ..
    command_template: node agent.mjs --prompt {PROMPT} --out {OUTPUT_FILE}
    max_retries: 0
    judge_target: judge
  - name: judge
    provider: openai-compatible
    base_url: \${{ JUDGE_BASE_URL }}
    api_key: \${{ JUDGE_API_KEY }}
    model: gpt-4o-mini
    max_retries: 2
`,
    'evals/pricing.yaml': `evalcases:
  - id: price
    input_messages: [{ role: user, content: How much is the Pro plan? }]${withRubric ? RUBRIC : ''}
    evaluators: ${evaluators}
`,
  });
}

const run = (args: string[]) => runAgentv(['eval', 'evals/pricing.yaml', ...args], project!.dir);

describe('LLM judges through an openai-compatible judge target', () => {
  it('grades fenced replies, then answers a second run from the cache', async () => {
    server = await startLlmServer(fencedJudge);
    project = await judgedProject(server.url, true);

    const first = await run(['--out', 'first.jsonl']);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(1); // graded, below the threshold: a failed case, not an error
    expect(server.requests).toHaveLength(2);
    expect(server.requests.every((request) => request.url === '/v1/chat/completions')).toBe(true);
    // The judge sees the agent's answer.
    expect(lastUserText(server.requests[0]!)).toContain('You said: How much is the Pro plan?');
    const [line] = parseJsonl(await readFile(project.file('first.jsonl'), 'utf8'));
    const [quality, checklist] = line!.evaluator_results;
    expect(quality).toMatchObject({
      name: 'quality',
      score: 0.8,
      verdict: 'pass',
      hits: ['Echoes the question'],
      misses: ['No price'],
      reasoning: 'Mostly fine.',
    });
    expect(quality).not.toHaveProperty('cached');
    expect(checklist).toMatchObject({ name: 'checklist', verdict: 'fail' });
    expect(checklist.score).toBeCloseTo(1 / 3, 6);
    expect(checklist.details.items).toMatchObject([
      { id: 'greets', satisfied: true, reasoning: 'It repeats the greeting.' },
      { id: 'price', satisfied: false, weight: 2, reasoning: 'No price is given.' },
    ]);
    // Both judge calls (50 + 10 tokens each) are recorded on the case and summed for the run.
    expect(line!.judge_usage).toMatchObject({ input_tokens: 100, output_tokens: 20 });
    expect(line!.judge_cost_usd).toBeGreaterThan(0);
    expect(line).not.toHaveProperty('usage'); // the cli agent reported none
    expect(first.stdout).toMatch(/Tokens: 100 in, 20 out {2}Cost: ~\$/);

    const second = await run(['--out', 'second.jsonl']);
    expect(second.code).toBe(1);
    expect(server.requests).toHaveLength(2); // nothing asked again
    const [cachedLine] = parseJsonl(await readFile(project.file('second.jsonl'), 'utf8'));
    expect(cachedLine!.evaluator_results).toMatchObject([
      { name: 'quality', score: 0.8, cached: true },
      { name: 'checklist', cached: true },
    ]);
    expect(cachedLine!.score).toBe(line!.score);

    const third = await run(['--out', 'third.jsonl', '--no-cache']);
    expect(third.code).toBe(1);
    expect(server.requests).toHaveLength(4);
    const [freshLine] = parseJsonl(await readFile(project.file('third.jsonl'), 'utf8'));
    expect(freshLine!.evaluator_results[0]).not.toHaveProperty('cached');
  });

  it('asks again when a reply is not JSON, then reports an evaluator error with an excerpt', async () => {
    server = await startLlmServer(() =>
      chatReply('The answer looks reasonable to me, I would give it a good grade.'),
    );
    project = await judgedProject(server.url);

    const result = await run(['--out', 'out.jsonl']);
    expect(result.code).toBe(2);
    expect(server.requests).toHaveLength(2);
    const [line] = parseJsonl(await readFile(project.file('out.jsonl'), 'utf8'));
    expect(line!.evaluator_results[0]).toMatchObject({ name: 'quality', verdict: 'error' });
    expect(line!.evaluator_results[0].error).toContain(
      'judge target "judge" gave an unusable reply twice: it holds no JSON object; the reply was: The answer looks reasonable to me',
    );
    expect(result.stdout).toContain('ERROR');
  });

  it('waits for Retry-After on a 429, then grades', async () => {
    server = await startLlmServer(fencedJudge);
    server.queue(chatError(429, 'Rate limit reached for gpt-4o-mini', { 'retry-after': '1' }));
    project = await judgedProject(server.url);
    const times: number[] = [];
    const original = server.requests.push.bind(server.requests);
    server.requests.push = (...items: LlmRequest[]) => {
      times.push(Date.now());
      return original(...items);
    };

    const result = await run(['--out', 'out.jsonl']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(server.requests).toHaveLength(2);
    // The second request came after the server's Retry-After (1 s), not at once.
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(900);
    const [line] = parseJsonl(await readFile(project.file('out.jsonl'), 'utf8'));
    expect(line!.evaluator_results[0]).toMatchObject({ name: 'quality', score: 0.8 });
  });

  it('under --verbose shows each failed judge attempt and the wait Retry-After asked for', async () => {
    server = await startLlmServer(fencedJudge);
    server.queue(chatError(429, 'Rate limit reached for gpt-4o-mini', { 'retry-after': '1' }));
    project = await judgedProject(server.url);

    const result = await run(['--out', 'out.jsonl', '--verbose']);
    expect(result.code).toBe(0);
    const lines = result.stderr.split('\n');
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^\[openai-compatible:judge\] price attempt 1: failed after \d+ ms: openai-compatible target "judge": HTTP 429: Rate limit reached for gpt-4o-mini$/,
      ),
    );
    expect(lines).toContain(
      '[openai-compatible:judge] price attempt 1 failed; waiting 1 s (Retry-After) before attempt 2',
    );
    expect(lines).toContainEqual(
      expect.stringMatching(/^\[openai-compatible:judge\] price attempt 2: gpt-4o-mini answered/),
    );
    expect(result.stderr).not.toContain(JUDGE_KEY);
  });

  it('does not wait a Retry-After beyond a minute: the grade errors at once and says why', async () => {
    server = await startLlmServer(() =>
      chatError(429, 'You exceeded your current quota', { 'retry-after': '3600' }),
    );
    project = await judgedProject(server.url);

    const result = await run(['--out', 'out.jsonl']);
    expect(result.code).toBe(2);
    // One request: no retry, and so no wait.
    expect(server.requests).toHaveLength(1);
    const [line] = parseJsonl(await readFile(project.file('out.jsonl'), 'utf8'));
    expect(line!.evaluator_results[0].error).toContain(
      'judge target "judge" failed: openai-compatible target "judge": HTTP 429: You exceeded your current quota; the service asked to wait 3600 s before another attempt (Retry-After), longer than AgentV waits between attempts (60 s), so it was not retried',
    );
  });

  it('reports a refused key once, in one line, without retrying or showing the key', async () => {
    server = await startLlmServer(() =>
      chatError(
        401,
        `Incorrect API key provided: ${JUDGE_KEY}. You can find your key at https://example.test.`,
      ),
    );
    project = await judgedProject(server.url);

    const result = await run(['--out', 'out.jsonl']);
    expect(result.code).toBe(2);
    expect(server.requests).toHaveLength(1);
    const written = await readFile(project.file('out.jsonl'), 'utf8');
    const [line] = parseJsonl(written);
    const error: string = line!.evaluator_results[0].error;
    expect(error).toMatch(
      /^judge target "judge" failed: .*HTTP 401: Incorrect API key provided: \*\*\*/,
    );
    expect(error).not.toContain('\n');
    // The key came from .env, which never reaches process.env: the hint still names its variable.
    expect(error).toContain('check JUDGE_API_KEY');
    for (const text of [written, result.stdout, result.stderr])
      expect(text).not.toContain(JUDGE_KEY);
  });

  it("retries a 500 until the judge target's retries run out, then records the error", async () => {
    server = await startLlmServer(() => chatError(500, 'The server had an error'));
    project = await judgedProject(server.url);

    const result = await run(['--out', 'out.jsonl']);
    expect(result.code).toBe(2);
    // max_retries: 2 on the judge target: three requests, then the evaluator error.
    expect(server.requests).toHaveLength(3);
    const [line] = parseJsonl(await readFile(project.file('out.jsonl'), 'utf8'));
    expect(line!.evaluator_results[0]).toMatchObject({ name: 'quality', verdict: 'error' });
    expect(line!.evaluator_results[0].error).toMatch(/HTTP 500: The server had an error/);
  });

  it('never replays an unusable reply from the cache: the question is asked again next run', async () => {
    let answers = 0;
    server = await startLlmServer((request) => {
      answers++;
      // The first two answers are prose; from then on the judge replies properly.
      return answers <= 2 ? chatReply('Looks fine to me.') : fencedJudge(request);
    });
    project = await judgedProject(server.url);

    expect((await run(['--out', 'first.jsonl'])).code).toBe(2);
    expect(server.requests).toHaveLength(2);

    // The first question's cached (unusable) reply is read, then the re-asked question goes
    // to the model and its good reply replaces the cached one.
    const second = await run(['--out', 'second.jsonl']);
    expect(second.code).toBe(0);
    expect(server.requests).toHaveLength(3);
    const [line] = parseJsonl(await readFile(project.file('second.jsonl'), 'utf8'));
    expect(line!.evaluator_results[0]).toMatchObject({ name: 'quality', score: 0.8 });

    // A third run is answered from the cache alone.
    expect((await run(['--out', 'third.jsonl'])).code).toBe(0);
    expect(server.requests).toHaveLength(3);
  });
});

describe('an LLM target graded by an LLM judge of another kind', () => {
  let judgeServer: LlmServer | undefined;
  afterEach(async () => {
    await judgeServer?.close();
    judgeServer = undefined;
  });

  const JUDGE_JSON =
    '{"score": 1, "hits": ["Gives the price"], "misses": [], "reasoning": "Exact."}';
  const judgeKinds = [
    {
      kind: 'anthropic',
      model: 'claude-3-5-haiku-20241022',
      basePath: '/v1',
      reply: anthropicReply(JUDGE_JSON),
      path: '/v1/messages',
      keyHeader: 'x-api-key',
    },
    {
      kind: 'gemini',
      model: 'gemini-2.5-flash',
      basePath: '/v1beta',
      reply: geminiReply(JUDGE_JSON),
      path: '/v1beta/models/gemini-2.5-flash:generateContent',
      keyHeader: 'x-goog-api-key',
    },
  ];

  it.each(judgeKinds)(
    'asks the openai-compatible target and grades with a $kind judge',
    async ({ kind, model, basePath, reply, path, keyHeader }) => {
      server = await startLlmServer(() => chatReply('The Pro plan costs $20 per month.'));
      judgeServer = await startLlmServer(() => reply);
      project = await createProject({
        '.env': `TARGET_KEY=sk-target-1111\nJUDGE_KEY=sk-judge-2222\n`,
        '.agentv/targets.yaml': `targets:
  - name: assistant
    provider: openai-compatible
    base_url: ${server.url}/v1
    api_key: \${{ TARGET_KEY }}
    model: llama3.1
    judge_target: grader
  - name: grader
    provider: ${kind}
    base_url: ${judgeServer.url}${basePath}
    api_key: \${{ JUDGE_KEY }}
    model: ${model}
`,
        'evals/pricing.yaml': `execution:
  target: assistant
evalcases:
  - id: price
    input_messages: [{ role: user, content: How much is the Pro plan? }]
    expected_outcome: States the monthly price of the Pro plan
    evaluators: [{ name: quality, type: llm_judge }]
`,
      });

      const result = await runAgentv(
        ['eval', 'evals/pricing.yaml', '--out', 'out.jsonl'],
        project.dir,
      );
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(server.requests).toHaveLength(1);
      expect(server.requests[0]!.body.messages).toEqual([
        { role: 'user', content: 'How much is the Pro plan?' },
      ]);
      expect(judgeServer.requests).toHaveLength(1);
      expect(judgeServer.requests[0]!.url).toBe(path);
      expect(judgeServer.requests[0]!.headers[keyHeader]).toBe('sk-judge-2222');
      expect(JSON.stringify(judgeServer.requests[0]!.body)).toContain(
        'The Pro plan costs $20 per month.',
      );
      const [line] = parseJsonl(await readFile(project.file('out.jsonl'), 'utf8'));
      expect(line).toMatchObject({
        passed: true,
        candidate_answer: 'The Pro plan costs $20 per month.',
        evaluator_results: [{ name: 'quality', score: 1, hits: ['Gives the price'] }],
      });
    },
  );
});
