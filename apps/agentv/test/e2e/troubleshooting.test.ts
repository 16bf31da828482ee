// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${{ NAME }} is targets-file syntax, not a JS template
import { chmod, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createProject, type Project, runAgentv } from '../support/project.js';

// The README's "Troubleshooting" section lists the most likely mistakes with the exact
// message each gets. This test makes each mistake in a fresh project, runs the built CLI,
// and checks every message line of the README appears in the output, so the two cannot
// drift. In the README, `…` stands for text that varies (paths, durations, long lists).

const README = path.join(import.meta.dirname, '..', '..', '..', '..', 'README.md');

const TARGETS = (settings: string) => `targets:
  - name: default
    provider: cli
    cwd: ..
${settings
  .trim()
  .split('\n')
  .map((line) => `    ${line}`)
  .join('\n')}
`;

const EVAL_FILE = (evaluator: string, extra = '') => `execution:
  target: default
evalcases:
  - id: refund-001
    input_messages:
      - role: user
        content: I want a refund
${extra}    evaluators:
${evaluator}`;

const CONTAINS = `      - name: mentions-refund
        type: contains
        value: refund
`;

const ECHO_AGENT = 'console.log(process.argv[2]);\n';

interface Mistake {
  files: Record<string, string>;
  /** Files made executable. */
  executable?: string[];
  args: string[];
  env?: Record<string, string | undefined>;
  /** Default 2. */
  code?: number;
}

const base = (files: Record<string, string>): Record<string, string> => ({
  'agent.mjs': ECHO_AGENT,
  '.agentv/targets.yaml': TARGETS('command_template: node agent.mjs {PROMPT}'),
  'evals/refund.yaml': EVAL_FILE(CONTAINS),
  ...files,
});

const EVAL = ['eval', 'evals/refund.yaml', '--out', 'out.jsonl'];

/** Keyed by the README heading. */
const MISTAKES: Record<string, Mistake> = {
  'A misspelt evaluator type': {
    files: base({
      'evals/refund.yaml': EVAL_FILE(CONTAINS.replace('type: contains', 'type: contians')),
    }),
    args: EVAL,
  },
  'A misspelt key': {
    files: base({
      'evals/refund.yaml': EVAL_FILE(CONTAINS, '    expected_outcom: Offers a refund\n'),
    }),
    args: EVAL,
    code: 0,
  },
  'A misspelt placeholder': {
    files: base({
      '.agentv/targets.yaml': TARGETS('command_template: node agent.mjs {PROMT}'),
    }),
    args: EVAL,
  },
  'A misspelt provider': {
    files: base({
      '.agentv/targets.yaml': TARGETS('command_template: node agent.mjs {PROMPT}').replace(
        'provider: cli',
        'provider: clii',
      ),
    }),
    args: EVAL,
  },
  'A target that does not exist': {
    files: base({
      'evals/refund.yaml': EVAL_FILE(CONTAINS).replace('target: default', 'target: staging'),
    }),
    args: EVAL,
  },
  'The agent program is not installed': {
    files: base({
      '.agentv/targets.yaml': TARGETS('command_template: my-agent --prompt {PROMPT}'),
    }),
    args: EVAL,
  },
  'The agent script is not executable': {
    files: base({
      'agent.sh': '#!/bin/sh\necho "$1"\n',
      '.agentv/targets.yaml': TARGETS('command_template: ./agent.sh {PROMPT}'),
    }),
    args: EVAL,
  },
  "The agent's script is not where the command says": {
    files: base({
      '.agentv/targets.yaml': TARGETS('command_template: node ./agnet.mjs {PROMPT}'),
    }),
    args: EVAL,
  },
  'A line indented one space too few': {
    files: base({
      'evals/refund.yaml': EVAL_FILE(CONTAINS).replace('    evaluators:', '   evaluators:'),
    }),
    args: EVAL,
  },
  'An environment variable that is not set': {
    files: base({
      '.agentv/targets.yaml': TARGETS(`
command_template: node agent.mjs {PROMPT}
env: { AGENT_TOKEN: "\${{ AGENT_TOKEN }}" }
`),
    }),
    args: EVAL,
    env: { AGENT_TOKEN: undefined },
  },
  'A code_judge script that crashes': {
    files: base({
      'judge.mjs':
        "const input = JSON.parse('{}');\nif (!input.candidate_answer) throw new Error('no candidate_answer in the input');\n",
      'evals/refund.yaml': EVAL_FILE(`      - name: graded
        type: code_judge
        script: node ../judge.mjs
`),
    }),
    args: EVAL,
  },
  'The agent is slower than its timeout': {
    files: base({
      'agent.mjs': 'await new Promise((resolve) => setTimeout(resolve, 5000));\n',
      '.agentv/targets.yaml': TARGETS(`
command_template: node agent.mjs {PROMPT}
timeout_seconds: 1
max_retries: 0
`),
    }),
    args: EVAL,
  },
};

/** The README section's entries: heading → the lines of its first ```text block. */
async function readmeEntries(): Promise<Map<string, string[]>> {
  const readme = await readFile(README, 'utf8');
  const start = readme.indexOf('\n## Troubleshooting\n');
  expect(start, 'README has a "## Troubleshooting" section').toBeGreaterThan(-1);
  const rest = readme.slice(start + 1);
  const end = rest.indexOf('\n## ', 1);
  const section = end === -1 ? rest : rest.slice(0, end);
  const entries = new Map<string, string[]>();
  for (const part of section.split('\n### ').slice(1)) {
    const title = part.slice(0, part.indexOf('\n')).trim();
    const block = /```text\n([\s\S]*?)\n```/.exec(part);
    entries.set(title, block ? block[1]!.split('\n') : []);
  }
  return entries;
}

/** A README message line as a pattern for one whole output line; `…` matches anything. */
function linePattern(line: string): RegExp {
  const parts = line.split('…').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('.*')}$`);
}

const projects: Project[] = [];
afterAll(async () => {
  for (const project of projects) await project.cleanup();
});

describe('README troubleshooting', () => {
  it('lists exactly the mistakes this test makes, each with its message', async () => {
    const entries = await readmeEntries();
    expect([...entries.keys()].sort()).toEqual(Object.keys(MISTAKES).sort());
    for (const [title, lines] of entries) expect(lines.length, title).toBeGreaterThan(0);
  });

  it.concurrent.each(Object.entries(MISTAKES))(
    '%s: the message is the README one',
    async (title, mistake) => {
      const lines = (await readmeEntries()).get(title) ?? [];
      const project = await createProject(mistake.files);
      projects.push(project);
      for (const file of mistake.executable ?? []) await chmod(project.file(file), 0o755);
      const run = await runAgentv(mistake.args, project.dir, mistake.env ?? {});
      const output = `${run.stdout}\n${run.stderr}`.split('\n');
      if (process.env.AGENTV_SHOW_OUTPUT) console.log(`### ${title}\n${output.join('\n')}`);
      for (const line of lines) {
        expect(
          output.some((candidate) => linePattern(line).test(candidate)),
          `${title}: no output line matches\n  ${line}\noutput:\n${output.join('\n')}`,
        ).toBe(true);
      }
      expect(run.code).toBe(mistake.code ?? 2);
      expect(run.stderr).not.toMatch(/^\s+at /m);
    },
  );
});
