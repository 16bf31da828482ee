import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createProject,
  ECHO_AGENT,
  ECHO_TARGETS,
  type Project,
  parseJsonl,
  runAgentv,
} from '../support/project.js';

let project: Project | undefined;
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
});

// The echo agent answers "You said: <prompt>"; each case asks for "refund".
const EVAL = `execution:
  threshold: 0.5
evalcases:
  - id: required-missed
    input_messages: [{ role: user, content: refund please }]
    evaluators:
      - { name: said, type: contains, value: You said }
      - { name: refund, type: contains, value: refund }
      - { name: polite, type: contains, value: thanks, required: true }
  - id: optional-missed
    input_messages: [{ role: user, content: refund please }]
    evaluators:
      - { name: said, type: contains, value: You said }
      - { name: refund, type: contains, value: refund }
      - { name: polite, type: contains, value: thanks }
`;

describe('a required grader', () => {
  it('fails its case with score 0 under its bar, naming it and why, where the others alone would pass', async () => {
    project = await createProject({
      'agent.mjs': ECHO_AGENT,
      '.agentv/targets.yaml': ECHO_TARGETS,
      'evals/required.yaml': EVAL,
    });
    const out = path.join(project.dir, 'results.jsonl');
    const run = await runAgentv(['eval', 'evals/required.yaml', '--out', out], project.dir);
    expect(run.code).toBe(1);
    const lines = Object.fromEntries(
      parseJsonl(await readFile(out, 'utf8')).map((line) => [line.eval_id, line]),
    );
    expect(lines['required-missed']).toMatchObject({ passed: false, score: 0 });
    expect(lines['required-missed']!.misses).toContain(
      `required grader "polite" (contains) scored 0.00, below the case's threshold 0.5, so the case fails with score 0`,
    );
    expect(lines['optional-missed']).toMatchObject({ passed: true });
    expect(lines['optional-missed']!.score).toBeCloseTo(2 / 3);
    // The console's one miss of a failed case says why its score is 0.
    expect(run.stdout).toContain(
      `FAIL  required-missed  0.000  required grader "polite" (contains) scored 0.00`,
    );
  });
});
