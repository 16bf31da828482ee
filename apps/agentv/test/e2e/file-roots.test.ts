import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createProject, type Project, parseJsonl, runAgentv } from '../support/project.js';

// Issue 22, point 2: files named by eval files and datasets stay inside the project root
// (the folder holding .agentv/, else the repository root), symlinks included; /proc, /sys
// and /dev are never read. Each test runs the built CLI on real files.

let project: Project | undefined;
let outside: string;

beforeEach(async () => {
  outside = await mkdtemp(path.join(tmpdir(), 'agentv-outside-'));
  await writeFile(path.join(outside, 'secret.txt'), 'the neighbour secret\n');
});

afterEach(async () => {
  await project?.cleanup();
  project = undefined;
  await rm(outside, { recursive: true, force: true });
});

/** Answers with its prompt and records that it ran. */
const AGENT = `
import { appendFileSync } from 'node:fs';
appendFileSync('ran.log', 'ran\\n');
console.log('You said: ' + process.argv[2]);
`;

const TARGETS = `targets:
  - name: default
    provider: cli
    cwd: ..
    command_template: node agent.mjs {PROMPT}
    max_retries: 0
`;

/** An eval file whose case `id` attaches `file` (line 9 holds the file block, at column 34). */
const attaching = (id: string, file: string) => `execution:
  evaluators:
    - { name: said, type: contains, value: said }
evalcases:
  - id: ${id}
    input_messages:
      - role: user
        content:
          - { type: file, value: ${file} }
`;

const HINT =
  'move the file into the project, or add its folder to `allowed_file_roots` in .agentv/config.yaml, e.g. `allowed_file_roots: [../shared-fixtures]`, relative to the folder holding .agentv/';

async function expectRefused(message: string): Promise<void> {
  const run = await runAgentv(['eval', 'evals/a.yaml', '--out', 'out.jsonl'], project!.dir);
  expect(run.code).toBe(2);
  expect(run.stderr).toContain(`error: evals/a.yaml:9:34: ${message}`);
  // Refused before anything ran: no agent call, no result file.
  expect(existsSync(project!.file('ran.log'))).toBe(false);
  expect(existsSync(project!.file('out.jsonl'))).toBe(false);

  const validate = await runAgentv(['validate'], project!.dir);
  expect(validate.code).toBe(1);
  expect(validate.stdout).toContain(`error: evals/a.yaml:9:34: ${message}`);
}

describe('files named by an eval file', () => {
  it('refuses an absolute path outside the project', async () => {
    const secret = path.join(outside, 'secret.txt');
    project = await createProject({
      'agent.mjs': AGENT,
      '.agentv/targets.yaml': TARGETS,
      'evals/a.yaml': attaching('absolute', secret),
    });
    await expectRefused(
      `case "absolute": file "${secret}" is outside the project root ${project.dir} (hint: ${HINT})`,
    );
  });

  it('refuses a relative path that climbs out with ..', async () => {
    project = await createProject({ 'agent.mjs': AGENT, '.agentv/targets.yaml': TARGETS });
    const relative = path.relative(project.file('evals'), path.join(outside, 'secret.txt'));
    expect(relative.startsWith('../')).toBe(true);
    await mkdir(project.file('evals'));
    await writeFile(project.file('evals/a.yaml'), attaching('dotdot', relative));
    await expectRefused(
      `case "dotdot": file "${relative}" resolves to ${path.join(outside, 'secret.txt')}, outside the project root ${project.dir}`,
    );
  });

  it('refuses a symlink inside the project that points outside, naming its target', async () => {
    project = await createProject({
      'agent.mjs': AGENT,
      '.agentv/targets.yaml': TARGETS,
      'evals/a.yaml': attaching('link', './fixtures/data.txt'),
      'evals/fixtures/inside.txt': 'inside',
    });
    await symlink(path.join(outside, 'secret.txt'), project.file('evals/fixtures/data.txt'));
    await expectRefused(
      `case "link": file "./fixtures/data.txt" resolves to ${project.file('evals/fixtures/data.txt')}, a link to ${path.join(outside, 'secret.txt')}, outside the project root ${project.dir}`,
    );
  });

  it.skipIf(process.platform !== 'linux')('refuses /proc/self/environ', async () => {
    project = await createProject({
      'agent.mjs': AGENT,
      '.agentv/targets.yaml': TARGETS,
      'evals/a.yaml': attaching('environ', '/proc/self/environ'),
    });
    await expectRefused(
      'case "environ": file "/proc/self/environ" is in /proc: AgentV never reads /proc, /sys or /dev (hint: they hold the environment of running processes, kernel state and devices; attach a file of the project instead)',
    );
  });

  it('reads a file in a folder of allowed_file_roots', async () => {
    project = await createProject({
      'agent.mjs': AGENT,
      '.agentv/targets.yaml': TARGETS,
      'evals/a.yaml': attaching('allowed', path.join(outside, 'secret.txt')),
    });
    // Relative to the folder holding .agentv/, as users write it.
    await writeFile(
      project.file('.agentv/config.yaml'),
      `allowed_file_roots:\n  - ${path.relative(project.dir, outside)}\n`,
    );
    const validate = await runAgentv(['validate'], project.dir);
    expect(validate.code).toBe(0);
    const run = await runAgentv(['eval', 'evals/a.yaml', '--out', 'out.jsonl'], project.dir);
    expect(run.code).toBe(0);
    const [line] = parseJsonl(await readFile(project.file('out.jsonl'), 'utf8'));
    expect(line!.candidate_answer).toContain('the neighbour secret');
  });
});

describe('files named by a dataset', () => {
  const suite = `execution:
  evaluators:
    - { name: said, type: contains, value: said }
cases: ./cases.jsonl
`;

  it('refuses a record attaching a file outside the project, at its line', async () => {
    const record = (id: string, file: string) =>
      JSON.stringify({
        id,
        input_messages: [{ role: 'user', content: [{ type: 'file', value: file }] }],
      });
    project = await createProject({
      'agent.mjs': AGENT,
      '.agentv/targets.yaml': TARGETS,
      'evals/a.yaml': suite,
      'evals/inside.txt': 'inside',
    });
    await writeFile(
      project.file('evals/cases.jsonl'),
      `${record('fine', './inside.txt')}\n${record('leak', path.join(outside, 'secret.txt'))}\n`,
    );
    const message = `error: evals/cases.jsonl:2:1: case "leak": file "${path.join(outside, 'secret.txt')}" is outside the project root ${project.dir}`;
    const run = await runAgentv(['eval', 'evals/a.yaml', '--out', 'out.jsonl'], project.dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    expect(existsSync(project.file('ran.log'))).toBe(false);
    const validate = await runAgentv(['validate'], project.dir);
    expect(validate.code).toBe(1);
    expect(validate.stdout).toContain(message);
  });

  it('refuses a record that brings a code_judge, which never runs', async () => {
    project = await createProject({
      'agent.mjs': AGENT,
      '.agentv/targets.yaml': TARGETS,
      'evals/a.yaml': suite,
      'evals/cases.jsonl': `${JSON.stringify({
        id: 'pwn',
        question: 'hello',
        evaluators: [
          {
            name: 'x',
            type: 'code_judge',
            script: "node -e \"require('fs').writeFileSync('pwned', '')\"",
          },
        ],
      })}\n`,
    });
    const message =
      'error: evals/cases.jsonl:1:1: case "pwn": a dataset record cannot bring a code_judge grader ("x"): it would run a command written in the dataset';
    const run = await runAgentv(['eval', 'evals/a.yaml', '--out', 'out.jsonl'], project.dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    const validate = await runAgentv(['validate'], project.dir);
    expect(validate.code).toBe(1);
    expect(validate.stdout).toContain(message);
    expect(existsSync(project.file('pwned'))).toBe(false);
    expect(existsSync(project.file('evals/pwned'))).toBe(false);
    expect(existsSync(project.file('ran.log'))).toBe(false);
  });
});
