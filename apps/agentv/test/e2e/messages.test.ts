import { spawnSync } from 'node:child_process';
import { chmod, readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, type Project, parseJsonl, runAgentv } from '../support/project.js';

// Issue 16: every message true and useful. Each test runs the built CLI as a user
// would and asserts the exact messages.

let project: Project | undefined;
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
});

const targets = (settings: string) => `targets:
  - name: default
    provider: cli
    cwd: ..
${settings
  .trim()
  .split('\n')
  .map((line) => `    ${line}`)
  .join('\n')}
`;

const evalFile = (ids: string[], evaluator = '{ name: said, type: contains, value: said }') =>
  `execution:
  target: default
evalcases:
${ids
  .map(
    (id) => `  - id: ${id}
    input_messages:
      - role: user
        content: hello
    evaluators:
      - ${evaluator}
`,
  )
  .join('')}`;

const ECHO = "console.log('said ' + process.argv[2]);\n";

async function results(): Promise<ReturnType<typeof parseJsonl>> {
  return parseJsonl(await readFile(project!.file('out.jsonl'), 'utf8'));
}

describe('a code_judge script that crashes', () => {
  it("shows a Node error's own line, not only the end of its stack trace", async () => {
    project = await createProject({
      'agent.mjs': ECHO,
      'judge.mjs': `
for (let i = 0; i < 300; i++) console.error('loading rubric part ' + i);
throw new Error('rubric file is empty');
`,
      '.agentv/targets.yaml': targets('command_template: node agent.mjs {PROMPT}'),
      'evals/j.yaml': evalFile(
        ['crash'],
        '{ name: graded, type: code_judge, script: node ../judge.mjs }',
      ),
    });
    const run = await runAgentv(['eval', 'evals/j.yaml', '--out', 'out.jsonl'], project.dir);
    expect(run.code).toBe(2);
    expect(run.stdout).toContain(
      '[1/1] ERROR crash  evaluator "graded" (code_judge) failed: script "node ../judge.mjs" exited with code 1; Error: rubric file is empty; stderr: loading rubric part 0 | ',
    );
    const [line] = await results();
    const error: string = line!.evaluator_results[0].error;
    expect(error).toMatch(
      /^script "node \.\.\/judge\.mjs" exited with code 1; Error: rubric file is empty; stderr: loading rubric part 0 \| loading rubric part 1 \| .* \| … \d+ lines cut … \| .*Node\.js v\d+/,
    );
  });

  it.skipIf(spawnSync('python3', ['--version']).status !== 0)(
    "shows Python's last error line, printed at the bottom of the traceback",
    async () => {
      project = await createProject({
        'agent.mjs': ECHO,
        'judge.py': `
import json, sys
def grade(data):
    return data["score"]
grade(json.load(sys.stdin))
`,
        '.agentv/targets.yaml': targets('command_template: node agent.mjs {PROMPT}'),
        'evals/j.yaml': evalFile(
          ['py'],
          '{ name: graded, type: code_judge, script: python3 ../judge.py }',
        ),
      });
      const run = await runAgentv(['eval', 'evals/j.yaml', '--out', 'out.jsonl'], project.dir);
      expect(run.code).toBe(2);
      expect(run.stdout).toContain(
        `failed: script "python3 ../judge.py" exited with code 1; KeyError: 'score'; stderr: Traceback (most recent call last): | `,
      );
    },
  );
});

describe('a cli agent that crashes', () => {
  const CRASH = `node -e "function f(){ throw new Error('db connection refused') } f()"`;
  const HINT =
    ' (hint: run the rendered command by hand to find out why it fails; --verbose prints it)';

  /** The progress line and the summary's "Lowest-scoring cases" line of each case. */
  function shown(stdout: string, id: string) {
    const lines = stdout.split('\n');
    return {
      progress: lines.find((line) => / ERROR /.test(line) && line.includes(` ${id}  `)) ?? '',
      lowest: lines.find((line) => line.startsWith(`  ERROR  ${id} (default): `)) ?? '',
    };
  }

  it.each([
    ['one call per case', `${CRASH} {PROMPT}`, ''],
    [
      'a batch',
      `${CRASH} {INPUT_FILE} {OUTPUT_FILE}\nprovider_batching: true`,
      'batch of 2 cases failed: ',
    ],
  ])("leads with the error's own message (%s)", async (_, settings, batch) => {
    project = await createProject({
      '.agentv/targets.yaml': targets(`
command_template: ${settings}
max_retries: 0
`),
      'evals/o.yaml': evalFile(['order-status', 'order-refund']),
    });
    const run = await runAgentv(['eval', 'evals/o.yaml', '--out', 'out.jsonl'], project.dir);
    expect(run.code).toBe(2);
    const lead = `${batch}command exited with code 1; Error: db connection refused; stderr: [eval]:1 | `;
    for (const line of await results()) {
      expect(line.error.startsWith(lead), line.error).toBe(true);
      expect(line.error).toMatch(/ \| Node\.js v\d+\.\d+\.\d+ \(hint: .*\)$/);
      expect(line.error.endsWith(HINT)).toBe(true);
      const { progress, lowest } = shown(run.stdout, line.eval_id);
      expect(progress).toMatch(/^\[[12]\/2\] ERROR (order-status|order-refund) {2}/);
      expect(progress).toContain(`${line.eval_id}  ${lead}`);
      expect(lowest).toBe(
        `  ERROR  ${line.eval_id} (default): ${`${line.error.slice(0, 120 - 3)}`}...`,
      );
    }
  });

  it.skipIf(spawnSync('python3', ['--version']).status !== 0)(
    "leads with Python's last error line, printed at the bottom of the traceback",
    async () => {
      project = await createProject({
        'agent.py': `import sys
print("loading orders", file=sys.stderr)
def status(order):
    return order["status"]
print(status({"id": sys.argv[1]}))
`,
        '.agentv/targets.yaml': targets(`
command_template: python3 agent.py {PROMPT}
max_retries: 0
`),
        'evals/o.yaml': evalFile(['order-status']),
      });
      const run = await runAgentv(['eval', 'evals/o.yaml', '--out', 'out.jsonl'], project.dir);
      expect(run.code).toBe(2);
      const [line] = await results();
      expect(line!.error).toMatch(
        /^command exited with code 1; KeyError: 'status'; stderr: loading orders \| Traceback \(most recent call last\): \| .* \| KeyError: 'status' \(hint: /,
      );
      expect(shown(run.stdout, 'order-status').lowest).toBe(
        `  ERROR  order-status (default): command exited with code 1; KeyError: 'status'; stderr: loading orders | Traceback (most recent call last): |   File ...`,
      );
    },
  );

  it("leads with the shell's own message for a program it cannot find", async () => {
    project = await createProject({
      'agent.mjs': "console.error('loading orders');\n",
      '.agentv/targets.yaml': targets(`
command_template: node agent.mjs {PROMPT} && summarize-orders-16
max_retries: 0
`),
      'evals/o.yaml': evalFile(['order-status']),
    });
    const run = await runAgentv(['eval', 'evals/o.yaml', '--out', 'out.jsonl'], project.dir);
    expect(run.code).toBe(2);
    const [line] = await results();
    // dash says `/bin/sh: 1: x: not found`, bash `/bin/sh: line 1: x: command not found`.
    const shell = line!.error.match(
      /^command exited with code 127; (\/bin\/sh: .*not found); /,
    )?.[1];
    expect(shell, line!.error).toMatch(
      /^\/bin\/sh: (line )?1: summarize-orders-16: (command )?not found$/,
    );
    expect(line!.error).toBe(
      `command exited with code 127; ${shell}; stderr: loading orders | ${shell}${HINT}`,
    );
    expect(run.stdout).toContain(
      `[1/1] ERROR order-status  command exited with code 127; ${shell}; stderr: loading orders | ${shell} (hint: `,
    );
  });
});

describe('command-line flags win over target settings', () => {
  it('--agent-timeout wins over timeout_seconds, and the hint names only the flag', async () => {
    project = await createProject({
      'agent.mjs': 'setTimeout(() => console.log("said late"), 20000);\n',
      '.agentv/targets.yaml': targets(`
command_template: node agent.mjs {PROMPT}
timeout_seconds: 60
max_retries: 0
`),
      'evals/t.yaml': evalFile(['slow']),
    });
    const run = await runAgentv(
      ['eval', 'evals/t.yaml', '--agent-timeout', '1', '--out', 'out.jsonl'],
      project.dir,
    );
    expect(run.code).toBe(2);
    const [line] = await results();
    expect(line!.error).toBe(
      "timed out after 1s (hint: raise --agent-timeout (it wins over the target's timeout_seconds), or make the agent faster)",
    );
  });

  it('--max-retries wins over max_retries', async () => {
    project = await createProject({
      'agent.mjs': `import { appendFileSync } from 'node:fs';
appendFileSync('calls.log', 'call\\n');
process.exit(3);
`,
      '.agentv/targets.yaml': targets(`
command_template: node agent.mjs {PROMPT}
max_retries: 3
`),
      'evals/r.yaml': evalFile(['fails']),
    });
    const run = await runAgentv(
      ['eval', 'evals/r.yaml', '--max-retries', '0', '--out', 'out.jsonl'],
      project.dir,
    );
    expect(run.code).toBe(2);
    const [line] = await results();
    expect(line!.attempts).toBe(1);
    expect((await readFile(project.file('calls.log'), 'utf8')).trim().split('\n')).toHaveLength(1);
  });

  it('--workers wins over the target workers', async () => {
    // Each case waits (up to 10 s) for the other to start: only two at once can both see it.
    const agent = `import { existsSync, writeFileSync } from 'node:fs';
const me = process.argv[2];
writeFileSync('started-' + me, '');
const other = me === 'a' ? 'b' : 'a';
const until = Date.now() + 10000;
while (!existsSync('started-' + other) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
console.log(existsSync('started-' + other) ? 'said together' : 'alone');
`;
    project = await createProject({
      'agent.mjs': agent,
      '.agentv/targets.yaml': targets(`
command_template: node agent.mjs {EVAL_ID}
workers: 1
max_retries: 0
`),
      'evals/w.yaml': evalFile(['a', 'b'], '{ name: together, type: contains, value: together }'),
    });
    const run = await runAgentv(
      ['eval', 'evals/w.yaml', '--workers', '2', '--out', 'out.jsonl'],
      project.dir,
    );
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect((await results()).map((line) => line.passed)).toEqual([true, true]);
  });

  it('says so in --help', async () => {
    const run = await runAgentv(['eval', '--help'], process.cwd());
    expect(run.stdout).toContain(
      "Timeout of one agent call; wins over the target's timeout_seconds",
    );
    expect(run.stdout).toContain(
      "Retries of a failed agent call (default 2); wins over the target's max_retries",
    );
    expect(run.stdout).toContain(
      "Cases run at once; wins over the targets' workers (default: their largest, else 4)",
    );
  });
});

describe('eval and validate report the same locations', () => {
  it('prints the same problems at the same file:line:column, in the same order, with a did-you-mean', async () => {
    project = await createProject({
      'agent.mjs': ECHO,
      '.agentv/targets.yaml': targets(`
command_template: node agent.mjs {PROMT}
healthcheck: { type: tcp }
`),
      'evals/b.yaml': `execution:
  target: default
evalcases:
  - id: first
    input_messages:
      - role: user
        content: hello
    evaluators:
      - name: ok
        type: contains
        value: said
      - name: typo
        type: contians
        value: said
      - name: shape
        type: regex
  - id: second
    input_messages:
      - role: usr
        content: hello
    evaluators: [{ name: ok, type: contains, value: said }]
`,
    });
    const evalRun = await runAgentv(['eval', 'evals'], project.dir);
    const validateRun = await runAgentv(['validate'], project.dir);
    expect(evalRun.code).toBe(2);
    expect(validateRun.code).toBe(1);
    // Not sorted here: both list problems by file, then by position.
    const problems = (output: string) =>
      output.split('\n').filter((line) => /^(error|warning): /.test(line));
    const expected = [
      'error: .agentv/targets.yaml:5:5: target "default": command_template: unknown placeholder {PROMT}; supported placeholders are {PROMPT}, {PROMPT_FILE}, {GUIDELINES}, {EVAL_ID}, {ATTEMPT}, {REPEAT}, {FILES}, {ATTACHMENTS}, {OUTPUT_FILE}, {INPUT_FILE}, {TRACE_FILE}, {WORKSPACE}, {EVAL_DIR}, {TURN}, {CONVERSATION_ID}, {CONVERSATION_FILE} (hint: did you mean {PROMPT}? Write {{PROMT}} for a literal {PROMT})',
      'error: .agentv/targets.yaml:6:20: target "default": healthcheck.type: unsupported type "tcp"; the supported types are http and command (hint: use { type: http, url: "http://127.0.0.1:8080/health" } or { type: command, command_template: "..." })',
      'error: evals/b.yaml:13:15: case "first": evaluator "typo" has unknown type "contians" (hint: did you mean "contains"? Or use one of: code_judge, command, composite, contains, contains_all, contains_any, conversation_turns, cost, diff, ends_with, equals, execution_metrics, file, goal_reached, icontains, icontains_all, icontains_any, is_json, is_valid_openai_tools_call, json_schema, latency, levenshtein, llm_judge, regex, rubric, starts_with, tool_trajectory, or not_<type> of an answer check)',
      'error: evals/b.yaml:16:15: case "first": evaluator "shape": "pattern" is missing; give a regular expression the answer must match',
      'error: evals/b.yaml:19:15: case "second": input_messages[0].role must be one of "system", "user", "assistant", "tool", not "usr" (hint: use one of: system, user, assistant, tool)',
    ];
    expect(problems(evalRun.stderr)).toEqual(expected);
    expect(problems(validateRun.stdout)).toEqual(expected);
  });
});

describe("a bad evaluator in the file's execution.evaluators", () => {
  it("is reported once as the list's problem, not a case's, by eval and validate alike", async () => {
    project = await createProject({
      'agent.mjs': ECHO,
      '.agentv/targets.yaml': targets('command_template: node agent.mjs {PROMPT}'),
      'evals/bad.yaml': `execution:
  target: default
  evaluators:
    - name: said
      type: contians
      value: said
    - { name: c, type: contains }
    - { name: r, type: regex, pattern: "(" }
    - { name: j, type: code_judge, script: node ./judges/missing.mjs }
evalcases:
  - id: a
    input_messages: [{ role: user, content: hello }]
  - id: b
    input_messages: [{ role: user, content: hello }]
  - id: own
    input_messages: [{ role: user, content: hello }]
    evaluators: [{ name: said, type: contians, value: said }]
`,
    });
    const expected = [
      'error: evals/bad.yaml:5:13: execution.evaluators: evaluator "said" has unknown type "contians" (hint: did you mean "contains"? Or use one of: code_judge, command, composite, contains, contains_all, contains_any, conversation_turns, cost, diff, ends_with, equals, execution_metrics, file, goal_reached, icontains, icontains_all, icontains_any, is_json, is_valid_openai_tools_call, json_schema, latency, levenshtein, llm_judge, regex, rubric, starts_with, tool_trajectory, or not_<type> of an answer check)',
      'error: evals/bad.yaml:7:24: execution.evaluators: evaluator "c": "value" is missing; give "value" as a string or a list of strings the answer must contain',
      'error: evals/bad.yaml:8:40: execution.evaluators: evaluator "r": "pattern" "(" with flags "" is not a valid regular expression: Invalid regular expression: /(/: Unterminated group',
      `error: evals/bad.yaml:9:44: execution.evaluators: evaluator "j": script file ./judges/missing.mjs not found (resolved to ${project.dir}/evals/judges/missing.mjs) (hint: fix the path in "script"; it is relative to the eval file's directory)`,
      // A case's own list is still the case's.
      'error: evals/bad.yaml:17:38: case "own": evaluator "said" has unknown type "contians" (hint: did you mean "contains"? Or use one of: code_judge, command, composite, contains, contains_all, contains_any, conversation_turns, cost, diff, ends_with, equals, execution_metrics, file, goal_reached, icontains, icontains_all, icontains_any, is_json, is_valid_openai_tools_call, json_schema, latency, levenshtein, llm_judge, regex, rubric, starts_with, tool_trajectory, or not_<type> of an answer check)',
    ];
    const problems = (output: string) =>
      output
        .split('\n')
        .filter((line) => /^(error|warning): /.test(line))
        .sort((x, y) => lineOf(x) - lineOf(y));
    const lineOf = (line: string) => Number(line.split(':')[2]);
    const evalRun = await runAgentv(['eval', 'evals/bad.yaml'], project.dir);
    expect(evalRun.code).toBe(2);
    expect(problems(evalRun.stderr)).toEqual(expected);
    const validateRun = await runAgentv(['validate'], project.dir);
    expect(validateRun.code).toBe(1);
    expect(problems(validateRun.stdout)).toEqual(expected);
  });

  it('an entry without a type is its only error: the cases are not said to have no evaluators', async () => {
    project = await createProject({
      'agent.mjs': ECHO,
      '.agentv/targets.yaml': targets('command_template: node agent.mjs {PROMPT}'),
      'evals/bad.yaml': `execution:
  target: default
  evaluators:
    - name: said
      value: said
evalcases:
  - id: a
    input_messages: [{ role: user, content: hello }]
  - id: b
    input_messages: [{ role: user, content: hello }]
`,
    });
    const message =
      'error: evals/bad.yaml:4:7: execution.evaluators[0] is missing required key "type" (hint: give the evaluator a `type`, e.g. `type: llm_judge`)\n';
    const evalRun = await runAgentv(['eval', 'evals/bad.yaml'], project.dir);
    expect(evalRun.code).toBe(2);
    expect(evalRun.stderr).toBe(message);
    const validateRun = await runAgentv(['validate'], project.dir);
    expect(validateRun.stdout).toBe(
      `${message}2 files checked: 1 with errors (1 error, 0 warnings)\n`,
    );
  });
});

describe('a missing nested setting and a bad one', () => {
  it('are printed by eval and validate at the same places, in file order', async () => {
    project = await createProject({
      'agent.mjs': ECHO,
      '.agentv/targets.yaml': targets(`
command_template: node agent.mjs {PROMPT}
healthcheck:
  timeout_seconds: 5
files_format: "{nope}"
`),
      'evals/n.yaml': evalFile(['one']),
    });
    const expected = [
      'error: .agentv/targets.yaml:6:5: target "default": healthcheck.type: is required; the supported types are http and command (hint: use { type: http, url: "http://127.0.0.1:8080/health" } or { type: command, command_template: "..." })',
      'error: .agentv/targets.yaml:8:5: target "default": files_format: must contain {path} or {basename} (hint: e.g. files_format: "--file {path}")',
    ];
    const problems = (output: string) =>
      output.split('\n').filter((line) => /^(error|warning): /.test(line));
    const evalRun = await runAgentv(['eval', 'evals'], project.dir);
    expect(evalRun.code).toBe(2);
    expect(problems(evalRun.stderr)).toEqual(expected);
    expect(problems((await runAgentv(['validate'], project.dir)).stdout)).toEqual(expected);
  });
});

describe('a misspelt target name', () => {
  it('gets a did-you-mean from eval and validate alike', async () => {
    project = await createProject({
      'agent.mjs': ECHO,
      '.agentv/targets.yaml': targets('command_template: node agent.mjs {PROMPT}'),
      'evals/t.yaml': evalFile(['one']).replace('target: default', 'target: defualt'),
    });
    const message =
      'error: evals/t.yaml:2:11: case "one": unknown target "defualt" (hint: did you mean "default"? targets in .agentv/targets.yaml: default)';
    expect((await runAgentv(['eval', 'evals'], project.dir)).stderr).toBe(`${message}\n`);
    expect((await runAgentv(['validate'], project.dir)).stdout).toContain(`${message}\n`);
  });
});

describe('an empty execution.targets', () => {
  it('is an error at its line with a hint, from eval and validate alike', async () => {
    project = await createProject({
      'agent.mjs': ECHO,
      '.agentv/targets.yaml': targets('command_template: node agent.mjs {PROMPT}'),
      'evals/t.yaml': evalFile(['one']).replace('target: default', 'targets: []'),
    });
    const message =
      'error: evals/t.yaml:2:12: execution.targets must have at least 1 entry (hint: name at least one target, e.g. `targets: [default, staging]`, or remove `targets:` to run against `target:`, else the target named "default")';
    const evalRun = await runAgentv(['eval', 'evals/t.yaml', '--out', 'out.jsonl'], project.dir);
    expect(evalRun.code).toBe(2);
    expect(evalRun.stderr).toBe(`${message}\n`);
    const validateRun = await runAgentv(['validate'], project.dir);
    expect(validateRun.code).toBe(1);
    expect(validateRun.stdout).toContain(`${message}\n`);
  });
});

describe('an inline target whose name is also in targets.yaml', () => {
  it("does not hide that target's other errors from eval: it reports what validate does", async () => {
    project = await createProject({
      '.agentv/targets.yaml':
        'targets:\n  - name: default\n    provider: mock\n  - name: local\n    provider: mock\n',
      'evals/small.yaml': `targets:
  - name: local
    provider: cli
    comand_template: node agent.mjs {PROMPT}
    healthcheck: { type: tcp }
execution:
  target: local
evalcases:
  - id: greet
    input_messages: [{ role: user, content: hello }]
    evaluators: [{ type: contains, value: hello }]
`,
    });
    const expected = [
      'error: evals/small.yaml:2:5: target "local": defined twice: inline in evals/small.yaml:2:5 and in .agentv/targets.yaml:4:5 (hint: rename one of them (inline targets are seen only by the cases of their own eval file), or delete the inline one to use .agentv/targets.yaml\'s)',
      'error: evals/small.yaml:2:5: target "local": command_template: is required (hint: set command_template to the command that runs your agent, e.g. "node ./agent.mjs --prompt {PROMPT}")',
      'warning: evals/small.yaml:4:5: target "local": unknown key "comand_template" for provider "cli" is ignored (hint: did you mean "command_template"?)',
      'error: evals/small.yaml:5:20: target "local": healthcheck.type: unsupported type "tcp"; the supported types are http and command (hint: use { type: http, url: "http://127.0.0.1:8080/health" } or { type: command, command_template: "..." })',
    ];
    const problems = (output: string) =>
      output
        .split('\n')
        .filter((line) => /^(error|warning): /.test(line))
        .sort();
    const evalRun = await runAgentv(
      ['eval', 'evals/small.yaml', '--out', 'out.jsonl'],
      project.dir,
    );
    expect(evalRun.code).toBe(2);
    expect(evalRun.stdout).toBe('');
    expect(problems(evalRun.stderr)).toEqual([...expected].sort());
    const validateRun = await runAgentv(['validate', 'evals/small.yaml'], project.dir);
    expect(validateRun.code).toBe(1);
    expect(problems(validateRun.stdout)).toEqual([...expected].sort());
  });

  it("is reported next to the target's other errors when its settings are invalid too", async () => {
    project = await createProject({
      '.agentv/targets.yaml': 'targets:\n  - name: local\n    provider: mock\n',
      'evals/small.yaml': `targets:
  - name: local
    provider: cli
    command_template: node agent.mjs {PROMT}
    workers: 0
execution:
  target: local
evalcases:
  - id: greet
    input_messages: [{ role: user, content: hello }]
    evaluators: [{ type: contains, value: hello }]
`,
    });
    const expected = [
      'error: evals/small.yaml:2:5: target "local": defined twice: inline in evals/small.yaml:2:5 and in .agentv/targets.yaml:2:5 (hint: rename one of them (inline targets are seen only by the cases of their own eval file), or delete the inline one to use .agentv/targets.yaml\'s)',
      'error: evals/small.yaml:4:5: target "local": command_template: unknown placeholder {PROMT}; supported placeholders are {PROMPT}, {PROMPT_FILE}, {GUIDELINES}, {EVAL_ID}, {ATTEMPT}, {REPEAT}, {FILES}, {ATTACHMENTS}, {OUTPUT_FILE}, {INPUT_FILE}, {TRACE_FILE}, {WORKSPACE}, {EVAL_DIR}, {TURN}, {CONVERSATION_ID}, {CONVERSATION_FILE} (hint: did you mean {PROMPT}? Write {{PROMT}} for a literal {PROMT})',
      'error: evals/small.yaml:5:14: target "local": workers must be at least 1 (hint: workers is a whole number >= 1, e.g. `workers: 4`)',
    ];
    const problems = (output: string) =>
      output
        .split('\n')
        .filter((line) => /^(error|warning): /.test(line))
        .sort();
    const evalRun = await runAgentv(
      ['eval', 'evals/small.yaml', '--out', 'out.jsonl'],
      project.dir,
    );
    expect(evalRun.code).toBe(2);
    expect(problems(evalRun.stderr)).toEqual(expected);
    const validateRun = await runAgentv(['validate', 'evals/small.yaml'], project.dir);
    expect(problems(validateRun.stdout)).toEqual(expected);
  });
});

describe('a cli command whose program is not found', () => {
  it('fails validate and eval (before the first case) with the same message', async () => {
    project = await createProject({
      '.agentv/targets.yaml': targets('command_template: no-such-agent-16 --prompt {PROMPT}'),
      'evals/p.yaml': evalFile(['one', 'two']),
    });
    const message = `.agentv/targets.yaml:5:5: target "default": command_template: the program "no-such-agent-16" was not found on PATH (hint: install it or fix its name, or write its path (e.g. "./no-such-agent-16", relative to the working directory "${project.dir}"))`;
    const validateRun = await runAgentv(['validate'], project.dir);
    expect(validateRun.code).toBe(1);
    expect(validateRun.stdout).toContain(`error: ${message}\n`);
    const evalRun = await runAgentv(['eval', 'evals/p.yaml', '--out', 'out.jsonl'], project.dir);
    expect(evalRun.code).toBe(2);
    expect(evalRun.stderr).toBe(`error: ${message}\n`);
    expect(evalRun.stdout).toBe('');
  });

  it('names a relative script that does not exist or is not executable', async () => {
    project = await createProject({
      'agent.sh': '#!/bin/sh\necho "said $1"\n',
      '.agentv/targets.yaml': `targets:
  - name: default
    provider: cli
    cwd: ..
    command_template: ./agent.sh {PROMPT}
  - name: missing
    provider: cli
    cwd: ..
    command_template: ./bin/agent.sh {PROMPT}
`,
      'evals/p.yaml': evalFile(['one']),
    });
    const notExecutable = await runAgentv(['eval', 'evals/p.yaml'], project.dir);
    expect(notExecutable.stderr).toBe(
      `error: .agentv/targets.yaml:5:5: target "default": command_template: the program "./agent.sh" is not an executable file (${project.dir}/agent.sh) (hint: make it executable (chmod +x ./agent.sh), or start it through its interpreter (e.g. "sh ./agent.sh" or "node ./agent.sh"))\n`,
    );
    const missing = await runAgentv(['eval', 'evals/p.yaml', '--target', 'missing'], project.dir);
    expect(missing.stderr).toBe(
      `error: .agentv/targets.yaml:9:5: target "missing": command_template: the program "./bin/agent.sh" does not exist (looked for ${project.dir}/bin/agent.sh) (hint: fix the path; relative paths resolve against the target's working directory "${project.dir}")\n`,
    );
    await chmod(project.file('agent.sh'), 0o755);
    const fixed = await runAgentv(['eval', 'evals/p.yaml', '--out', 'out.jsonl'], project.dir);
    expect(fixed.code, fixed.stderr).toBe(0);
  });

  it('raises no false alarm for env assignments, builtins and shell snippets', async () => {
    const commands = [
      'FOO=1 node agent.mjs {PROMPT}',
      'cd . && node agent.mjs {PROMPT}',
      'exec node agent.mjs {PROMPT}',
      'node agent.mjs {PROMPT} | cat',
      'if true; then node agent.mjs {PROMPT}; fi',
      '"node" agent.mjs {PROMPT}',
    ];
    project = await createProject({
      'agent.mjs': ECHO,
      '.agentv/targets.yaml': `targets:\n${commands
        .map(
          (command, index) =>
            `  - name: t${index}\n    provider: cli\n    cwd: ..\n    command_template: ${JSON.stringify(command)}\n`,
        )
        .join('')}`,
      'evals/p.yaml': evalFile(['one']).replace('target: default', 'target: t0'),
    });
    for (const [index] of commands.entries()) {
      const run = await runAgentv(
        ['eval', 'evals/p.yaml', '--target', `t${index}`, '--out', `out-${index}.jsonl`],
        project.dir,
      );
      expect(run.code, `${commands[index]}\n${run.stderr}`).toBe(0);
      expect(run.stderr).toBe('');
    }
  });
});

describe('--verbose with several workers', () => {
  it('names the case and attempt (from 1) on every line', async () => {
    project = await createProject({
      'agent.mjs': `const attempt = Number(process.argv[3]);
console.error('working on ' + process.argv[2] + '\\nsecond line');
if (attempt === 0) process.exit(1);
console.log('said ' + process.argv[2]);
`,
      '.agentv/targets.yaml': targets(`
command_template: node agent.mjs {EVAL_ID} {ATTEMPT}
max_retries: 1
`),
      'evals/v.yaml': evalFile(['case-a', 'case-b', 'case-c']),
    });
    const run = await runAgentv(
      ['eval', 'evals/v.yaml', '--verbose', '--workers', '3', '--out', 'out.jsonl'],
      project.dir,
    );
    expect(run.code, run.stderr).toBe(0);
    // One line is about the target, not a call: the time limit every call gets.
    const limit =
      "[cli:default] time limit per call: 600 s (the provider's default; set timeout_seconds to change it)";
    const all = run.stderr.split('\n').filter((line) => line.trim() !== '');
    expect(all.filter((line) => line === limit)).toHaveLength(1);
    const lines = all.filter((line) => line !== limit);
    expect(lines.length).toBeGreaterThan(12);
    for (const line of lines) {
      expect(line).toMatch(
        /^\[cli:default\] case-[abc] attempt [12](: | env: | cwd: | plain words: | command | stderr: | failed; waiting )/,
      );
    }
    for (const id of ['case-a', 'case-b', 'case-c']) {
      // The command as run, with the values of the variables it reads.
      for (const attempt of [1, 2]) {
        expect(lines).toContain(
          `[cli:default] ${id} attempt ${attempt}: node agent.mjs "$AGENTV_EVAL_ID" "$AGENTV_ATTEMPT"`,
        );
        expect(lines).toContain(
          `[cli:default] ${id} attempt ${attempt} env: AGENTV_EVAL_ID='${id}' AGENTV_ATTEMPT='${attempt - 1}'`,
        );
      }
      expect(lines).toContain(`[cli:default] ${id} attempt 2 stderr: second line`);
    }
    expect((await results()).map((line) => line.attempts)).toEqual([2, 2, 2]);
  });
});

describe('colours', () => {
  const noCi = { CI: undefined, TEST: undefined, TERM: 'xterm-256color' };
  const ESC = '\u001b[';

  it('none when piped, in --help and validate; FORCE_COLOR forces them, NO_COLOR stops them', async () => {
    project = await createProject({
      '.agentv/targets.yaml': targets('command_template: node agent.mjs {PROMT}'),
      'evals/c.yaml': evalFile(['one']),
    });
    for (const args of [['--help'], ['eval', '--help'], ['validate']]) {
      const piped = await runAgentv(args, project.dir, { ...noCi, NO_COLOR: undefined });
      expect(piped.stdout, args.join(' ')).not.toContain(ESC);
      const forced = await runAgentv(args, project.dir, {
        ...noCi,
        NO_COLOR: undefined,
        FORCE_COLOR: '1',
      });
      expect(forced.stdout, args.join(' ')).toContain(ESC);
      const off = await runAgentv(args, project.dir, { ...noCi, NO_COLOR: 'true' });
      expect(off.stdout, args.join(' ')).not.toContain(ESC);
    }
  });

  it('agentv help [command] is --help, and a misspelt command gets a did-you-mean', async () => {
    const cwd = process.cwd();
    const usage = await runAgentv(['--help'], cwd);
    expect((await runAgentv(['help'], cwd)).stdout).toBe(usage.stdout);
    expect(usage.stdout).toContain(
      '      help    Print the help of agentv or of a command: agentv help [command]\n',
    );
    const help = await runAgentv(['help', 'eval'], cwd);
    expect(help.code).toBe(0);
    expect(help.stdout).toBe((await runAgentv(['eval', '--help'], cwd)).stdout);
    expect((await runAgentv(['help', 'results', 'merge'], cwd)).stdout).toBe(
      (await runAgentv(['results', 'merge', '--help'], cwd)).stdout,
    );
    const typo = await runAgentv(['help', 'evl'], cwd);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toBe(
      'agentv: unknown command "evl"\n  hint: did you mean "eval"? available commands: eval, validate, init, migrate, results, compare, grade, view, help; see agentv --help\n',
    );
  });

  it('every command answers --help, -h and agentv help with its usage, required arguments or not', async () => {
    const cwd = process.cwd();
    const commands = ['eval', 'validate', 'init', 'migrate', 'results', 'compare', 'grade', 'view'];
    for (const command of commands) {
      const help = await runAgentv([command, '--help'], cwd);
      expect(help.code, `${command} --help: ${help.stderr}`).toBe(0);
      expect(help.stderr).toBe('');
      expect(help.stdout).toContain(`USAGE agentv ${command} `);
      expect((await runAgentv([command, '-h'], cwd)).stdout).toBe(help.stdout);
      expect((await runAgentv(['help', command], cwd)).stdout).toBe(help.stdout);
    }
    // migrate's FILE is still required, and its usage says so.
    expect((await runAgentv(['migrate', '--help'], cwd)).stdout).toContain(
      'USAGE agentv migrate [OPTIONS] <FILE>',
    );
    const missing = await runAgentv(['migrate'], cwd);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('Missing required positional argument: FILE');
    // After `--`, --help is an argument, not a request for the usage.
    const literal = await runAgentv(['migrate', 'no-such-file.yaml', '--', '--help'], cwd);
    expect(literal.stdout).toBe('');
    expect(literal.stderr).toContain('cannot read no-such-file.yaml');
  });
});

describe('a cli target whose interpreter would run a script that is not there', () => {
  it('is refused before any case runs, by eval and by validate, naming the file it looked for', async () => {
    project = await createProject({
      'agent.mjs': ECHO,
      '.agentv/targets.yaml': `targets:
  - name: default
    provider: cli
    cwd: ..
    command_template: node ./agnet.mjs {PROMPT}
  - name: spare
    provider: cli
    cwd: ..
    command_template: python3 helpers/gone.py {PROMPT}
`,
      'evals/e.yaml': evalFile(['a', 'b']),
    });
    const message = `error: .agentv/targets.yaml:5:5: target "default": command_template: script file ./agnet.mjs (run by node) not found (resolved to ${project.dir}/agnet.mjs) (hint: fix the path in command_template; it is relative to the target's working directory ${JSON.stringify(project.dir)})`;
    const run = await runAgentv(['eval', 'evals/e.yaml', '--out', 'out.jsonl'], project.dir);
    expect(run.code).toBe(2);
    expect(run.stderr.split('\n')).toContain(message);
    // Refused, not run: no case was started, retried or recorded.
    expect(run.stdout).toBe('');
    expect(spawnSync('ls', [project.dir], { encoding: 'utf8' }).stdout).not.toContain('out.jsonl');

    const validate = await runAgentv(['validate'], project.dir);
    expect(validate.code).toBe(1);
    const lines = validate.stdout.split('\n');
    expect(lines).toContain(message);
    // A target no checked eval file uses only warns: another machine may have its script.
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^warning: \.agentv\/targets\.yaml:\d+:5: target "spare": command_template: script file helpers\/gone\.py \(run by python3\) not found .*no eval file checked uses this target: a run that uses it stops here\)$/,
      ),
    );
  });
});
