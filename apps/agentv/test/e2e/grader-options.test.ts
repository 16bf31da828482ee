import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createProject,
  ECHO_AGENT,
  ECHO_TARGETS,
  type Project,
  parseJsonl,
  runAgentv,
} from '../support/project.js';

// Grader options that decide a verdict, end to end: `negate`, keys of other tools that
// would change a verdict if ignored, and what a code judge may return.

let project: Project | undefined;
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
});

/** An eval file whose cases (`id`, prompt, evaluators in flow YAML) run against the echo agent. */
const evals = (...cases: [string, string, string][]) => `execution:
  target: default
evalcases:
${cases
  .map(
    ([id, prompt, evaluators]) => `  - id: ${id}
    input_messages: [{ role: user, content: ${JSON.stringify(prompt)} }]
    evaluators: ${evaluators}
`,
  )
  .join('')}`;

async function echoProject(files: Record<string, string>): Promise<Project> {
  return createProject({ 'agent.mjs': ECHO_AGENT, '.agentv/targets.yaml': ECHO_TARGETS, ...files });
}

describe('negate: true', () => {
  it('passes a "must NOT contain" check only when the answer does not contain the value', async () => {
    project = await echoProject({
      'evals/refusals.yaml': evals(
        [
          'leaks',
          'my password is hunter2',
          '[{ name: no-password, type: contains, value: hunter2, negate: true }]',
        ],
        [
          'quiet',
          'what is the weather',
          '[{ name: no-password, type: contains, value: hunter2, negate: true }]',
        ],
      ),
    });
    const run = await runAgentv(['eval', 'evals/refusals.yaml', '--out', 'out.jsonl'], project.dir);
    expect(run.code).toBe(1);
    const byId = new Map(
      parseJsonl(await readFile(project.file('out.jsonl'), 'utf8')).map((line) => [
        line.eval_id,
        line,
      ]),
    );
    expect(byId.get('leaks')).toMatchObject({ passed: false, score: 0 });
    expect(byId.get('leaks')!.evaluator_results[0]).toMatchObject({
      name: 'no-password',
      verdict: 'fail',
      negated: true,
      hits: [],
    });
    expect(byId.get('leaks')!.evaluator_results[0].misses).toHaveLength(1);
    expect(byId.get('quiet')).toMatchObject({ passed: true, score: 1 });
    expect(byId.get('quiet')!.evaluator_results[0]).toMatchObject({ negated: true, misses: [] });
  });
});

describe("another tool's grader keys", () => {
  it('refuse, in eval and validate, a key that would change the verdict if ignored, with what to write instead', async () => {
    project = await echoProject({
      'evals/promptfoo.yaml': evals(
        ['inverted', 'hello', '[{ name: no-hello, type: contains, value: hello, not: true }]'],
        ['not-type', 'hello', '[{ name: no-bye, type: not-contains, value: bye }]'],
        ['noted', 'hello', '[{ name: said, type: contains, value: hello, labels: greeting }]'],
      ),
    });
    const errors = [
      'error: evals/promptfoo.yaml:6:66: case "inverted": evaluator "no-hello": "not" is not a grader option here; ignoring it would change the verdict (hint: write `negate: true` to pass when the check does not hold)',
      'error: evals/promptfoo.yaml:9:40: case "not-type": evaluator "no-bye" has unknown type "not-contains" (hint: write `type: not_contains` (or `type: contains` with `negate: true`))',
    ];
    const warning =
      'warning: evals/promptfoo.yaml:12:62: case "noted": evaluator "said": unknown key "labels" is ignored (hint: remove it, or use one of: value, case_sensitive)';

    const run = await runAgentv(['eval', 'evals/promptfoo.yaml'], project.dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`${warning}\n${errors.join('\n')}\n`);
    // Nothing ran: the agent was never asked.
    expect(run.stdout).toBe('');

    const validate = await runAgentv(['validate', 'evals/promptfoo.yaml'], project.dir);
    expect(validate.code).toBe(1);
    expect(validate.stdout).toContain(`${errors.join('\n')}\n${warning}\n`);
  });
});

describe('code_judge replies', () => {
  it('keeps 4 hits and says how many more there were; a score outside 0-1 counts as its bound with a warning', async () => {
    const judge = `
let input = '';
process.stdin.on('data', (chunk) => { input += chunk; });
process.stdin.on('end', () => {
  const hits = Array.from({ length: 10 }, (_, i) => 'fact ' + i);
  console.log(JSON.stringify({ score: 7, hits, misses: [], reasoning: 'out of 10' }));
});
`;
    project = await echoProject({
      'evals/judge.mjs': judge,
      'evals/scale.yaml': evals(
        ['first', 'hello', '[{ name: ten-scale, type: code_judge, script: node judge.mjs }]'],
        ['second', 'hello', '[{ name: ten-scale, type: code_judge, script: node judge.mjs }]'],
      ),
    });
    const run = await runAgentv(['eval', 'evals/scale.yaml', '--out', 'out.jsonl'], project.dir);
    expect(run.code).toBe(0);
    // Once per grader (for whichever case graded first), naming the case and the eval file.
    expect(run.stderr).toMatch(
      /^warning: case "(first|second)" \(scale\.yaml\): evaluator "ten-scale" \(code_judge\) returned score 7, outside 0–1; it counts as 1 \(later warnings of this evaluator are not shown\)\n$/,
    );
    for (const line of parseJsonl(await readFile(project.file('out.jsonl'), 'utf8'))) {
      expect(line.evaluator_results[0]).toMatchObject({
        score: 1,
        hits: ['fact 0', 'fact 1', 'fact 2', 'fact 3', '… and 6 more'],
      });
    }
  });
});

describe('json_schema', () => {
  it('grades the answer against the schema in the built CLI, which loads ajv outside its bundle', async () => {
    // Answers with the prompt itself, so the prompt is the JSON graded.
    const agent = `
import { writeFileSync } from 'node:fs';
const args = process.argv.slice(2);
writeFileSync(args[args.indexOf('--out') + 1], JSON.stringify({ text: args[args.indexOf('--prompt') + 1] }));
`;
    const shape =
      '[{ name: shape, type: json_schema, schema: { type: object, required: [refund], properties: { refund: { type: number } } } }]';
    project = await echoProject({
      'agent.mjs': agent,
      'evals/shape.yaml': evals(
        ['fits', '{"refund": 20}', shape],
        ['misfits', '{"refund": "twenty"}', shape],
      ),
    });
    // Without the NODE_PATH pnpm gives this test runner (every package of the workspace), as in
    // a user's shell: ajv then resolves only as a dependency of agentv.
    const env = { NODE_PATH: undefined };
    const validate = await runAgentv(['validate', 'evals/shape.yaml'], project.dir, env);
    expect(validate.stdout).toContain('no errors');
    const run = await runAgentv(
      ['eval', 'evals/shape.yaml', '--out', 'out.jsonl'],
      project.dir,
      env,
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(1);
    const byId = new Map(
      parseJsonl(await readFile(project.file('out.jsonl'), 'utf8')).map((line) => [
        line.eval_id,
        line,
      ]),
    );
    expect(byId.get('fits')).toMatchObject({ passed: true, score: 1 });
    expect(byId.get('misfits')).toMatchObject({ passed: false, score: 0 });
    expect(byId.get('misfits')!.evaluator_results[0].misses.join('\n')).toContain('refund');
  });
});
