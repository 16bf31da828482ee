import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, type Project, parseJsonl, runAgentv } from '../support/project.js';

let project: Project | undefined;
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
});

const AGENT = "process.stdout.write('You said: ' + process.argv[2]);\n";

/** A one-file project: its target and its cases in one eval file, no targets.yaml. */
const ONE_FILE = `targets:
  - name: local
    provider: cli
    commandTemplate: node ../agent.mjs {PROMPT}
    max_retries: 0
execution:
  target: local
evalcases:
  - id: greet
    input_messages: [{ role: user, content: hello }]
    evaluators: [{ type: contains, value: "You said: hello" }]
`;

const OTHER_FILE = `execution:
  target: local
evalcases:
  - id: other
    input_messages: [{ role: user, content: hi }]
    evaluators: [{ type: contains, value: hi }]
`;

describe('targets declared inline in an eval file', () => {
  it('runs a project that is one eval file, with no targets.yaml', async () => {
    project = await createProject({ 'agent.mjs': AGENT, 'evals/small.yaml': ONE_FILE });
    const run = await runAgentv(['eval', 'evals/small.yaml', '--out', 'out.jsonl'], project.dir);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('1 case: 1 passed, 0 failed, 0 errored');
    const [line] = parseJsonl(await readFile(project.file('out.jsonl'), 'utf8'));
    expect(line).toMatchObject({ eval_id: 'greet', target: 'local', score: 1 });

    const validate = await runAgentv(['validate', 'evals/small.yaml'], project.dir);
    expect(validate.code).toBe(0);
    expect(validate.stdout + validate.stderr).toBe('1 file checked: no errors\n');
  });

  it('are seen only by the cases of their own eval file', async () => {
    project = await createProject({
      'agent.mjs': AGENT,
      'evals/small.yaml': ONE_FILE,
      'evals/other.yaml': OTHER_FILE,
    });
    const run = await runAgentv(['eval', 'evals'], project.dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'error: evals/other.yaml:2:11: case "other": unknown target "local" (hint: no targets file was found: create .agentv/targets.yaml next to your evals or pass --targets PATH)\n',
    );
  });

  it('two eval files run together cannot each declare a target of the same name', async () => {
    project = await createProject({
      'agent.mjs': AGENT,
      'evals/small.yaml': ONE_FILE,
      'evals/twin.yaml': ONE_FILE,
    });
    const run = await runAgentv(['eval', 'evals'], project.dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'error: evals/twin.yaml:2:5: target "local": also declared inline in evals/small.yaml:2:5; eval files that run together need different target names (hint: rename one of them, move the target to targets.yaml to share it, or run these eval files separately)\n',
    );
    // Each runs on its own, and validate checks each file for itself.
    expect((await runAgentv(['eval', 'evals/twin.yaml'], project.dir)).code).toBe(0);
    expect((await runAgentv(['validate', 'evals'], project.dir)).code).toBe(0);
  });

  it('a name also in targets.yaml is an error naming both places, in eval and validate', async () => {
    project = await createProject({
      'agent.mjs': AGENT,
      'targets.yaml':
        'targets:\n  - name: default\n    provider: mock\n  - name: local\n    provider: mock\n',
      'evals/small.yaml': ONE_FILE,
    });
    const expected =
      'error: evals/small.yaml:2:5: target "local": defined twice: inline in evals/small.yaml:2:5 and in targets.yaml:4:5 (hint: rename one of them (inline targets are seen only by the cases of their own eval file), or delete the inline one to use targets.yaml\'s)\n';
    const run = await runAgentv(['eval', 'evals/small.yaml'], project.dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(expected);
    const validate = await runAgentv(['validate', 'evals/small.yaml'], project.dir);
    expect(validate.code).toBe(1);
    expect(validate.stdout).toBe(
      `${expected}2 files checked: 1 with errors (1 error, 0 warnings)\n`,
    );
  });

  it('are checked like targets.yaml: unknown keys, unknown providers and settings', async () => {
    project = await createProject({
      'evals/small.yaml': `targets:
  - name: local
    provider: clii
    command_template: echo {PROMPT}
  - name: judge
    provider: cli
    comand_template: echo {PROMPT}
    workers: 0
execution:
  target: local
evalcases:
  - id: greet
    input_messages: [{ role: user, content: hello }]
    evaluators: [{ type: contains, value: hello }]
`,
    });
    const validate = await runAgentv(['validate', 'evals/small.yaml'], project.dir);
    expect(validate.code).toBe(1);
    const lines = validate.stdout.split('\n');
    // The unknown provider, on the target's line, like in targets.yaml.
    expect(lines[0]).toMatch(
      /^error: evals\/small\.yaml:3:5: target "local": unknown provider "clii" \(hint: /,
    );
    expect(lines.slice(1)).toEqual([
      'error: evals/small.yaml:5:5: target "judge": command_template: is required (hint: set command_template to the command that runs your agent, e.g. "node ./agent.mjs --prompt {PROMPT}")',
      'warning: evals/small.yaml:7:5: target "judge": unknown key "comand_template" for provider "cli" is ignored (hint: did you mean "command_template"?)',
      'error: evals/small.yaml:8:14: target "judge": workers must be at least 1 (hint: workers is a whole number >= 1, e.g. `workers: 4`)',
      '1 file checked: 1 with errors (3 errors, 1 warning)',
      '',
    ]);
    const run = await runAgentv(['eval', 'evals/small.yaml'], project.dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      [
        'warning: evals/small.yaml:7:5: target "judge": unknown key "comand_template" for provider "cli" is ignored (hint: did you mean "command_template"?)',
        'error: evals/small.yaml:8:14: target "judge": workers must be at least 1 (hint: workers is a whole number >= 1, e.g. `workers: 4`)',
        '',
      ].join('\n'),
    );
  });
});
