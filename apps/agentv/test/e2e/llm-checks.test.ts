// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${{ NAME }} is targets-file syntax, not a JS template
import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { type LocalServer, startLocalServer } from '../support/processes.js';
import {
  createProject,
  ECHO_AGENT,
  type Project,
  parseJsonl,
  runAgentv,
} from '../support/project.js';

// What agentv checks about LLM targets and judges without asking any model:
// validate, --dry-run, and judge health checks.

let project: Project | undefined;
let server: LocalServer | undefined;
afterEach(async () => {
  await server?.close();
  await project?.cleanup();
  project = undefined;
  server = undefined;
});

describe('agentv validate with LLM targets and graders', () => {
  it('names unknown keys, a missing model, an unset key variable, a missing judge and an empty rubric', async () => {
    // Nothing listens on this address: validate must not call anything.
    project = await createProject({
      '.agentv/targets.yaml': `targets:
  - name: writer
    provider: openai-compatible
    base_url: http://127.0.0.1:9/v1
    api_key: \${{ AGENTV_E2E_UNSET_WRITER_KEY }}
    model: gpt-4o-mini
    temprature: 0.2
    judge_target: grader
  - name: critic
    provider: anthropic
    api_key: sk-ant-literal
`,
      'evals/writing.yaml': `execution:
  target: writer
evalcases:
  - id: haiku
    input_messages: [{ role: user, content: Write a haiku about rain. }]
    evaluators:
      - { name: quality, type: llm_judge }
      - { name: checklist, type: rubric }
`,
    });
    const run = await runAgentv(['validate'], project.dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('');
    expect(run.stdout.split('\n')).toEqual([
      'warning: .agentv/targets.yaml:5:5: target "writer": needs environment variable(s) AGENTV_E2E_UNSET_WRITER_KEY, which are not set (hint: set AGENTV_E2E_UNSET_WRITER_KEY in your shell or in a .env file; a run that uses this target fails until then)',
      'warning: .agentv/targets.yaml:7:5: target "writer": unknown key "temprature" for provider "openai-compatible" is ignored (hint: did you mean "temperature"?)',
      'error: .agentv/targets.yaml:8:5: target "writer": judge target "grader" (from judge_target of target "writer") does not exist (hint: name one of the targets in .agentv/targets.yaml: writer, critic)',
      'error: .agentv/targets.yaml:9:5: target "critic": model: is required (hint: add e.g. `model: claude-sonnet-4-5`)',
      'error: evals/writing.yaml:4:5: case "haiku": evaluator "checklist" (rubric) has no rubric items (hint: add `rubrics:` to the case (or to the evaluator), e.g. `rubrics: ["Mentions the refund amount"]`)',
      '2 files checked: 2 with errors (3 errors, 2 warnings)',
      '',
    ]);
  });
});

const RUBRIC_EVAL = `execution:
  target: default
evalcases:
  - id: refund
    input_messages: [{ role: user, content: Where is my refund? }]
    rubrics:
      - Mentions the refund
      - { id: polite, description: Is polite, weight: 2 }
    evaluators:
      - { name: quality, type: llm_judge }
      - { name: checklist, type: rubric }
      - name: combined
        type: composite
        evaluators: [{ name: inner, type: rubric }]
        aggregator: { type: llm_judge }
`;

describe('agentv eval --dry-run with judge-based graders', () => {
  it('passes llm_judge, rubric and composite graders without asking the judge', async () => {
    let asked = 0;
    server = await startLocalServer((_request, response) => {
      asked++;
      response.statusCode = 500;
      response.end();
    });
    project = await createProject({
      '.agentv/targets.yaml': `targets:
  - name: default
    provider: openai-compatible
    base_url: ${server.url}/v1
    api_key: sk-dry-run
    model: gpt-4o-mini
    judge_target: default
`,
      'evals/refund.yaml': RUBRIC_EVAL,
    });
    const run = await runAgentv(
      ['eval', 'evals/refund.yaml', '--dry-run', '--out', 'out.jsonl'],
      project.dir,
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(asked).toBe(0);
    const [line] = parseJsonl(await readFile(project.file('out.jsonl'), 'utf8'));
    expect(line).toMatchObject({ passed: true, score: 1 });
    expect(line!.evaluator_results.map((result: { verdict: string }) => result.verdict)).toEqual([
      'pass',
      'pass',
      'pass',
    ]);
    expect(line!.evaluator_results[1].details.items).toMatchObject([
      { id: 'rubric-1', satisfied: true },
      { id: 'polite', satisfied: true },
    ]);
  });
});

describe('judge target health checks', () => {
  it('probes a judge target once before the first case and stops the run when it fails', async () => {
    server = await startLocalServer((_request, response) => {
      response.statusCode = 503;
      response.end();
    });
    project = await createProject({
      'agent.mjs': ECHO_AGENT,
      '.agentv/targets.yaml': `targets:
  - name: default
    provider: cli
    cwd: ..
    command_template: node agent.mjs --prompt {PROMPT} --out {OUTPUT_FILE}
    judge_target: judge
  - name: judge
    provider: cli
    command_template: node -e "process.exit(1)"
    healthcheck: { type: http, url: "${server.url}/health" }
`,
      'evals/refund.yaml': `evalcases:
  - id: a
    input_messages: [{ role: user, content: one }]
    evaluators: [{ name: quality, type: llm_judge }]
  - id: b
    input_messages: [{ role: user, content: two }]
    evaluators: [{ name: quality, type: llm_judge }]
`,
    });
    const run = await runAgentv(['eval', 'evals/refund.yaml', '--out', 'out.jsonl'], project.dir);
    expect(run.code).toBe(2);
    expect(server.requests).toEqual(['/health']);
    expect(run.stderr).toContain(
      `agentv: health check of target "judge" failed: GET ${server.url}/health returned HTTP 503`,
    );
  });
});
