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

/** An AgentV 1.x file using every key `agentv migrate` renames, with comments. */
const OLD_FORMAT = `$schema: agentv-eval-v2
description: Refunds # the suite
execution:
  # graders of every case without its own
  evaluators:
    - { name: said, type: contains, value: "You said" }
    - name: script
      type: code_judge
      script: [node, ./check.mjs]
evalcases:
  # the first case
  - id: refund
    expected_outcome: Mentions the refund
    input_messages:
      - role: user
        content: Please refund order 42
    expected_messages:
      - { role: assistant, content: Refunded }
    evaluators:
      - { name: order, type: regex, pattern: "order \\\\d+" }
      - { name: json, type: is_json, negate: true }
      - { name: missing, type: contains, value: "not there" }
  - id: plain
    input_messages: [{ role: user, content: hello }]
`;

const CHECK = `
const input = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
const answer = input.candidate_answer ?? input.answer ?? '';
console.log(JSON.stringify({ score: answer.includes('hello') ? 1 : 0.5, hits: [], misses: [] }));
`;

let project: Project | undefined;
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
});

function outcomes(content: string) {
  return parseJsonl(content)
    .map((line) => ({
      id: line.id ?? line.eval_id,
      score: line.score,
      passed: line.passed ?? line.verdict,
      graders: (line.evaluator_results ?? line.evaluators ?? []).map(
        (result: { name: string; score: number }) => [result.name, result.score],
      ),
    }))
    .sort((a, b) => String(a.id).localeCompare(String(b.id)));
}

describe('agentv migrate', () => {
  it('prints the file in the tests: format with its comments, and it grades the same', async () => {
    project = await createProject({
      'agent.mjs': ECHO_AGENT,
      '.agentv/targets.yaml': ECHO_TARGETS,
      'evals/check.cjs': CHECK,
      'evals/old.eval.yaml': OLD_FORMAT.replace('./check.mjs', './check.cjs'),
    });
    const printed = await runAgentv(['migrate', 'evals/old.eval.yaml'], project.dir);
    expect(printed.stderr).toBe('');
    expect(printed.code).toBe(0);
    const text = printed.stdout;
    expect(text).toContain('# the first case\n  - id: refund');
    expect(text).toContain('# graders of every case without its own\nassertions:');
    expect(text).toMatch(/^tests:/m);
    for (const old of [
      'evalcases',
      'input_messages',
      'expected_outcome',
      'evaluators',
      'code_judge',
      '$schema',
    ]) {
      expect(text).not.toContain(old);
    }
    expect(text).toContain('criteria: Mentions the refund');
    expect(text).toContain('type: code-grader');
    expect(text).toContain('command: [ node, ./check.cjs ]');

    const { writeFile } = await import('node:fs/promises');
    await writeFile(project.file('evals/new.eval.yaml'), text);
    const validate = await runAgentv(['validate', 'evals/new.eval.yaml'], project.dir);
    expect(validate.stdout).toBe('2 files checked: no errors\n');

    const oldRun = await runAgentv(
      ['eval', 'evals/old.eval.yaml', '--out', 'old.jsonl'],
      project.dir,
    );
    const newRun = await runAgentv(
      ['eval', 'evals/new.eval.yaml', '--out', 'new.jsonl'],
      project.dir,
    );
    expect(oldRun.code).toBe(newRun.code);
    const before = outcomes(await readFile(project.file('old.jsonl'), 'utf8'));
    const after = outcomes(await readFile(project.file('new.jsonl'), 'utf8'));
    expect(before.map((line) => [line.id, line.passed, line.graders.length])).toEqual([
      ['plain', true, 2],
      ['refund', false, 3],
    ]);
    expect(after).toEqual(before);
  });

  it('--write rewrites the file in place; a file already migrated is left as it is', async () => {
    project = await createProject({ 'old.eval.yaml': OLD_FORMAT });
    const first = await runAgentv(['migrate', 'old.eval.yaml', '--write'], project.dir);
    expect(first.code).toBe(0);
    expect(first.stderr).toContain('old.eval.yaml: rewritten (');
    const migrated = await readFile(project.file('old.eval.yaml'), 'utf8');
    const second = await runAgentv(['migrate', 'old.eval.yaml', '--write'], project.dir);
    expect(second.stderr).toBe('old.eval.yaml: already in the current format\n');
    expect(await readFile(project.file('old.eval.yaml'), 'utf8')).toBe(migrated);
    // Printed rather than written, it is printed unchanged, and said so.
    const printed = await runAgentv(['migrate', 'old.eval.yaml'], project.dir);
    expect(printed.stdout).toBe(migrated);
    expect(printed.stderr).toBe(
      'old.eval.yaml: already in the current format; printed unchanged\n',
    );
  });
});
