import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, type Project, parseJsonl, runAgentv } from '../support/project.js';

// Issue 22, point 2: values of credential-looking environment variables (the shell's and
// the project's .env) are masked in everything AgentV writes, as ${{ VAR }} values are.

let project: Project | undefined;
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
});

const API_KEY = 'sk-e2e-4f1c9a7b2d8e6f30';
const DOTENV_TOKEN = 'tok-dotenv-77aa55cc33ee';

/** A careless agent: repeats its prompt and its keys in the answer, the trace and on stderr. */
const AGENT = `
import { writeFileSync } from 'node:fs';
const [prompt, out] = process.argv.slice(2);
const keys = process.env.OPENAI_API_KEY + ' ' + process.env.SERVICE_TOKEN;
console.error('debug: using ' + keys);
writeFileSync(out, JSON.stringify({
  text: 'You said: ' + prompt + ' / my keys: ' + keys,
  trace: [{ type: 'tool_call', timestamp: new Date().toISOString(), name: 'env', input: { keys } }],
}));
`;

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name));
}

describe('credentials of the environment', () => {
  it('are masked in results, dumps, reports and --verbose logs; graders see them', async () => {
    project = await createProject({
      'agent.mjs': AGENT,
      '.env': `SERVICE_TOKEN=${DOTENV_TOKEN}\n`,
      '.agentv/targets.yaml': `targets:
  - name: default
    provider: cli
    cwd: ..
    command_template: node agent.mjs {PROMPT} {OUTPUT_FILE}
    max_retries: 0
`,
      'evals/a.yaml': `evalcases:
  - id: names-the-key
    input_messages: [{ role: user, content: "Is ${API_KEY} my key?" }]
    evaluators:
      - { name: sees-key, type: contains, value: "${API_KEY}" }
  - id: fails
    input_messages: [{ role: user, content: "hello" }]
    evaluators:
      - { name: absent, type: contains, value: "never said" }
`,
    });
    const run = await runAgentv(
      [
        'eval',
        'evals/a.yaml',
        '--out',
        'out.jsonl',
        '--include-trace',
        '--dump-traces',
        '--dump-prompts',
        '--junit',
        'junit.xml',
        '--html',
        'report.html',
        '--verbose',
      ],
      project.dir,
      { OPENAI_API_KEY: API_KEY },
    );
    expect(run.code).toBe(1);

    const written = (await filesUnder(project.dir)).filter(
      (file) =>
        !['agent.mjs', '.env', path.join('evals', 'a.yaml')].includes(
          path.relative(project!.dir, file),
        ) && !file.includes(`${path.sep}.git${path.sep}`),
    );
    const names = written.map((file) => path.relative(project!.dir, file)).sort();
    expect(names).toEqual(expect.arrayContaining(['junit.xml', 'out.jsonl', 'report.html']));
    expect(names.filter((name) => name.startsWith(path.join('.agentv', 'traces')))).toHaveLength(2);
    expect(names.filter((name) => name.startsWith(path.join('.agentv', 'prompts')))).toHaveLength(
      2,
    );
    for (const file of written) {
      const text = await readFile(file, 'utf8');
      expect(text, file).not.toContain(API_KEY);
      expect(text, file).not.toContain(DOTENV_TOKEN);
    }
    for (const output of [run.stdout, run.stderr]) {
      expect(output).not.toContain(API_KEY);
      expect(output).not.toContain(DOTENV_TOKEN);
    }
    // --verbose shows the agent's stderr, masked.
    expect(run.stderr).toContain('stderr: debug: using *** ***');

    const lines = parseJsonl(await readFile(project.file('out.jsonl'), 'utf8'));
    const named = lines.find((line) => line.eval_id === 'names-the-key')!;
    // The grader saw the real answer: it holds the key, so the case passed.
    expect(named.passed).toBe(true);
    expect(named.candidate_answer).toBe('You said: Is *** my key? / my keys: *** ***');
    expect(JSON.stringify(named.trace)).toContain('"keys":"*** ***"');
  });
});
