import { readFile, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createProject,
  ECHO_AGENT,
  ECHO_TARGETS,
  type Project,
  runAgentv,
} from '../support/project.js';

// Every command that reads a result file checks each line against the one result-line schema:
// a malformed line is named with its file, line and field, and the command exits 2 — never an
// unexpected error. The lines start as a real run wrote them (with --include-trace, so `grade`
// could use them) and are then broken one way each.

let project: Project;
let lines: Record<string, unknown>[];

beforeAll(async () => {
  project = await createProject({
    'agent.mjs': ECHO_AGENT,
    '.agentv/targets.yaml': ECHO_TARGETS,
    'evals/e.yaml': `execution:\n  target: default\nevalcases:\n${['one', 'two']
      .map(
        (id) => `  - id: ${id}
    input_messages: [{ role: user, content: "say ${id}" }]
    evaluators: [{ type: contains, value: "You said" }]
`,
      )
      .join('')}`,
  });
  const run = await runAgentv(
    ['eval', 'evals/e.yaml', '--out', 'good.jsonl', '--include-trace'],
    project.dir,
  );
  expect(run.code, run.stderr).toBe(0);
  lines = (await readFile(project.file('good.jsonl'), 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
});
afterAll(() => project?.cleanup());

const jsonl = (...rows: unknown[]) =>
  rows.map((row) => (typeof row === 'string' ? row : JSON.stringify(row))).join('\n');

/** Each malformed file: its content, and the start of the message naming what is wrong. */
const MALFORMED: Record<string, () => { content: string; message: string }> = {
  'wrong-type.jsonl': () => ({
    content: `${jsonl(lines[0], { ...lines[1], evaluator_results: 'oops' })}\n`,
    message: 'wrong-type.jsonl:2: evaluator_results: expected an array, got a string',
  }),
  'nested-type.jsonl': () => ({
    content: `${jsonl({ ...lines[0], run: { ...(lines[0]!.run as object), cases: '2' } }, lines[1])}\n`,
    message: 'nested-type.jsonl:1: run.cases: expected a number, got a string',
  }),
  'missing.jsonl': () => {
    const { score: _, ...noScore } = lines[1]!;
    return {
      content: `${jsonl(lines[0], noScore)}\n`,
      message: 'missing.jsonl:2: score: missing (expected a number)',
    };
  },
  // Cut short in the middle of the file: not the end of an interrupted write.
  'torn.jsonl': () => ({
    content: `${jsonl(JSON.stringify(lines[0]).slice(0, 40), lines[1])}\n`,
    message: 'torn.jsonl:1:41: invalid JSON:',
  }),
  'not-json.jsonl': () => ({
    content: `${jsonl(lines[0], 'eval_id=two score=1')}\n`,
    message: 'not-json.jsonl:2:1: invalid JSON:',
  }),
};

const COMMANDS: Record<string, (file: string) => string[]> = {
  grade: (file) => ['grade', file],
  compare: (file) => ['compare', 'good.jsonl', file],
  'results merge': (file) => ['results', 'merge', file, '--out', 'merged.jsonl'],
  'eval --resume': (file) => ['eval', 'evals/e.yaml', '--resume', file],
};

describe('a malformed result line', () => {
  it.each(Object.keys(COMMANDS))(
    '%s names its file, line and problem and exits 2',
    async (name) => {
      for (const [file, make] of Object.entries(MALFORMED)) {
        const { content, message } = make();
        await writeFile(project.file(file), content);
        const run = await runAgentv(COMMANDS[name]!(file), project.dir);
        expect(run.stderr.startsWith(`agentv: ${message}`), `${name} ${file}: ${run.stderr}`).toBe(
          true,
        );
        expect(run.stderr).toContain('\n  hint: ');
        expect(run.stderr).not.toContain('bug in AgentV');
        expect(run.stderr).not.toContain('    at ');
        expect(run.code, `${name} ${file}`).toBe(2);
        // Nothing was rewritten, merged or run.
        expect(await readFile(project.file(file), 'utf8')).toBe(content);
      }
    },
  );

  it('--resume still drops a last line cut short by an interrupted write, and says so', async () => {
    const cut = JSON.stringify(lines[1]).slice(0, 60);
    await writeFile(project.file('cut.jsonl'), `${jsonl(lines[0], cut)}`);
    const run = await runAgentv(['eval', 'evals/e.yaml', '--resume', 'cut.jsonl'], project.dir);
    expect(run.stderr).toContain(
      'cut.jsonl:2: the last line is incomplete (the run that wrote it was interrupted)',
    );
    expect(run.code, run.stderr).toBe(0);
    const resumed = (await readFile(project.file('cut.jsonl'), 'utf8')).split('\n').filter(Boolean);
    expect(resumed.map((line) => JSON.parse(line).eval_id).sort()).toEqual(['one', 'two']);
  });
});
