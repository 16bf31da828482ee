import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { processAlive } from '../process/test-support/process-alive.js';
import { commandEvaluator, DEFAULT_COMMAND_TIMEOUT_SECONDS } from './command.js';
import type { EvaluationContext } from './evaluator.js';
import { createEvaluatorRegistry, defaultEvaluators } from './evaluator-registry.js';
import { runEvaluator } from './grade-case.js';
import { makeConfig, makeContext } from './test-support/make-context.js';
import { makeWorkspace } from './test-support/make-workspace.js';

const grader = (command: unknown, options: Record<string, unknown> = {}) =>
  makeConfig('command', { command, ...options });

const messagesOf = (issues: { message: string }[] | undefined) =>
  issues?.map((issue) => issue.message);

/** A context whose workspace holds `files`, starting from a small project environment. */
function inWorkspace(files: Record<string, string> = {}, env: Record<string, string> = {}) {
  const workspace = makeWorkspace(files);
  const context = makeContext({ workspace, env: { PATH: process.env.PATH ?? '', ...env } });
  return { workspace, context };
}

async function failure(promise: Promise<unknown>): Promise<{ message: string; hint?: string }> {
  return promise.then(
    () => {
      throw new Error('expected the grader to fail');
    },
    (error: unknown) => error as { message: string; hint?: string },
  );
}

describe('command grader', () => {
  it('scores 1 when the command exits 0, run in the workspace with its environment', async () => {
    const { workspace, context } = inWorkspace({ 'test.sh': 'exit 0\n' }, { FROM_PROJECT: 'yes' });
    const result = await commandEvaluator.evaluate(
      grader('pwd; echo "$AGENTV_WORKSPACE $AGENTV_EVAL_ID $FROM_PROJECT"; sh test.sh'),
      context,
    );
    expect(result.score).toBe(1);
    expect(result.hits).toEqual([
      'command "pwd; echo \\"$AGENTV_WORKSPACE $AGENTV_EVAL_ID $FROM_PROJECT\\"; sh test.sh" exited with code 0',
    ]);
    expect(result.misses).toEqual([]);
    expect(result.reasoning).toBe(
      `exited with code 0\nstdout:\n${workspace.path}\n${workspace.path} case-1 yes`,
    );
  });

  it('scores 0 when it exits non-zero, with the end of its output as the reasoning', async () => {
    const { context } = inWorkspace();
    const script = 'for i in $(seq 1 50); do echo "test $i ok"; done; echo "1 failing" >&2; exit 3';
    const result = await commandEvaluator.evaluate(grader(['sh', '-c', script]), context);
    expect(result.score).toBe(0);
    expect(result.misses).toEqual([
      expect.stringMatching(/^command "sh -c .*" exited with code 3$/),
    ]);
    const lines = (result.reasoning ?? '').split('\n');
    expect(lines[0]).toBe('exited with code 3');
    expect(lines[1]).toBe('stdout (last 20 lines):');
    expect(lines[2]).toBe('test 31 ok');
    expect(lines.slice(-3)).toEqual(['test 50 ok', 'stderr:', '1 failing']);
  });

  it('takes partial credit from a last line of JSON, whatever the exit code', async () => {
    const { context } = inWorkspace();
    const line = JSON.stringify({ score: 0.5, hits: ['add works'], misses: ['sub fails'] });
    const result = await commandEvaluator.evaluate(
      grader(`echo "running"; echo '${line}'; echo; exit 1`),
      context,
    );
    expect(result.score).toBe(0.5);
    expect(result.hits).toEqual(['add works']);
    expect(result.misses).toEqual(['sub fails']);
    expect(result.reasoning).toMatch(/^exited with code 1\nstdout:\nrunning\n\{"score":0.5/);
    const reasoned = await commandEvaluator.evaluate(
      grader(`echo '{"score": 1, "reasoning": "all 12 passed"}'`),
      context,
    );
    expect(reasoned).toEqual({ score: 1, hits: [], misses: [], reasoning: 'all 12 passed' });
  });

  it('reads the score at the end of an output longer than it keeps', async () => {
    const { context } = inWorkspace();
    const result = await commandEvaluator.evaluate(
      grader(`head -c 3000000 /dev/zero | tr '\\0' x; echo; echo '{"score": 0.25}'`),
      context,
    );
    expect(result.score).toBe(0.25);
    expect((result.reasoning ?? '').length).toBeLessThan(2300);
  });

  it('warns about a score outside 0–1 and counts it as the nearer bound', async () => {
    const { context } = inWorkspace();
    const warnings: string[] = [];
    const registry = createEvaluatorRegistry(defaultEvaluators());
    const result = await runEvaluator(
      grader(`echo '{"score": 7}'`),
      {
        ...context,
        warn: (_case, name, message) => warnings.push(`${name} ${message}`),
      } satisfies EvaluationContext,
      registry,
    );
    expect(result.score).toBe(1);
    expect(warnings).toEqual([
      '"command-check" (command) returned score 7, outside 0–1; it counts as 1',
    ]);
  });

  it('lets a test runner end with JSON without a score, and refuses a score of the wrong shape', async () => {
    const { context } = inWorkspace();
    const summary = await commandEvaluator.evaluate(
      grader(`echo '{"passed": 3, "failed": 1}'; exit 1`),
      context,
    );
    expect(summary.score).toBe(0);
    const error = await failure(
      commandEvaluator.evaluate(grader(`echo '{"score": "high"}'`), context),
    );
    expect(error.message).toMatch(
      /ended its output with a score of the wrong shape \(score: .*expected number/,
    );
  });

  it('stops a command at its timeout with its whole process group, and scores 0', async () => {
    const { workspace, context } = inWorkspace();
    const pidFile = path.join(workspace.path, 'grandchild.pid');
    const result = await commandEvaluator.evaluate(
      // 5 s: room for two shells to start and write the pid on a busy machine.
      grader(`sh -c 'sleep 60 & echo $! > grandchild.pid; wait'; echo never`, {
        timeout_seconds: 5,
      }),
      context,
    );
    expect(result.score).toBe(0);
    expect(result.misses).toEqual([expect.stringMatching(/timed out after 5s and was stopped$/)]);
    expect(result.reasoning).toMatch(
      /^timed out after 5s and was stopped\n\(it printed nothing\)$/,
    );
    const grandchild = Number(readFileSync(pidFile, 'utf8'));
    // The grade is returned only after the group is gone.
    expect(processAlive(grandchild)).toBe(false);
  });

  it('is an evaluator error when its program cannot be found or started', async () => {
    const { context } = inWorkspace();
    const missing = await failure(
      commandEvaluator.evaluate(grader(['agentv-no-such-test-runner']), context),
    );
    expect(missing.message).toMatch(
      /^command "agentv-no-such-test-runner" could not start: .*ENOENT/,
    );
    expect(missing.hint).toMatch(/^install the program/);
    const notFound = await failure(
      commandEvaluator.evaluate(grader('agentv-no-such-test-runner --all'), context),
    );
    expect(notFound.message).toMatch(
      /^command "agentv-no-such-test-runner --all" exited with code 127: a program it runs was not found; .*not found/,
    );
  });

  it('runs in cwd inside the workspace, and says when that folder is missing', async () => {
    const { workspace, context } = inWorkspace();
    mkdirSync(path.join(workspace.path, 'packages', 'app'), { recursive: true });
    const result = await commandEvaluator.evaluate(grader('pwd', { cwd: 'packages/app' }), context);
    expect(result.reasoning).toContain(path.join(workspace.path, 'packages', 'app'));
    const error = await failure(
      commandEvaluator.evaluate(grader('pwd', { cwd: 'packages/gone' }), context),
    );
    expect(error.message).toBe(
      `command "pwd" could not start: its working directory ${JSON.stringify(path.join(workspace.path, 'packages', 'gone'))} does not exist`,
    );
  });

  it('masks credentials of its environment in what it reports', async () => {
    const { context } = inWorkspace({}, { SERVICE_API_KEY: 'sk-live-0123456789' });
    const result = await commandEvaluator.evaluate(
      grader('echo "using $SERVICE_API_KEY" >&2; exit 1'),
      context,
    );
    expect(result.reasoning).toBe('exited with code 1\nstderr:\nusing ***');
  });

  it('is an evaluator error in a case without a workspace', async () => {
    const error = await failure(commandEvaluator.evaluate(grader('npm test'), makeContext()));
    expect(error.message).toBe(
      'the `command` grader needs a workspace, and case "case-1" has none',
    );
    expect(error.hint).toMatch(/^add a `workspace:` block/);
  });

  it('is stopped when the run is interrupted', async () => {
    const controller = new AbortController();
    const workspace = makeWorkspace();
    const pending = commandEvaluator.evaluate(
      grader('sleep 30'),
      makeContext({ workspace, signal: controller.signal }),
    );
    setTimeout(() => controller.abort(), 200);
    await expect(pending).rejects.toThrow(
      'command "sleep 30" was stopped: the run was interrupted',
    );
  });

  it('reports missing or malformed options before the run', () => {
    expect(DEFAULT_COMMAND_TIMEOUT_SECONDS).toBe(300);
    expect(messagesOf(commandEvaluator.validate?.(makeConfig('command')))).toEqual([
      expect.stringContaining('"command" is missing'),
    ]);
    expect(messagesOf(commandEvaluator.validate?.(grader([])))).toEqual([
      expect.stringContaining('"command" must be a string or a non-empty list of strings'),
    ]);
    expect(
      messagesOf(
        commandEvaluator.validate?.(
          grader('npm test', { cwd: '../elsewhere', timeout_seconds: -1 }),
        ),
      ),
    ).toEqual([
      '"cwd" "../elsewhere" leaves the workspace; give a path inside it (or an absolute path)',
      '"timeout_seconds" must be a number of seconds > 0, got -1',
    ]);
    const placeholder = commandEvaluator.validate?.(
      grader(['node', 'check.mjs', '{{ workspace_path }}']),
    );
    expect(placeholder).toEqual([
      expect.objectContaining({
        path: ['command'],
        message:
          '"command" holds {{ workspace_path }}, which is not replaced: a grader\'s command is run as written',
      }),
    ]);
    expect(
      commandEvaluator.validate?.(grader("docker inspect -f '{{.State.Running}}' db")),
    ).toEqual([]);
    expect(commandEvaluator.validate?.(grader(['npm', 'test'], { cwd: '/srv/app' }))).toEqual([]);
  });
});
