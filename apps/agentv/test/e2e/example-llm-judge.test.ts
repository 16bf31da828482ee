import { cp, readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import {
  chatReply,
  type LlmReply,
  type LlmRequest,
  type LlmServer,
  lastUserText,
  startLlmServer,
} from '../support/llm-servers.js';
import { createProject, type Project, parseJsonl, runAgentv } from '../support/project.js';

// examples/llm-judge, run as its README says, with a local OpenAI-compatible
// server standing in for the judge model configured in .env.

const EXAMPLE = fileURLToPath(new URL('../../../../examples/llm-judge/', import.meta.url));

let project: Project | undefined;
let server: LlmServer | undefined;
afterEach(async () => {
  await server?.close();
  await project?.cleanup();
  project = undefined;
  server = undefined;
});

/** A judge that grades the example agent's answers by what they contain. */
function judge(request: LlmRequest): LlmReply {
  const prompt = lastUserText(request);
  if (prompt.includes('[[ ## rubrics ## ]]')) {
    const ids = [...prompt.matchAll(/^- \[([^\]]+)\]/gm)].map((match) => match[1]);
    return chatReply(
      JSON.stringify({
        checks: ids.map((id) => ({ id, satisfied: true, reasoning: `${id} is covered.` })),
        overall_reasoning: 'Every item is covered.',
      }),
    );
  }
  const vague = prompt.includes('Please check our website');
  return chatReply(
    JSON.stringify(
      vague
        ? { score: 0.1, hits: [], misses: ['Names no plan or price'], reasoning: 'Too vague.' }
        : { score: 0.9, hits: ['Answers the question'], misses: [], reasoning: 'Accurate.' },
    ),
  );
}

describe('examples/llm-judge', () => {
  it('grades the agent with llm_judge and rubric through the judge in .env', async () => {
    server = await startLlmServer(judge);
    project = await createProject({});
    await cp(EXAMPLE, project.dir, {
      recursive: true,
      filter: (source) => !/[/\\](\.env|cache|results)$/.test(source),
    });
    await writeFile(
      project.file('.env'),
      (await readFile(project.file('.env.example'), 'utf8'))
        .replace(/^OPENAI_BASE_URL=.*$/m, `OPENAI_BASE_URL=${server.url}/v1`)
        .replace(/^OPENAI_API_KEY=.*$/m, 'OPENAI_API_KEY=sk-example-test')
        .replace(/^OPENAI_MODEL=.*$/m, 'OPENAI_MODEL=local-judge'),
    );

    const run = await runAgentv(['eval', 'evals/pricing.yaml', '--out', 'out.jsonl'], project.dir);
    expect(run.stderr).toBe('');
    // compare-plans gets a vague answer on purpose: one case fails.
    expect(run.code).toBe(1);
    // Three llm_judge grades and one rubric, all from the configured model.
    expect(server.requests).toHaveLength(4);
    for (const request of server.requests) {
      expect(request.url).toBe('/v1/chat/completions');
      expect(request.body.model).toBe('local-judge');
      expect(request.headers.authorization).toBe('Bearer sk-example-test');
    }
    const lines = parseJsonl(await readFile(project.file('out.jsonl'), 'utf8'));
    const byId = Object.fromEntries(lines.map((line) => [line.eval_id, line]));
    expect(byId['pro-price']).toMatchObject({
      passed: true,
      candidate_answer: 'The Pro plan is $20 per month and includes 5 seats.',
      evaluator_results: [
        { name: 'quality', type: 'llm_judge', score: 0.9, verdict: 'pass' },
        {
          name: 'checklist',
          type: 'rubric',
          score: 1,
          details: {
            items: [
              { id: 'price', satisfied: true },
              { id: 'seats', satisfied: true },
            ],
          },
        },
      ],
    });
    expect(byId.cancel).toMatchObject({ passed: true, score: 0.9 });
    expect(byId['compare-plans']).toMatchObject({
      passed: false,
      score: 0.1,
      misses: ['Names no plan or price'],
    });
  });
});
