import { afterEach, describe, expect, it } from 'vitest';
import {
  createProject,
  ECHO_AGENT,
  ECHO_TARGETS,
  type Project,
  runAgentv,
} from '../support/project.js';

let project: Project | undefined;
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
});

const CASE = `
evalcases:
  - id: only
    input_messages: [{ role: user, content: hi }]
    evaluators: [{ name: c, type: contains, value: hi }]
`;

/** A user mistake: exit code 2, a message on stderr, no stack trace, no results. */
function expectUserError(run: { code: number | null; stderr: string }, ...fragments: string[]) {
  expect(run.code).toBe(2);
  for (const fragment of fragments) expect(run.stderr).toContain(fragment);
  expect(run.stderr).not.toMatch(/^\s+at /m);
  expect(run.stderr).not.toContain('unexpected error');
}

describe('agentv eval: user errors', () => {
  it('rejects an unknown placeholder, naming it and the target', async () => {
    project = await createProject({
      'agent.mjs': ECHO_AGENT,
      '.agentv/targets.yaml': `
targets:
  - name: default
    provider: cli
    cwd: ..
    command_template: node agent.mjs --prompt {PROMTP}
`,
      'evals/a.yaml': CASE,
    });
    const run = await runAgentv(['eval', 'evals/a.yaml'], project.dir);
    expectUserError(run, '{PROMTP}', 'target "default"', '.agentv/targets.yaml');
    expect(run.stdout).toBe('');
  });

  it('rejects an unknown --target, listing the defined ones', async () => {
    project = await createProject({
      'agent.mjs': ECHO_AGENT,
      '.agentv/targets.yaml': ECHO_TARGETS,
      'evals/a.yaml': CASE,
    });
    const run = await runAgentv(['eval', 'evals/a.yaml', '--target', 'gpt-9'], project.dir);
    expectUserError(run, 'unknown target "gpt-9"', 'default');
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('rejects an unknown target named by the eval file, with file, line and case', async () => {
    project = await createProject({
      'agent.mjs': ECHO_AGENT,
      '.agentv/targets.yaml': ECHO_TARGETS,
      'evals/a.yaml': `execution:\n  target: staging\n${CASE}`,
    });
    const run = await runAgentv(['eval', 'evals/a.yaml'], project.dir);
    expectUserError(run, 'evals/a.yaml:', 'case "only"', 'unknown target "staging"');
  });

  it('reports a broken targets file once, without a misleading "unknown target" for every case', async () => {
    project = await createProject({
      'agent.mjs': ECHO_AGENT,
      '.agentv/targets.yaml': ECHO_TARGETS.replace('max_retries: 0', 'max_retries: lots'),
      'evals/a.yaml': CASE,
    });
    const run = await runAgentv(['eval', 'evals/a.yaml'], project.dir);
    expectUserError(run, '.agentv/targets.yaml:', 'target "default"', 'max_retries');
    expect(run.stderr).not.toContain('unknown target');
    expect(run.stderr).not.toContain('no target named');
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('reports an eval file that does not exist', async () => {
    project = await createProject({ '.agentv/targets.yaml': ECHO_TARGETS });
    const run = await runAgentv(['eval', 'evals/missing.yaml'], project.dir);
    expectUserError(run, 'no eval files match "evals/missing.yaml"');
  });

  it('reports an eval file that is not readable as text', async () => {
    project = await createProject({
      '.agentv/targets.yaml': ECHO_TARGETS,
      'evals/a.yaml': 'x\u0000\u0001\u0002',
    });
    const run = await runAgentv(['eval', 'evals/a.yaml'], project.dir);
    expectUserError(run, 'evals/a.yaml');
  });

  it('reports a YAML syntax error with its line', async () => {
    project = await createProject({
      '.agentv/targets.yaml': ECHO_TARGETS,
      'evals/a.yaml': 'evalcases:\n  - id: one\n    input_messages: [unclosed\n',
    });
    const run = await runAgentv(['eval', 'evals/a.yaml'], project.dir);
    expectUserError(run, 'evals/a.yaml:');
    expect(run.stderr).toMatch(/evals\/a\.yaml:\d+/);
  });

  it('reports a missing targets file with a hint to create one', async () => {
    project = await createProject({ 'evals/a.yaml': CASE });
    const run = await runAgentv(['eval', 'evals/a.yaml'], project.dir);
    expectUserError(run, 'no targets file was found');
  });

  it('reports an unknown option with a suggestion', async () => {
    project = await createProject({ 'evals/a.yaml': CASE });
    const run = await runAgentv(['eval', 'evals/a.yaml', '--worker', '2'], project.dir);
    expectUserError(run, 'unknown option --worker', 'did you mean --workers?');
  });

  it('reports a bad --workers value', async () => {
    project = await createProject({ 'evals/a.yaml': CASE });
    const run = await runAgentv(['eval', 'evals/a.yaml', '--workers', 'many'], project.dir);
    expectUserError(run, '--workers must be an integer >= 1, got "many"');
  });

  it.each([
    [['--out'], '--out needs a value'],
    [['--threshold'], '--threshold needs a value'],
    [['--workers', '--verbose'], '--workers needs a value'],
    [['--target'], '--target needs a value'],
    [['--out', 'evals'], 'cannot write results to evals: is a folder (EISDIR)'],
    [['--html', 'afile/r.html'], 'cannot write --html afile/r.html: afile is not a folder'],
  ])('reports a flag without a usable value: %j', async (flags, message) => {
    project = await createProject({
      'evals/a.yaml': CASE,
      '.agentv/targets.yaml': ECHO_TARGETS,
      'agent.mjs': ECHO_AGENT,
      afile: '',
    });
    const run = await runAgentv(['eval', 'evals/a.yaml', ...flags], project.dir);
    expectUserError(run, message);
  });

  it('reports an unknown command', async () => {
    project = await createProject({});
    const run = await runAgentv(['evaluate'], project.dir);
    expectUserError(run, 'unknown command "evaluate"');
  });
});

describe('agentv --version and --help', () => {
  it('prints the version', async () => {
    const run = await runAgentv(['--version'], process.cwd());
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('prints the eval command usage with its flags', async () => {
    const run = await runAgentv(['eval', '--help'], process.cwd());
    expect(run.code).toBe(0);
    for (const flag of [
      '--target',
      '--targets',
      '--out',
      '--workers',
      '--eval-id',
      '--dry-run',
      '--verbose',
    ]) {
      expect(run.stdout).toContain(flag);
    }
  });

  it('ends the usage of the commands that gate CI with their exit codes', async () => {
    const codes = async (command: string) => {
      const run = await runAgentv([command, '--help'], process.cwd());
      expect(run.code).toBe(0);
      const [, epilog = ''] = run.stdout.split('EXIT CODES\n');
      return epilog
        .trim()
        .split('\n')
        .map((line) => line.trim().split(/\s+/)[0]);
    };
    expect(await codes('eval')).toEqual(['0', '1', '2', '3', '130']);
    expect(await codes('grade')).toEqual(['0', '1', '2', '130']);
    expect(await codes('validate')).toEqual(['0', '1', '2']);
    // Commands without an epilog are as citty renders them.
    const init = await runAgentv(['init', '--help'], process.cwd());
    expect(init.stdout).not.toContain('EXIT CODES');
  });
});
