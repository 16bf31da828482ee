// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${{ NAME }} are placeholders of targets files, not JS templates
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, type Project, runAgentv } from '../support/project.js';
import { runInTerminal } from '../support/run-in-terminal.js';

let project: Project | undefined;
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
});

/** An agent that echoes the question and reports one lookup call, written in the original style. */
const AGENT = `
import { writeFileSync } from 'node:fs';
const [, , prompt, out] = process.argv;
const now = new Date().toISOString();
writeFileSync(out, JSON.stringify({
  text: 'Refunded. ' + prompt,
  trace: [{ type: 'tool_call', timestamp: now, name: 'lookupOrder', input: { id: 42 } }],
}));
`;

/** A targets file whose one target, `default`, runs `AGENT`. */
const DEFAULT_TARGETS = `targets:
  - name: default
    provider: cli
    command_template: node ../agent.mjs {PROMPT} {OUTPUT_FILE}
`;

/** Files written for AgentV's agentv-eval-v2 generation, using every spelling it allowed. */
const ORIGINAL_FORMAT = {
  'agent.mjs': AGENT,
  '.agentv/targets.yaml': `$schema: agentv-targets-v2.2
targets:
  - name: legacy_agent
    provider: cli
    commandTemplate: node ../agent.mjs {PROMPT} {OUTPUT_FILE}
    timeoutSeconds: 30
    maxRetries: 0
  - name: copilot
    provider: vscode
    workspaceTemplate: ./workspace.code-workspace
  - name: codex
    provider: codex
  - name: azure
    provider: cli
    commandTemplate: node ../agent.mjs {PROMPT} {OUTPUT_FILE}
    env: { AZURE_KEY: "\${{ AGENTV_TEST_UNSET_AZURE_KEY }}" }
`,
  '.agentv/config.yaml': `$schema: agentv-config-v2
guideline_patterns: ["**/*.instructions.md"]
`,
  'evals/legacy.yaml': `$schema: agentv-eval-v2
description: Written for agentv-eval-v2
target: legacy_agent
evalcases:
  - id: refund
    conversation_id: conv-1
    outcome: The agent refunds order 42
    input_messages:
      - role: system
        content: You are a support agent.
      - role: user
        content:
          - { type: text, value: "Please refund order 42." }
          - { type: file, value: ./order.json }
      - role: assistant
        content: Looking it up.
        tool_calls:
          - { tool: lookupOrder, input: { id: 42 }, output: { status: shipped } }
      - role: tool
        name: lookupOrder
        content: { status: shipped }
    expected_messages:
      - role: assistant
        tool_calls:
          - { tool: lookupOrder, input: { id: 42 }, output: { status: shipped } }
        content: Refunded.
    evaluators:
      - { name: refunded, type: contains, value: Refunded }
      - { name: looked-up, type: tool_trajectory, mode: in_order, expected: [{ tool: lookupOrder }] }
`,
  'evals/order.json': '{"id": 42, "total": 59.9}\n',
};

describe('agentv validate', () => {
  it('accepts agentv-eval-v2 files, which agentv eval then runs unchanged', async () => {
    project = await createProject(ORIGINAL_FORMAT);
    const env = {
      AGENTV_TEST_UNSET_AZURE_KEY: undefined,
      PATH: path.dirname(process.execPath),
    };
    const validate = await runAgentv(['validate'], project.dir, env);
    expect(validate.code, validate.stdout).toBe(0);
    // Unknown providers, unset variables and a CLI not installed are warnings for targets no
    // eval file uses (a targets file shared by machines); the run below uses none of them.
    expect(validate.stdout.split('\n')).toEqual([
      'warning: .agentv/targets.yaml:9:5: target "copilot": unknown provider "vscode"; this target cannot run with this AgentV (hint: use one of: amazon-bedrock, anthropic, azure, azure-openai, bedrock, claude, claude-cli, claude-code, cli, codex, copilot, copilot-cli, deepseek, gemini, gemini-cli, google, google-gemini, google-vertex, groq, http, mistral, mock, openai, openai-compatible, opencode, openrouter, vertex, xai, or leave it for runs that do not use it)',
      // The codex provider exists; its CLI is not on this PATH (only Node's folder).
      'warning: .agentv/targets.yaml:12:5: target "codex": provider: Codex is not installed: "codex" was not found on PATH (hint: install it with npm i -g @openai/codex (0.169.0 or newer), or set executable on the target to its path; no eval file checked uses this target: a run that uses it stops here)',
      'warning: .agentv/targets.yaml:16:12: target "azure": needs environment variable(s) AGENTV_TEST_UNSET_AZURE_KEY, which are not set (hint: set AGENTV_TEST_UNSET_AZURE_KEY in your shell or in a .env file; a run that uses this target fails until then)',
      '3 files checked: no errors (3 warnings)',
      '',
    ]);

    const run = await runAgentv(['eval', 'evals/legacy.yaml'], project.dir, env);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('1 case: 1 passed');

    // Using a target that cannot run is an error for the run (and for validate with --target).
    const codex = await runAgentv(
      ['eval', 'evals/legacy.yaml', '--target', 'codex'],
      project.dir,
      env,
    );
    expect(codex.code).toBe(2);
    expect(codex.stderr).toContain('target "codex": provider: Codex is not installed');
    const azure = await runAgentv(
      ['eval', 'evals/legacy.yaml', '--target', 'azure'],
      project.dir,
      env,
    );
    expect(azure.code).toBe(2);
    expect(azure.stderr).toContain(
      'target "azure": uses environment variable(s) AGENTV_TEST_UNSET_AZURE_KEY, which are not set',
    );
    const validateCodex = await runAgentv(['validate', '--target', 'codex'], project.dir, env);
    expect(validateCodex.code).toBe(1);
    expect(validateCodex.stdout).toContain(
      'error: .agentv/targets.yaml:12:5: target "codex": provider: Codex is not installed: "codex" was not found on PATH',
    );
  });

  it('checks only the targets an eval file uses, as eval would; a targets file given to it is checked whole', async () => {
    project = await createProject({
      'agent.mjs': AGENT,
      '.agentv/targets.yaml': `targets:
  - name: default
    provider: cli
    command_template: node ../agent.mjs {PROMPT} {OUTPUT_FILE}
  - name: broken
    provider: cli
    command_template: node ../agent.mjs {PROMTP} {OUTPUT_FILE}
`,
      'evals/a.yaml': `evalcases:
  - id: a
    input_messages: [{ role: user, content: hi }]
    evaluators: [{ type: contains, value: hi }]
`,
    });
    const broken =
      'error: .agentv/targets.yaml:7:5: target "broken": command_template: unknown placeholder {PROMTP}';

    const file = await runAgentv(['validate', 'evals/a.yaml'], project.dir);
    expect(file.stdout).toBe('2 files checked: no errors\n');
    expect(file.code).toBe(0);
    const run = await runAgentv(['eval', 'evals/a.yaml', '--out', 'out.jsonl'], project.dir);
    expect(run.code).toBe(0);

    // The eval file against the broken target, the targets file itself, or the whole project.
    for (const args of [
      ['validate', 'evals/a.yaml', '--target', 'broken'],
      ['validate', '.agentv/targets.yaml'],
      ['validate'],
    ]) {
      const checked = await runAgentv(args, project.dir);
      expect(checked.code).toBe(1);
      expect(checked.stdout).toContain(broken);
    }
  });

  it('detects file kinds by $schema and name, and skips dependencies, hidden folders and results', async () => {
    project = await createProject({
      'agent.mjs': AGENT,
      'suite/agents.yaml': `$schema: agentv-targets-v2.2
targets:
  - { name: default, provider: cli, command_template: "node ../agent.mjs {PROMPT} {OUTPUT_FILE}" }
`,
      'suite/cases.yml': `evalcases:
  - { id: a, input_messages: [{ role: user, content: hi }], evaluators: [{ type: contains, value: hi }] }
`,
      'other/targets.yml': 'targets:\n  - { name: default, provider: mock }\n',
      'other/cases.yaml': `evalcases:
  - { id: b, input_messages: [{ role: user, content: hi }], evaluators: [{ type: equals, value: hi }] }
`,
      'node_modules/dep/broken.yaml': 'not: [yaml\n',
      '.github/workflows/ci.yml': 'on: push\n',
      '.agentv/results/eval.yaml': '- eval_id: a\n',
    });
    const run = await runAgentv(['validate', '.', '--targets', 'suite/agents.yaml'], project.dir);
    expect(run.stdout).toBe('4 files checked: no errors\n');
    expect(run.code).toBe(0);
    const other = await runAgentv(['validate', 'other'], project.dir);
    expect(other.stdout).toBe('2 files checked: no errors\n');
  });

  it("skips other tools' YAML files in the folders it searches, names them, and checks them when named", async () => {
    project = await createProject({
      'agent.mjs': AGENT,
      '.agentv/targets.yaml': `targets:
  - { name: default, provider: cli, command_template: "node ../agent.mjs {PROMPT} {OUTPUT_FILE}" }
`,
      'evals/cases.yaml': `evalcases:
  - { id: a, input_messages: [{ role: user, content: hi }], evaluators: [{ type: contains, value: hi }] }
`,
      // A half-written eval file has a key of one: it is checked, and its error reported.
      'evals/draft.yaml': 'description: still to write\n',
      // So does one with a misspelt key, and one saved with a byte order mark.
      'evals/camel.yaml': 'name: camel\nevalCases:\n  - { id: c }\n',
      'evals/bom.yaml': `\uFEFFevalcases:
  - { id: b, input_messages: [{ role: user, content: hi }], evaluators: [{ type: contains, value: hi }] }
`,
      'ci/github-actions.yml':
        'name: evals\non: [push]\njobs:\n  eval:\n    runs-on: ubuntu-latest\n',
      'deploy/job.yaml': 'apiVersion: batch/v1\nkind: Job\n---\napiVersion: v1\nkind: ConfigMap\n',
      'docker-compose.yml': 'services:\n  web: { image: nginx }\n',
    });
    const run = await runAgentv(['validate'], project.dir);
    expect(run.code).toBe(1);
    expect(run.stdout.split('\n').slice(-3)).toEqual([
      "skipped 3 YAML files that are not AgentV's (no top-level key of an eval file): ci/github-actions.yml, deploy/job.yaml, docker-compose.yml",
      '5 files checked: 2 with errors (2 errors, 1 warning)',
      '',
    ]);
    // The misspelt list is camel.yaml's one error: it is not also missing `evalcases`.
    expect(run.stdout).not.toContain('camel.yaml:1:1: missing');
    expect(run.stdout).toContain('error: evals/draft.yaml:1:1: missing required key "evalcases"');
    expect(run.stdout).toContain(
      'error: evals/camel.yaml:2:1: unknown key "evalCases" at the top level: what it holds would be left out (hint: did you mean "evalcases"?)',
    );
    expect(run.stdout).not.toContain('bom.yaml');
    // A folder of nothing but other tools' files is a usage error that says why.
    const ci = await runAgentv(['validate', 'ci'], project.dir);
    expect(ci.code).toBe(2);
    expect(ci.stderr).toContain(
      `agentv: no eval files in "ci": its 1 YAML file (github-actions.yml) is not AgentV's`,
    );
    // Named, a file is checked as an eval file whatever it holds.
    const named = await runAgentv(['validate', 'ci/github-actions.yml'], project.dir);
    expect(named.code).toBe(1);
    expect(named.stdout).toContain(
      'error: ci/github-actions.yml:1:1: missing required key "evalcases"',
    );
    expect(named.stdout).not.toContain('skipped');
  });

  it("agentv eval reads a folder as validate does: other tools' YAML files are named and left out", async () => {
    project = await createProject({
      'agent.mjs': AGENT,
      '.agentv/targets.yaml': `targets:
  - { name: default, provider: cli, command_template: "node ../agent.mjs {PROMPT} {OUTPUT_FILE}" }
`,
      'evals/cases.yaml': `evalcases:
  - { id: a, input_messages: [{ role: user, content: hi }], evaluators: [{ type: contains, value: hi }] }
`,
      'evals/notes.yaml': 'owner: me\nreview: weekly\n',
    });
    const validate = await runAgentv(['validate'], project.dir);
    expect(validate.code).toBe(0);
    const listed = await runAgentv(['eval', '--list'], project.dir);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('a');
    expect(listed.stderr).toBe(
      "skipped 1 YAML file that is not AgentV's (no top-level key of an eval file): evals/notes.yaml\n",
    );
  });

  it('reports the same problems when large inputs are loaded on worker threads', async () => {
    const cases = (file: number, count: number) =>
      Array.from(
        { length: count },
        (_, index) =>
          `  - id: c${index}\n    input_messages:\n      - role: ${file === 1 && index === 700 ? 'robot' : 'user'}\n        content: Please refund order ${index}, the item arrived broken.\n    evaluators: [{ type: contains, value: refund }]\n`,
      ).join('');
    const files: Record<string, string> = {
      '.agentv/targets.yaml': 'targets:\n  - { name: default, provider: mock }\n',
    };
    // Over 512 KiB of YAML in all: enough for agentv validate to use worker threads.
    for (const file of [0, 1, 2])
      files[`evals/suite-${file}.yaml`] = `evalcases:\n${cases(file, 1500)}`;
    project = await createProject(files);
    const message =
      'evals/suite-1.yaml:3504:15: case "c700": input_messages[0].role must be one of "system", "user", "assistant", "tool", not "robot"';
    const validate = await runAgentv(['validate'], project.dir);
    expect(validate.code).toBe(1);
    expect(validate.stdout).toContain(`error: ${message}`);
    expect(validate.stdout).toContain('4 files checked: 1 with errors (1 error, 0 warnings)');
    const run = await runAgentv(['eval', 'evals'], project.dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`error: ${message}`);
  });

  it('colours its report on a terminal unless NO_COLOR is set', async () => {
    project = await createProject({ 'evals/a.yaml': 'evalcases: []\n' });
    const colored = await runInTerminal(['validate'], project.dir);
    expect(colored.code).toBe(1);
    expect(colored.stdout).toContain(
      '\u001b[1;31merror\u001b[0m: \u001b[1mevals/a.yaml:1:12:\u001b[0m',
    );
    const plain = await runInTerminal(['validate'], project.dir, { env: { NO_COLOR: '1' } });
    expect(plain.stdout).toContain(
      'error: evals/a.yaml:1:12: evalcases must have at least 1 entry',
    );
    expect(plain.stdout).not.toContain('\u001b');
  });

  it("reports a grader's required that is not true, false or a score, and a misspelling of it, at their lines", async () => {
    project = await createProject({
      'agent.mjs': AGENT,
      '.agentv/targets.yaml': DEFAULT_TARGETS,
      'evals/range.yaml': `evalcases:
  - id: refund
    input_messages: [{ role: user, content: Refund order 42 }]
    evaluators:
      - { name: ok, type: contains, value: Refunded, required: 0.6 }
      - { name: too-high, type: contains, value: Refunded, required: 2 }
`,
      'evals/spelling.yaml': `evalcases:
  - id: refund
    input_messages: [{ role: user, content: Refund order 42 }]
    evaluators:
      - { name: ok, type: contains, value: Refunded, required: true }
      - { name: misspelt, type: contains, value: Refunded, requird: true }
`,
    });
    const run = await runAgentv(['validate', 'evals'], project.dir);
    expect(run.code).toBe(1);
    const lines = run.stdout.split('\n').filter((line) => line.startsWith('error:'));
    expect(lines).toEqual([
      'error: evals/range.yaml:6:70: case "refund": evaluators[1].required must be at most 1 (hint: required is true, false, or the lowest score the case accepts from this grader (above 0, at most 1), e.g. `required: 0.6`)',
      'error: evals/spelling.yaml:6:60: case "refund": evaluator "misspelt": unknown key "requird": ignoring it would change the grade (hint: did you mean "required"?)',
    ]);
  });

  it('reports a misspelt evaluators: as the reason a case has no graders, not that it has none', async () => {
    project = await createProject({
      'agent.mjs': AGENT,
      '.agentv/targets.yaml': DEFAULT_TARGETS,
      // The file's list misspelt: case "a" would use it.
      'evals/file.yaml': `execution:
  evaluator:
    - { type: contains, value: hi }
evalcases:
  - id: a
    input_messages: [{ role: user, content: hi }]
`,
      // A case's own list misspelt (in itself, in its execution), then one with no grader at all.
      'evals/own.yaml': `evalcases:
  - id: b
    input_messages: [{ role: user, content: hi }]
    execution:
      evaluator:
        - { type: contains, value: hi }
  - id: e
    input_messages: [{ role: user, content: hi }]
    evaluatr:
      - { type: contains, value: hi }
  - id: f
    input_messages: [{ role: user, content: hi }]
`,
      // A dataset line misspelt, then one that has no grader anywhere: that one is reported.
      'evals/data.yaml': 'cases: ./data.jsonl\n',
      'evals/data.jsonl': `${JSON.stringify({ id: 'c', question: 'hi', Evaluators: [{ type: 'contains', value: 'hi' }] })}
${JSON.stringify({ id: 'd', question: 'hi' })}
`,
    });
    const run = await runAgentv(['validate', 'evals'], project.dir);
    expect(run.code).toBe(1);
    const lines = run.stdout.split('\n').filter((line) => line.startsWith('error:'));
    expect(lines).toEqual([
      'error: evals/data.yaml: case "d": has no evaluators (hint: add `evaluators:` to the case or `execution.evaluators` to the file, e.g. `- { type: contains, value: "refund" }`, or name a judge (`--judge-target`, `execution.judge_target` in the file, or `judge_target` on the target) to grade it with the default llm_judge)',
      'error: evals/file.yaml:2:3: unknown key "evaluator" in execution: what it holds would be left out (hint: did you mean "evaluators"?)',
      'error: evals/own.yaml:5:7: case "b": unknown key "evaluator" in execution: what it holds would be left out (hint: did you mean "evaluators"?)',
      'error: evals/own.yaml:9:5: case "e": unknown key "evaluatr": what it holds would be left out (hint: did you mean "evaluators"?)',
      'error: evals/own.yaml:11:5: case "f": has no evaluators (hint: add `evaluators:` to the case or `execution.evaluators` to the file, e.g. `- { type: contains, value: "refund" }`, or name a judge (`--judge-target`, `execution.judge_target` in the file, or `judge_target` on the target) to grade it with the default llm_judge)',
      'error: evals/data.jsonl:1:1: case "c": unknown key "Evaluators": what it holds would be left out (first on this line) (hint: did you mean "evaluators"?)',
    ]);
  });

  it("says what a tests: file's test without graders lacks in that format's words, and a judge grades it", async () => {
    const targets = (judge: string) => `targets:
  - name: default
    provider: cli
    command_template: node ../agent.mjs {PROMPT} {OUTPUT_FILE}
${judge}  - name: judge
    provider: mock
`;
    project = await createProject({
      'agent.mjs': AGENT,
      '.agentv/targets.yaml': targets(''),
      'evals/suite.yaml': `tests:
  - id: bare
    input: hi
    criteria: says hi
`,
    });
    const run = await runAgentv(['validate', 'evals'], project.dir);
    expect(run.code).toBe(1);
    expect(run.stdout.split('\n').filter((line) => line.startsWith('error:'))).toEqual([
      'error: evals/suite.yaml:2:5: case "bare": has no assertions (hint: add `assertions:` to the test or to the file, e.g. `- { type: contains, value: "refund" }`, or name a judge (`--judge-target`, `execution.judge_target` in the file, or `judge_target` on the target) to grade it with the default llm_judge)',
    ]);
    // The hint's second way: with a judge, the default llm_judge grades it.
    writeFileSync(
      path.join(project.dir, '.agentv/targets.yaml'),
      targets('    judge_target: judge\n'),
    );
    const judged = await runAgentv(['validate', 'evals'], project.dir);
    expect(judged.stdout).not.toContain('error:');
    expect(judged.code).toBe(0);
    // Or the judge named on the command line, as for eval.
    writeFileSync(path.join(project.dir, '.agentv/targets.yaml'), targets(''));
    const named = await runAgentv(['validate', '--judge-target', 'judge', 'evals'], project.dir);
    expect(named.stdout).not.toContain('error:');
    expect(named.code).toBe(0);
    const unknown = await runAgentv(['validate', '--judge-target', 'jugde', 'evals'], project.dir);
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toContain('jugde');
  });

  it("names an unknown assertion type in a tests: file's words, suggesting AgentV 4.x's names", async () => {
    project = await createProject({
      'agent.mjs': AGENT,
      '.agentv/targets.yaml': DEFAULT_TARGETS,
      'evals/suite.yaml': `tests:
  - id: a
    input: hi
    assertions:
      - type: is-jsn
      - type: llm-grader-x
      - type: llm-judge
`,
    });
    const run = await runAgentv(['validate', 'evals'], project.dir);
    expect(run.code).toBe(1);
    const errors = run.stdout.split('\n').filter((line) => line.startsWith('error:'));
    expect(errors.map((line) => line.replace(/ Or use one of: .*/, ''))).toEqual([
      'error: evals/suite.yaml:5:15: case "a": assertion "is-jsn" has unknown type "is-jsn" (hint: did you mean "is-json"?',
      'error: evals/suite.yaml:6:15: case "a": assertion "llm-grader-x" has unknown type "llm-grader-x" (hint: did you mean "llm-grader"?',
      // Such a file reads this AgentV's own names too.
      'error: evals/suite.yaml:7:15: case "a": assertion "llm-judge" has unknown type "llm-judge" (hint: did you mean "llm_judge"?',
    ]);
    // The list is of the names such a file writes: 4.x's, and this AgentV's that none is read as.
    expect(errors[0]).toContain('code-grader, command, composite, contains, contains-all');
    expect(errors[0]).not.toContain('is_json');
  });

  it("reports a case's grader problems beside its unknown target, not after it is fixed", async () => {
    project = await createProject({
      'agent.mjs': AGENT,
      '.agentv/targets.yaml': DEFAULT_TARGETS,
      'evals/t.yaml': `execution:
  target: defualt
evalcases:
  - id: a
    input_messages: [{ role: user, content: hi }]
    evaluators: [{ type: contians, value: hi }]
    rubrics: []
`,
    });
    const run = await runAgentv(['validate', 'evals'], project.dir);
    expect(run.code).toBe(1);
    const errors = run.stdout.split('\n').filter((line) => line.startsWith('error:'));
    expect(errors.map((line) => line.replace(/ \(hint: .*/, ''))).toEqual([
      'error: evals/t.yaml:2:11: case "a": unknown target "defualt"',
      'error: evals/t.yaml:4:5: case "a": evaluator "rubrics" (rubric) has no rubric items',
      'error: evals/t.yaml:6:26: case "a": evaluator "contians" has unknown type "contians"',
    ]);
  });

  it('exits 2 for a path that does not exist', async () => {
    project = await createProject({});
    const run = await runAgentv(['validate', 'evals'], project.dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('agentv: no eval, targets or config files match "evals"');
    expect(run.stdout).toBe('');
  });

  it('says a folder holds no input files, without guessing another name for it', async () => {
    project = await createProject({ 'evals/notes.txt': 'not yaml\n' });
    for (const [args, cwd, shown] of [
      [['validate', 'evals'], project.dir, 'evals'],
      [['validate'], path.join(project.dir, 'evals'), '.'],
    ] as const) {
      const run = await runAgentv([...args], cwd);
      expect(run.code).toBe(2);
      expect(run.stderr).toBe(
        `agentv: no eval, targets or config files in "${shown}"\n  hint: the folder and its subfolders hold none; give a file's path, or run \`agentv init\` to write a starter project\n`,
      );
    }
  });

  it('lists validate and init in the help', async () => {
    const run = await runAgentv(['--help'], process.cwd());
    expect(run.stdout).toContain('validate');
    expect(run.stdout).toContain('init');
    const help = await runAgentv(['validate', '--help'], process.cwd());
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--targets');
  });
});
