import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalServer, startLocalServer } from '../support/processes.js';
import { createProject, type Project, parseJsonl, runAgentv } from '../support/project.js';

// Every way a case can fail, each with its failure_class: a wrong answer (agent), a crashing
// agent (agent), a service answering 503 on every attempt (infra, after its retries), an agent
// slower than its timeout (timeout), and a grader script that crashes (grader).

const AGENT = `
const prompt = process.argv[2];
if (prompt.includes('crash')) { console.error('segfault, sort of'); process.exit(3); }
if (prompt.includes('slow')) { await new Promise((resolve) => setTimeout(resolve, 30_000)); }
console.log(prompt.includes('wrong') ? 'no idea' : 'answer ok');
`;

const TARGETS = (url: string) => `targets:
  - name: agent
    provider: cli
    cwd: ..
    command_template: node agent.mjs {PROMPT}
    max_retries: 0
    timeout_seconds: 5
  - name: service
    provider: http
    url: ${url}/chat
    body: { question: "{PROMPT}" }
    response_path: answer
    max_retries: 1
`;

const CASE = (id: string, extra = '') => `
  - id: ${id}
    input_messages: [{ role: user, content: "${id} please" }]${extra}`;

const EVAL = `execution:
  target: agent
  evaluators:
    - { name: right, type: contains, value: "answer ok" }
evalcases:${CASE('good')}${CASE('wrong')}${CASE('crash')}${CASE('slow')}${CASE(
  'judge-bug',
  `
    evaluators:
      - { name: judge, type: code_judge, script: node ../crash-judge.mjs }`,
)}${CASE('down', '\n    execution: { target: service }')}
`;

// biome-ignore lint/suspicious/noExplicitAny: tests read result lines of a known shape
type Line = Record<string, any>;

let project: Project;
let server: LocalServer;
let calls = 0;
beforeAll(async () => {
  server = await startLocalServer((_request, response) => {
    calls++;
    response.writeHead(503, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ error: 'upstream unavailable' }));
  });
  project = await createProject({
    'agent.mjs': AGENT,
    'crash-judge.mjs': 'throw new Error("judge bug");\n',
    '.agentv/targets.yaml': TARGETS(server.url),
    'evals/classes.yaml': EVAL,
  });
});
afterAll(async () => {
  await server.close();
  await project.cleanup();
});

describe('failure_class', () => {
  it('tells agent, infra, timeout and grader failures apart in lines, summary and JUnit', async () => {
    const run = await runAgentv(
      ['eval', 'evals', '--out', 'all.jsonl', '--junit', 'junit.xml', '--html', 'report.html'],
      project.dir,
    );
    expect(run.code).toBe(2);
    const lines = parseJsonl(await readFile(project.file('all.jsonl'), 'utf8')) as Line[];
    const classes = Object.fromEntries(lines.map((line) => [line.eval_id, line.failure_class]));
    expect(classes).toEqual({
      good: undefined,
      wrong: 'agent',
      crash: 'agent',
      slow: 'timeout',
      'judge-bug': 'grader',
      down: 'infra',
    });
    // The 503 was retried (max_retries: 1) before it counted.
    expect(lines.find((line) => line.eval_id === 'down')!.attempts).toBe(2);
    expect(calls).toBe(2);
    expect(run.stdout).toContain('Failures by class: agent 2, infra 1, timeout 1, grader 1');
    expect(run.stderr).not.toContain('only infrastructure failed');
    const junit = await readFile(project.file('junit.xml'), 'utf8');
    expect(junit).toMatch(/<error message="[^"]*" type="timeout"/);
    expect(junit).toMatch(/<error message="[^"]*" type="infra"/);
    expect(junit).toMatch(/<failure message="[^"]*" type="agent"/);
    const html = await readFile(project.file('report.html'), 'utf8');
    const embedded = /"failureClasses":(\{[^}]*\})/.exec(html)?.[1];
    expect(JSON.parse(embedded ?? '{}')).toEqual({ agent: 2, infra: 1, timeout: 1, grader: 1 });
    expect(html).toContain('failure class: ');
  });

  it('a run where only infrastructure failed says so', async () => {
    const run = await runAgentv(
      ['eval', 'evals', '--eval-id', 'down', '--eval-id', 'good', '--out', 'infra.jsonl'],
      project.dir,
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /only infrastructure failed: all 1 failing case .*failure_class: infra/,
    );
  });
});
