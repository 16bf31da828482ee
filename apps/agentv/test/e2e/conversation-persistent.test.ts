import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, type Project, parseJsonl, runAgentv } from '../support/project.js';

// The README's persistent clients (examples/persistent/, shown verbatim in the README) in
// scripted conversations: one process serves both conversations and keeps each one's messages
// by conversation id, so the third turn can answer from the first.

let project: Project | undefined;
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
});

const EXAMPLES = new URL('../../../../examples/persistent/', import.meta.url);
const README = new URL('../../../../README.md', import.meta.url);

const EVAL = `evalcases:
  - id: ada
    turns:
      - input: My name is Ada.
      - input: I like tea.
      - input: What is my name?
        evaluators: [{ type: contains, value: Ada }]
  - id: bob
    turns:
      - input: My name is Bob.
      - input: What is my name?
        evaluators:
          - { type: contains, value: Bob }
          - { type: not_contains, value: Ada }
`;

describe('the README persistent clients in a conversation', () => {
  it.each([
    ['Node', 'agent.mjs', 'node agent.mjs'],
    ['Python', 'agent.py', 'python3 agent.py'],
  ])(
    '%s: remembers each conversation by its id across turns, in one process',
    async (_, file, command) => {
      const source = await readFile(new URL(file, EXAMPLES), 'utf8');
      // The README shows this very file.
      expect(await readFile(README, 'utf8')).toContain(source);
      project = await createProject({
        [file]: source,
        '.agentv/targets.yaml': `targets:
  - name: default
    provider: cli
    mode: persistent
    cwd: ..
    workers: 1
    command_template: echo "start $$" >> starts.log; exec ${command}
`,
        'evals/memory.yaml': EVAL,
      });
      const run = await runAgentv(['eval', 'evals/memory.yaml', '--out', 'out.jsonl'], project.dir);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('2 cases: 2 passed, 0 failed, 0 errored');
      const lines = parseJsonl(await readFile(project.file('out.jsonl'), 'utf8'));
      const answers = Object.fromEntries(
        lines.map((line) => [
          line.eval_id,
          line.turns.map((turn: { answer: string }) => turn.answer),
        ]),
      );
      expect(answers.ada).toEqual([
        'You said: My name is Ada. (before that: nothing)',
        'You said: I like tea. (before that: My name is Ada.)',
        'You said: What is my name? (before that: My name is Ada. / I like tea.)',
      ]);
      expect(answers.bob).toEqual([
        'You said: My name is Bob. (before that: nothing)',
        'You said: What is my name? (before that: My name is Bob.)',
      ]);
      // One process answered every turn of both conversations: what it remembers is its own.
      const starts = (await readFile(project.file('starts.log'), 'utf8')).trim().split('\n');
      expect(starts).toHaveLength(1);
    },
    60_000,
  );
});
