import { access, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, type Project, parseJsonl, runAgentv } from '../support/project.js';

let project: Project | undefined;
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
});

/** Per-case agent: answers `answer: <prompt>` in {OUTPUT_FILE}; logs each run. */
const AGENT = `
import { appendFileSync, writeFileSync } from 'node:fs';
const [prompt, out] = process.argv.slice(2);
appendFileSync('runs.log', process.pid + '\\n');
writeFileSync(out, JSON.stringify({ text: 'answer: ' + prompt }));
`;

/** Batch runner: one JSONL answer per request, \`answer: <question>\`; logs each run. */
const RUNNER = `
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
const [input, output] = process.argv.slice(2);
appendFileSync('runs.log', process.pid + '\\n');
const requests = readFileSync(input, 'utf8').split('\\n').filter(Boolean).map((line) => JSON.parse(line));
writeFileSync(output, requests.map((request) => JSON.stringify({ id: request.id, text: 'answer: ' + request.question })).join('\\n') + '\\n');
`;

/** code_judge: passes when the answer is this case's own question echoed, and shows the case's vars. */
const JUDGE = `
let input = '';
for await (const chunk of process.stdin) input += chunk;
const payload = JSON.parse(input);
const own = payload.candidate_answer === 'answer: ' + payload.question;
process.stdout.write(JSON.stringify({ score: own ? 1 : 0, reasoning: 'vars: ' + JSON.stringify(payload.vars) }));
`;

function targets(batching: boolean): string {
  return `targets:
  - name: default
    provider: cli
    cwd: ..
    max_retries: 0
${
  batching
    ? '    provider_batching: true\n    command_template: node runner.mjs {INPUT_FILE} {OUTPUT_FILE}\n'
    : '    command_template: node agent.mjs {PROMPT} {OUTPUT_FILE}\n'
}`;
}

/** `count` JSONL cases, each with its own `equals` grader expecting its own answer. */
function jsonlCases(count: number): string {
  let text = '';
  for (let index = 0; index < count; index++) {
    text += `${JSON.stringify({
      id: `c${index}`,
      input_messages: [{ role: 'user', content: `q${index}` }],
      evaluators: [{ type: 'equals', value: `answer: q${index}` }],
    })}\n`;
  }
  return text;
}

const CSV_EVAL = `execution:
  evaluators:
    - { name: own-answer, type: code_judge, script: node ../judge.mjs }
cases: ./tickets.csv
`;

// Quoted fields with commas, doubled quotes and a line break; CRLF; a BOM.
const CSV =
  '\uFEFFid,question,expected_outcome,topic\r\n' +
  't1,"Refund, please",Agrees to refund,billing\r\n' +
  't2,"He said ""late""",Apologises,shipping\r\n' +
  't3,"two\r\nlines",Reads both,other\r\n';

async function answers(dir: Project) {
  return parseJsonl(await readFile(dir.file('out.jsonl'), 'utf8'));
}

async function runCount(dir: Project): Promise<number> {
  return (await readFile(dir.file('runs.log'), 'utf8')).split('\n').filter(Boolean).length;
}

describe('agentv eval with datasets', () => {
  it('runs JSONL and CSV datasets case by case, each case getting its own answer', async () => {
    project = await createProject({
      'agent.mjs': AGENT,
      'judge.mjs': JUDGE,
      '.agentv/targets.yaml': targets(false),
      'evals/numbers.yaml': 'cases: data/numbers.jsonl\n',
      'evals/data/numbers.jsonl': jsonlCases(12),
      'evals/tickets.yaml': CSV_EVAL,
      'evals/tickets.csv': CSV,
    });
    const run = await runAgentv(
      ['eval', 'evals/numbers.yaml', 'evals/tickets.yaml', '--out', 'out.jsonl'],
      project.dir,
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('15 cases: 15 passed, 0 failed, 0 errored');
    expect(await runCount(project)).toBe(15);
    const lines = await answers(project);
    const byId = new Map(lines.map((line) => [line.eval_id, line]));
    expect(byId.get('c7')!.candidate_answer).toBe('answer: q7');
    expect(byId.get('t1')!.candidate_answer).toBe('answer: Refund, please');
    expect(byId.get('t2')!.candidate_answer).toBe('answer: He said "late"');
    expect(byId.get('t3')!.candidate_answer).toBe('answer: two\r\nlines');
    expect(JSON.stringify(byId.get('t2')!.evaluator_results)).toContain(
      'vars: {\\"topic\\":\\"shipping\\"}',
    );
    expect(lines.every((line) => line.passed)).toBe(true);
  });

  it('runs a JSONL dataset in batch mode: one runner start, every case its own answer', async () => {
    project = await createProject({
      'runner.mjs': RUNNER,
      '.agentv/targets.yaml': targets(true),
      'evals/numbers.yaml': 'execution:\n  target: default\ncases: numbers.jsonl\n',
      'evals/numbers.jsonl': jsonlCases(3000),
    });
    const run = await runAgentv(['eval', 'evals/numbers.yaml', '--out', 'out.jsonl'], project.dir);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(await runCount(project)).toBe(1);
    const lines = await answers(project);
    expect(lines).toHaveLength(3000);
    expect(
      lines.filter((line) => line.candidate_answer !== `answer: q${line.eval_id.slice(1)}`),
    ).toEqual([]);
    expect(run.stdout).toContain('3000 cases: 3000 passed, 0 failed, 0 errored');
  }, 120_000);

  it('reports bad dataset lines with file:line in validate, and eval runs nothing', async () => {
    project = await createProject({
      'agent.mjs': AGENT,
      'judge.mjs': JUDGE,
      '.agentv/targets.yaml': targets(false),
      'evals/numbers.yaml': 'cases: data/numbers.jsonl\n',
      'evals/data/numbers.jsonl': `${jsonlCases(2)}{"id": "c2", oops\n${jsonlCases(1)}`,
      'evals/tickets.yaml': CSV_EVAL,
      'evals/tickets.csv': 'id,question,topic\nt1,"a, b",x\nt2,one,two,three\n',
    });
    const validate = await runAgentv(['validate'], project.dir);
    expect(validate.code).toBe(1);
    const errors = validate.stdout.split('\n').filter((line) => line.startsWith('error:'));
    expect(errors).toEqual([
      expect.stringMatching(/^error: evals\/data\/numbers\.jsonl:3:1: invalid JSON: /),
      'error: evals/data/numbers.jsonl:4:1: case "c0": duplicate case id "c0" (first used at evals/data/numbers.jsonl:1) (hint: case ids must be unique within an eval file and its dataset; rename one of them)',
      'error: evals/tickets.csv:3:1: the row has 4 fields, the header has 3 (hint: quote fields that contain commas, quotes or line breaks ("a, b"; "say ""hi"""))',
    ]);
    // The datasets count as checked files: two eval files, two datasets, one targets file.
    expect(validate.stdout).toContain('5 files checked: 2 with errors (3 errors');
    const run = await runAgentv(['eval', 'evals/numbers.yaml', 'evals/tickets.yaml'], project.dir);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('evals/data/numbers.jsonl:3:1: invalid JSON');
    await expect(access(project.file('runs.log'))).rejects.toThrow();
  });
});

describe('examples/dataset', () => {
  const example = fileURLToPath(new URL('../../../../examples/dataset', import.meta.url));

  it.each([['default'], ['batch']])('passes every case offline with target %s', async (target) => {
    const out = await mkdtemp(path.join(tmpdir(), 'agentv-dataset-example-'));
    try {
      const run = await runAgentv(
        [
          'eval',
          'evals/capitals-jsonl.yaml',
          'evals/capitals-csv.yaml',
          '--target',
          target,
          '--out',
          path.join(out, 'out.jsonl'),
        ],
        example,
      );
      expect(run.stderr).toBe('');
      expect(run.stdout).toContain('7 cases: 7 passed, 0 failed, 0 errored');
      const lines = parseJsonl(await readFile(path.join(out, 'out.jsonl'), 'utf8'));
      expect(lines.map((line) => line.eval_id).sort()).toEqual([
        'canada',
        'france',
        'japan',
        'kenya',
        'line-4',
        'peru',
        'quoted',
      ]);
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });
});
