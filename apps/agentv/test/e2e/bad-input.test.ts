import { cp, mkdir, mkdtemp, readdir, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runAgentv } from '../support/project.js';

const CORPUS = path.join(import.meta.dirname, '..', 'fixtures', 'bad-input');

/**
 * One entry per folder of the bad-input corpus: the one-line messages (with
 * location and hint) `agentv eval evals` prints on stderr and `agentv
 * validate` prints on stdout. Both are found in a single line of output.
 */
interface BadInput {
  eval: string[];
  validate: string[];
  /** Default 1: the file has errors. 0 where validate only warns (see README). */
  validateExit?: number;
  /** Writes what is too big to commit. */
  setup?: (dir: string) => Promise<void>;
}

const PLACEHOLDERS =
  'supported placeholders are {PROMPT}, {PROMPT_FILE}, {GUIDELINES}, {EVAL_ID}, {ATTEMPT}, {REPEAT}, {FILES}, {ATTACHMENTS}, {OUTPUT_FILE}, {INPUT_FILE}, {TRACE_FILE}, {WORKSPACE}, {EVAL_DIR}, {TURN}, {CONVERSATION_ID}, {CONVERSATION_FILE} (hint: did you mean {PROMPT}? Write {{PROMTP}} for a literal {PROMTP})';
const EVALUATOR_TYPES =
  'use one of: code_judge, command, composite, contains, contains_all, contains_any, conversation_turns, cost, diff, ends_with, equals, execution_metrics, file, goal_reached, icontains, icontains_all, icontains_any, is_json, is_valid_openai_tools_call, json_schema, latency, levenshtein, llm_judge, regex, rubric, starts_with, tool_trajectory, or not_<type> of an answer check';
const PROVIDERS =
  'use one of: amazon-bedrock, anthropic, azure, azure-openai, bedrock, claude, claude-cli, claude-code, cli, codex, copilot, copilot-cli, deepseek, gemini, gemini-cli, google, google-gemini, google-vertex, groq, http, mistral, mock, openai, openai-compatible, opencode, openrouter, vertex, xai';

/** The same message from both commands. */
const both = (...fragments: string[]) => ({ eval: fragments, validate: fragments });

const CASES: Record<string, BadInput> = {
  'malformed-yaml': both(
    'error: evals/cases.yaml:4:5: YAML syntax error: Flow sequence in block collection must be sufficiently indented and end with a ] (hint: line 4 ("    evaluators: [{ type: contains, value: hello }]") starts at column 5; check the indentation, quotes and brackets around this line)',
  ),
  'wrong-types': both(
    'error: evals/cases.yaml:2:9: evalcases[0].id must be text, not a whole number (42) (hint: write the id as text; quote ids that look like numbers, e.g. `id: "001"`)',
    'error: evals/cases.yaml:6:21: case "greet": input_messages must be a list, not text ("hello") (hint: add `input_messages:`',
  ),
  // eval and validate point at the same file:line:column; validate also names the users.
  'unknown-provider': {
    eval: [
      `error: .agentv/targets.yaml:3:5: target "default": unknown provider "clii" (hint: did you mean "cli"? Or ${PROVIDERS})`,
    ],
    validate: [
      `error: .agentv/targets.yaml:3:5: target "default": unknown provider "clii" (hint: did you mean "cli"? Or ${PROVIDERS} (used by evals/cases.yaml))`,
    ],
  },
  'missing-attached-file': both(
    'error: evals/cases.yaml:7:34: case "refund": file "./fixtures/order-42.json" not found; tried ',
    "(hint: fix the path: relative paths resolve against the eval file's directory, then each parent directory up to the repository root, then the current directory)",
  ),
  'missing-judge-script': both(
    'error: evals/cases.yaml:5:50: case "greet": evaluator "tools": script file ../judges/check-tools.mjs not found (resolved to ',
    `(hint: fix the path in "script"; it is relative to the eval file's directory)`,
  ),
  // A relative cwd resolves against the eval file's directory, so it is checked per eval file.
  'missing-target-cwd': both(
    'error: .agentv/targets.yaml:5:5: target "default": cwd: directory ./agent-home (resolved to',
    'does not exist for the cases of evals/cases.yaml',
  ),
  'duplicate-case-ids': both(
    'error: evals/cases.yaml:5:9: case "greet": duplicate case id "greet" on lines 2 and 5 (hint: case ids must be unique within a file; rename one of them)',
  ),
  'unknown-placeholder': both(
    `error: .agentv/targets.yaml:4:5: target "default": command_template: unknown placeholder {PROMTP}; ${PLACEHOLDERS}`,
  ),
  'empty-eval-file': both(
    'error: evals/cases.yaml: eval file is empty (hint: add an `evalcases:` list with at least one case)',
  ),
  'comment-only-eval-file': both(
    'error: evals/cases.yaml: eval file is empty (hint: add an `evalcases:` list with at least one case)',
  ),
  'empty-targets-file': both(
    'error: .agentv/targets.yaml: targets file is empty (hint: add a `targets:` list with at least one target)',
  ),
  'huge-eval-file': {
    ...both(
      'error: evals/cases.yaml: eval file is too large (51.0 MB; the limit is 50 MB) (hint: split it into several smaller files)',
    ),
    setup: async (dir) => {
      const file = path.join(dir, 'evals', 'cases.yaml');
      await writeFile(file, 'evalcases:\n');
      // A sparse file: its size is what counts, and the loader refuses it before reading.
      await truncate(file, 51 * 1024 * 1024);
    },
  },
  'binary-eval-file': both(
    'error: evals/cases.yaml: eval file is a binary file (it contains NUL bytes) (hint: pass a UTF-8 YAML text file)',
  ),
  'top-level-list': both(
    'error: evals/cases.yaml:1:1: the top level of the eval file must be a mapping (key: value pairs), not a list (hint: add an `evalcases:` list with at least one case)',
  ),
  'missing-targets-file': {
    eval: [
      'error: evals/cases.yaml:2:5: case "greet": no target given and no target named "default" exists (hint: no targets file was found: create .agentv/targets.yaml next to your evals or pass --targets PATH)',
    ],
    validate: [
      'warning: evals/cases.yaml: no targets file was found, so the targets of its cases were not checked (hint: create .agentv/targets.yaml',
    ],
    validateExit: 0,
  },
  'unknown-target': both(
    'error: evals/cases.yaml:2:11: case "greet": unknown target "staging" (hint: targets in .agentv/targets.yaml: default)',
  ),
  'unset-env-var': {
    eval: [
      'error: .agentv/targets.yaml:6:7: target "default": uses environment variable(s) AGENTV_CORPUS_UNSET_TOKEN, which are not set (hint: set AGENTV_CORPUS_UNSET_TOKEN in your shell or in a .env file',
    ],
    validate: [
      'warning: .agentv/targets.yaml:6:7: target "default": needs environment variable(s) AGENTV_CORPUS_UNSET_TOKEN, which are not set (hint: set AGENTV_CORPUS_UNSET_TOKEN in your shell or in a .env file; a run that uses this target fails until then)',
    ],
    validateExit: 0,
  },
  'unsupported-schema-version': both(
    'error: evals/cases.yaml:1:10: $schema must be "agentv-eval-v2", not "agentv-eval-v3" (hint: use `$schema: agentv-eval-v2` or remove the line)',
  ),
  'no-evaluators': both(
    'error: evals/cases.yaml:2:5: case "greet": has no evaluators (hint: add `evaluators:` to the case or `execution.evaluators` to the file',
  ),
  'missing-judge-target': both(
    'error: evals/cases.yaml:2:5: case "greet": evaluator "quality" (llm_judge) needs a judge target, and none is configured (hint: set `judge_target: <target>` on target "default", `execution.judge_target` in the eval file, or pass --judge-target NAME)',
  ),
  'unknown-judge-target': both(
    'error: .agentv/targets.yaml:5:5: target "default": judge target "gpt-judge" (from judge_target of target "default") does not exist (hint: name one of the targets in .agentv/targets.yaml: default)',
  ),
  'empty-rubric': both(
    'error: evals/cases.yaml:2:5: case "greet": evaluator "rubrics" (rubric) has no rubric items (hint: add `rubrics:` to the case (or to the evaluator), e.g. `rubrics: ["Mentions the refund amount"]`)',
  ),
  'unknown-evaluator-type': both(
    `error: evals/cases.yaml:4:26: case "greet": evaluator "contain" has unknown type "contain" (hint: did you mean "contains"? Or ${EVALUATOR_TYPES})`,
  ),
  // The evaluator's own check words its message as the fix; it has no separate hint.
  'bad-evaluator-options': both(
    'error: evals/cases.yaml:4:39: case "greet": evaluator "shape": "pattern" is missing; this grader takes its regular expression in "pattern", not "value": write pattern: "h.llo"',
  ),
  'duplicate-target-names': both(
    'error: .agentv/targets.yaml:5:11: target "default": duplicate target name "default" on lines 2 and 5 (hint: target names must be unique within one targets: list; rename one of them)',
  ),
  'bad-healthcheck': both(
    'error: .agentv/targets.yaml:5:20: target "default": healthcheck.type: unsupported type "tcp"; the supported types are http and command (hint: use { type: http,',
  ),
  'yaml-duplicate-key': both(
    'error: evals/cases.yaml:3:5: YAML syntax error: Map keys must be unique (hint: each key may appear once per mapping; remove or rename the repeated key)',
  ),
  'bad-config-file': both(
    'error: .agentv/config.yaml:1:21: guideline_patterns must be a list, not text ("**/*.md") (hint: write a list of globs, e.g. `guideline_patterns: ["**/*.instructions.md"]`)',
  ),
  'wrong-role': both(
    'error: evals/cases.yaml:3:30: case "greet": input_messages[0].role must be one of "system", "user", "assistant", "tool", not "human" (hint: use one of: system, user, assistant, tool)',
  ),
  'missing-input-messages': both(
    'error: evals/cases.yaml:2:5: case "greet": missing required key "input_messages" (hint: add `input_messages:` with at least one message',
  ),
  'threshold-out-of-range': both(
    'error: evals/cases.yaml:2:14: execution.threshold must be at most 1 (hint: threshold is a number from 0 to 1, e.g. `threshold: 0.8`)',
  ),
  'targets-not-a-list': both(
    'error: .agentv/targets.yaml:2:3: targets must be a list, not a mapping (hint: add a `targets:` list with at least one `- name: ..., provider: ...` entry)',
  ),
  'multiple-documents': both(
    'error: evals/cases.yaml:5:1: YAML syntax error: Source contains multiple documents; please use YAML.parseAllDocuments() (hint: the file must hold a single YAML document; remove the extra `---` line)',
  ),
  'timeout-not-a-number': both(
    'error: .agentv/targets.yaml:5:22: target "default": timeout_seconds must be a number, not text (hint: timeout_seconds is a number of seconds > 0, e.g. `timeout_seconds: 60`)',
  ),
  'missing-command-template': both(
    'error: .agentv/targets.yaml:2:5: target "default": command_template: is required (hint: set command_template to the command that runs your agent',
    'warning: .agentv/targets.yaml:4:5: target "default": unknown key "commandTemplat" for provider "cli" is ignored (hint: did you mean "command_template"?)',
  ),
};

const temp = await mkdtemp(path.join(tmpdir(), 'agentv-bad-input-'));
afterAll(() => rm(temp, { recursive: true, force: true }));

/** Copies a corpus folder into its own repository (a `.git` folder) and runs its setup. */
async function projectFor(name: string, input: BadInput, command: string): Promise<string> {
  const dir = path.join(temp, `${name}-${command}`);
  await cp(path.join(CORPUS, name), dir, { recursive: true });
  await mkdir(path.join(dir, '.git'));
  await input.setup?.(dir);
  return dir;
}

/** Every fragment sits on one line of `output`; nothing looks like a crash. */
function expectMessages(output: string, fragments: string[]): void {
  const lines = output.split('\n');
  for (const fragment of fragments) {
    expect(
      lines.filter((line) => line.includes(fragment)),
      output,
    ).toHaveLength(1);
  }
  expect(output).not.toMatch(/^\s+at /m);
  expect(output).not.toContain('unexpected error');
}

describe('the bad-input corpus', () => {
  it('has a test case for every folder', async () => {
    const folders = (await readdir(CORPUS, { withFileTypes: true }))
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    expect(folders).toEqual(Object.keys(CASES).sort());
  });
});

describe.concurrent.each(Object.entries(CASES))('bad input: %s', (name, input) => {
  it('agentv eval prints the message with location and hint, and exits 2', async () => {
    const dir = await projectFor(name, input, 'eval');
    const run = await runAgentv(['eval', 'evals'], dir, { AGENTV_CORPUS_UNSET_TOKEN: undefined });
    expect(run.code, run.stderr).toBe(2);
    expectMessages(run.stderr, input.eval);
    expect(run.stdout).toBe('');
  });

  it(`agentv validate prints the message with location and hint, and exits ${input.validateExit ?? 1}`, async () => {
    const dir = await projectFor(name, input, 'validate');
    const run = await runAgentv(['validate'], dir, { AGENTV_CORPUS_UNSET_TOKEN: undefined });
    expect(run.code, run.stdout + run.stderr).toBe(input.validateExit ?? 1);
    expectMessages(run.stdout, input.validate);
    expect(run.stderr).toBe('');
    expect(run.stdout.trim().split('\n').at(-1)).toMatch(/^\d+ files? checked: /);
  });
});
