import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, type Project, parseJsonl, runAgentv } from '../support/project.js';

// Issue 22, point 1: no prompt from a dataset ever runs as a command, whatever the
// template; templates that put a placeholder where a shell would parse its value are
// refused by validate and eval before anything runs.

let project: Project | undefined;
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
});

/** Answers with what it received (argv and stdin) as JSON; logs each run. */
const AGENT = `
import { appendFileSync, readFileSync } from 'node:fs';
appendFileSync('runs.log', process.pid + '\\n');
const stdin = readFileSync(0, 'utf8');
process.stdout.write(JSON.stringify({ text: JSON.stringify({ argv: process.argv.slice(2), stdin }) }));
`;

const MARKER = 'INJECTED';

/** Prompts that run `touch INJECTED` (in the project) wherever a shell parses them as code. */
const HOSTILE = [
  `$(touch ${MARKER})`,
  `\`touch ${MARKER}\``,
  `x; touch ${MARKER}`,
  `'; touch ${MARKER}; '`,
  `"; touch ${MARKER}; "`,
  `\\"; touch ${MARKER}; #`,
  `line one\nEOF\ntouch ${MARKER}\nEOF`,
  // biome-ignore lint/suspicious/noTemplateCurlyInString: literal shell syntax, on purpose
  '${X:-$(touch INJECTED)}',
  `a[$(touch ${MARKER})]`,
  `() { :; }; touch ${MARKER}`,
  '$HOME * ~ -c --help %s',
  'ünïcødé 日本語 🚀',
];

// A bare word, text in double quotes, a single-quoted placeholder, "$(…)", backquotes,
// a list placeholder and a here-document: every context in one command.
const TEMPLATE = `command_template: |
      node agent.mjs {PROMPT} "Q: {PROMPT}" '{EVAL_ID}' "$(printf '%s' {PROMPT})" "\`printf '%s' {PROMPT}\`" {FILES} <<EOF
      {PROMPT}
      EOF`;

const targets = (template: string) => `targets:
  - name: default
    provider: cli
    cwd: ..
    max_retries: 0
    ${template}
`;

describe('hostile prompts from a dataset', () => {
  it('reach the agent byte for byte in every template context and run nothing', async () => {
    const cases = HOSTILE.map((prompt, index) =>
      JSON.stringify({
        id: `h${index}`,
        input_messages: [{ role: 'user', content: prompt }],
        evaluators: [{ type: 'is_json' }],
      }),
    );
    project = await createProject({
      'agent.mjs': AGENT,
      '.agentv/targets.yaml': targets(TEMPLATE),
      'evals/hostile.yaml': 'cases: hostile.jsonl\n',
      'evals/hostile.jsonl': `${cases.join('\n')}\n`,
    });
    const validate = await runAgentv(['validate'], project.dir);
    expect(validate.code, validate.stdout).toBe(0);
    const run = await runAgentv(['eval', 'evals/hostile.yaml', '--out', 'out.jsonl'], project.dir);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(existsSync(project.file(MARKER)), 'a prompt ran as a command').toBe(false);
    // One agent process per case, nothing else started by the prompts.
    expect(
      (await readFile(project.file('runs.log'), 'utf8')).split('\n').filter(Boolean),
    ).toHaveLength(HOSTILE.length);
    const lines = parseJsonl(await readFile(project.file('out.jsonl'), 'utf8'));
    for (const line of lines) {
      const prompt = HOSTILE[Number(String(line.eval_id).slice(1))]!;
      const received = JSON.parse(String(line.candidate_answer)) as {
        argv: string[];
        stdin: string;
      };
      const substituted = prompt.replace(/\n+$/, '');
      expect(received).toEqual({
        argv: [prompt, `Q: ${prompt}`, line.eval_id, substituted, substituted],
        stdin: `${prompt}\n`,
      });
    }
  });
});

describe('a placeholder where a shell would parse its value', () => {
  const REFUSED = `error: .agentv/targets.yaml:6:5: target "default": command_template: {PROMPT} is inside single quotes with other text ('node agent.mjs {PROMPT}'): such a string is usually a script for another shell, which would run the value as code (hint: for text around it use double quotes ("Q: {PROMPT}"); for a nested shell, reference the variable inside it so the inner shell expands it (sh -c 'agent "$AGENTV_PROMPT"'))`;

  it('is refused by validate and eval, at the template, before anything runs', async () => {
    project = await createProject({
      'agent.mjs': AGENT,
      '.agentv/targets.yaml': targets(`command_template: sh -c 'node agent.mjs {PROMPT}'`),
      'evals/hostile.yaml': `evalcases:
  - id: h1
    input_messages: [{ role: user, content: "$(touch ${MARKER})" }]
    evaluators: [{ type: is_json }]
`,
    });
    const validate = await runAgentv(['validate'], project.dir);
    expect(validate.code).toBe(1);
    expect(validate.stdout).toContain(`${REFUSED}\n`);
    const run = await runAgentv(['eval', 'evals/hostile.yaml', '--out', 'out.jsonl'], project.dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`${REFUSED}\n`);
    expect(existsSync(project.file('runs.log')), 'the agent ran').toBe(false);
    expect(existsSync(project.file(MARKER))).toBe(false);
  });

  it('runs once the nested shell reads the variable, as the hint says', async () => {
    project = await createProject({
      'agent.mjs': AGENT,
      '.agentv/targets.yaml': targets(
        `command_template: sh -c 'node agent.mjs "$AGENTV_PROMPT" < /dev/null'`,
      ),
      'evals/hostile.yaml': `evalcases:
  - id: h1
    input_messages: [{ role: user, content: "$(touch ${MARKER})" }]
    evaluators: [{ type: is_json }]
`,
    });
    const run = await runAgentv(['eval', 'evals/hostile.yaml', '--out', 'out.jsonl'], project.dir);
    expect(run.code, run.stderr).toBe(0);
    const [line] = parseJsonl(await readFile(project.file('out.jsonl'), 'utf8'));
    expect(JSON.parse(String(line!.candidate_answer))).toEqual({
      argv: [`$(touch ${MARKER})`],
      stdin: '',
    });
    expect(existsSync(project.file(MARKER))).toBe(false);
  });
});
