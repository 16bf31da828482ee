import { access, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
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
      expect.stringMatching(
        /^error: evals\/data\/numbers\.jsonl:3:14: invalid JSON: Expected double-quoted property name \(hint: /,
      ),
      'error: evals/data/numbers.jsonl:4:1: case "c0": duplicate case id "c0" (first used at evals/data/numbers.jsonl:1) (hint: case ids must be unique within an eval file and its dataset; rename one of them)',
      'error: evals/tickets.csv:3:1: the row has 4 fields, the header has 3 (hint: quote fields that contain commas, quotes or line breaks ("a, b"; "say ""hi"""))',
    ]);
    // The datasets count as checked files: two eval files, two datasets, one targets file.
    expect(validate.stdout).toContain('5 files checked: 2 with errors (3 errors');
    const run = await runAgentv(['eval', 'evals/numbers.yaml', 'evals/tickets.yaml'], project.dir);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('evals/data/numbers.jsonl:3:14: invalid JSON');
    await expect(access(project.file('runs.log'))).rejects.toThrow();
  });
});

describe('dataset messages', () => {
  it('points at the column of invalid JSON in a dataset line', async () => {
    project = await createProject({
      'agent.mjs': AGENT,
      '.agentv/targets.yaml': targets(false),
      'evals/d.yaml': 'cases: d.jsonl\n',
      'evals/d.jsonl': `${jsonlCases(1)}{"id":"a" "input_messages": []}\n`,
    });
    const validate = await runAgentv(['validate'], project.dir);
    expect(validate.code).toBe(1);
    expect(validate.stdout).toContain(
      `error: evals/d.jsonl:2:11: invalid JSON: Expected ',' or '}' after property value (hint: write one case per line as a JSON object, e.g. {"id": "c1", "question": "..."} or {"id": "c1", "input_messages": [{"role": "user", "content": "..."}]})\n`,
    );
    const run = await runAgentv(['eval', 'evals/d.yaml'], project.dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      "error: evals/d.jsonl:2:11: invalid JSON: Expected ',' or '}' after property value",
    );
  });

  it('reads a JSONL question (or input) as one user message, as a CSV column', async () => {
    project = await createProject({
      'agent.mjs': AGENT,
      '.agentv/targets.yaml': targets(false),
      'evals/d.yaml':
        'execution:\n  evaluators:\n    - { type: contains, value: "answer: " }\ncases: d.jsonl\n',
      'evals/d.jsonl': '{"id":"a","input":"hi"}\n{"id":"b","question":"Capital of France?"}\n',
    });
    const run = await runAgentv(['eval', 'evals/d.yaml', '--out', 'out.jsonl'], project.dir);
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('2 cases: 2 passed, 0 failed, 0 errored');
    const byId = new Map((await answers(project)).map((line) => [line.eval_id, line]));
    expect(byId.get('a')!.candidate_answer).toBe('answer: hi');
    expect(byId.get('b')!.candidate_answer).toBe('answer: Capital of France?');

    await writeFile(
      project.file('evals/d.jsonl'),
      '{"id":"a","input":"hi","input_messages":[{"role":"user","content":"hi"}]}\n{"id":"b","question":3}\n',
    );
    const validate = await runAgentv(['validate'], project.dir);
    expect(validate.stdout.split('\n').filter((line) => line.startsWith('error:'))).toEqual([
      'error: evals/d.jsonl:1:1: the case gives what the agent is asked more than once: "input" and "input_messages" (hint: keep one of them: `question` (text, one user message) or `input_messages`)',
      'error: evals/d.jsonl:2:1: "question" must be non-empty text (hint: write what the agent is asked as a string, e.g. "question": "What is the capital of France?")',
    ]);
  });

  it('suggests the dataset file a misspelt cases: path meant', async () => {
    project = await createProject({
      '.agentv/targets.yaml': targets(false),
      'evals/typo.yaml': 'cases: d.jsnl\n',
      'evals/missing.yaml': 'cases: data/cases.jsonl\n',
      'evals/d.jsonl': jsonlCases(1),
      'evals/data/case.jsonl': jsonlCases(1),
    });
    const validate = await runAgentv(['validate'], project.dir);
    expect(validate.code).toBe(1);
    expect(validate.stdout.split('\n').filter((line) => line.startsWith('error:'))).toEqual([
      'error: evals/missing.yaml:1:1: dataset data/cases.jsonl not found (looked for evals/data/cases.jsonl) (hint: did you mean "data/case.jsonl"? the `cases:` path is relative to the eval file)',
      'error: evals/typo.yaml:1:1: dataset "d.jsnl" is neither .jsonl nor .csv (hint: did you mean "d.jsonl"? name a JSONL file (`cases: ./cases.jsonl`, one case per line) or a CSV file with a header row (`cases: ./cases.csv`))',
    ]);
  });

  it('tells a file name given as dataset: to go in cases:', async () => {
    project = await createProject({
      '.agentv/targets.yaml': targets(false),
      'evals/d.yaml': 'dataset: x.jsonl\n',
      'evals/named.yaml': 'dataset: billing\n',
      'evals/x.jsonl': jsonlCases(1),
    });
    const validate = await runAgentv(['validate'], project.dir);
    expect(validate.stdout.split('\n').filter((line) => line.startsWith('error:'))).toEqual([
      'error: evals/d.yaml:1:1: missing required key "evalcases" (hint: to read cases from a file, write `cases: x.jsonl`; `dataset:` only names the results)',
      expect.stringMatching(
        /^error: evals\/named\.yaml:1:1: missing required key "evalcases" \(hint: add an `evalcases:` list/,
      ),
    ]);
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
