import { readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EvaluatorConfig } from '../eval-file/evaluator-config.js';
import { codeJudgeEvaluator } from './code-judge.js';
import { FIXTURES_DIR, makeConfig, makeContext, toolCall } from './test-support/make-context.js';
import { makeWorkspace } from './test-support/make-workspace.js';

/** The messages of the issues `validate` returned. */
const messagesOf = (issues: { message: string }[] | undefined) =>
  issues?.map((issue) => issue.message);

const JUDGES = path.join(FIXTURES_DIR, 'code-judge');

function judge(script: string | string[], options: Record<string, unknown> = {}): EvaluatorConfig {
  return makeConfig('code_judge', { script, ...options });
}

const context = makeContext({ referenceAnswer: '42', candidateAnswer: 'It is 42.' });

describe('code_judge', () => {
  it('returns the score, hits, misses and reasoning the script prints', async () => {
    const result = await codeJudgeEvaluator.evaluate(
      judge('node code-judge/judge-correct.mjs'),
      context,
    );
    expect(result).toEqual({
      score: 1,
      hits: ['mentions 42'],
      misses: [],
      reasoning: 'reference found',
    });

    const wrong = makeContext({ referenceAnswer: '42', candidateAnswer: 'It is 41.' });
    const failed = await codeJudgeEvaluator.evaluate(
      judge('node code-judge/judge-correct.mjs'),
      wrong,
    );
    expect(failed).toEqual({
      score: 0.25,
      hits: [],
      misses: ['does not mention 42'],
      reasoning: 'reference missing',
    });
  });

  it('writes every payload key to stdin, snake_case, with null for absent values', async () => {
    const result = await codeJudgeEvaluator.evaluate(
      judge('node code-judge/judge-echo.mjs'),
      context,
    );
    const payload = JSON.parse(result.reasoning ?? '');
    expect(payload).toEqual({
      question: 'What is 6 x 7?',
      expected_outcome: null,
      expected_messages: [],
      reference_answer: '42',
      candidate_answer: 'It is 42.',
      guideline_files: [],
      input_files: [],
      input_messages: [{ role: 'user', content: 'What is 6 x 7?' }],
      output_messages: null,
      candidate_trace: null,
      candidate_trace_summary: null,
      vars: null,
      workspace_path: null,
      file_changes: null,
    });
  });

  it('gives the workspace path and what changed, and runs in the workspace', async () => {
    const changes = {
      files: [
        {
          path: 'logo.png',
          status: 'added' as const,
          binary: true as const,
          insertions: 0,
          deletions: 0,
        },
        { path: 'src/app.js', status: 'modified' as const, insertions: 2, deletions: 1 },
      ],
      insertions: 2,
      deletions: 1,
      diff: 'diff --git a/src/app.js b/src/app.js\n',
    };
    const workspace = makeWorkspace({ 'src/app.js': 'fixed\n' }, changes);
    // The script file is found from the eval file's folder, as validate checks it.
    const result = await codeJudgeEvaluator.evaluate(
      judge('node code-judge/judge-echo.mjs'),
      makeContext({ workspace }),
    );
    expect(result.hits).toEqual([workspace.path]);
    const payload = JSON.parse(result.reasoning ?? '');
    expect(payload.workspace_path).toBe(workspace.path);
    expect(payload.file_changes).toEqual({
      files: [
        { path: 'logo.png', status: 'added', binary: true, insertions: 0, deletions: 0 },
        { path: 'src/app.js', status: 'modified', insertions: 2, deletions: 1 },
      ],
      insertions: 2,
      deletions: 1,
      diff: 'diff --git a/src/app.js b/src/app.js\n',
    });
  });

  it('finds the script file from the eval file, and other paths from the workspace', async () => {
    const workspace = makeWorkspace({ 'result.txt': 'from the workspace' });
    const script = ['node', 'code-judge/judge-echo-file.mjs', 'result.txt'];
    const listed = await codeJudgeEvaluator.evaluate(judge(script), makeContext({ workspace }));
    expect(listed.hits).toEqual(['from the workspace']);
    const line = await codeJudgeEvaluator.evaluate(
      judge("node './code-judge/judge-echo-file.mjs' result.txt"),
      makeContext({ workspace }),
    );
    expect(line.hits).toEqual(['from the workspace']);
  });

  it('sets AGENTV_WORKSPACE, over the project environment', async () => {
    const workspace = makeWorkspace();
    const script =
      'node -e "console.log(JSON.stringify({score: 1, hits: [process.env.AGENTV_WORKSPACE, process.env.FROM_PROJECT]}))"';
    const result = await codeJudgeEvaluator.evaluate(
      judge(script),
      makeContext({ workspace, env: { PATH: process.env.PATH, FROM_PROJECT: 'dotenv' } }),
    );
    expect(result.hits).toEqual([workspace.path, 'dotenv']);
  });

  it('runs in its cwd, relative to the eval file, when one is given with a workspace', async () => {
    const workspace = makeWorkspace();
    const result = await codeJudgeEvaluator.evaluate(
      judge(['node', 'judge-echo.mjs'], { cwd: 'code-judge' }),
      makeContext({ workspace }),
    );
    expect(result.hits).toEqual([JUDGES]);
  });

  it('says where it ran when a script in a workspace fails', async () => {
    const workspace = makeWorkspace();
    const error = (await codeJudgeEvaluator
      .evaluate(judge('node missing-judge.mjs'), makeContext({ workspace }))
      .then(
        () => undefined,
        (caught: unknown) => caught,
      )) as { message: string; hint?: string };
    expect(error.message).toMatch(/exited with code 1/);
    expect(error.hint).toMatch(/^it ran in the case's workspace/);
  });

  it('passes messages, files, trace and summary through', async () => {
    const trace = [toolCall('lookupOrder', { id: 42 })];
    const rich = makeContext({
      evalCase: {
        expectedOutcome: 'Refunds the order',
        inputMessages: [
          { role: 'system', content: [{ type: 'text', value: 'Be brief.' }] },
          {
            role: 'user',
            content: [
              { type: 'text', value: 'Refund this:' },
              { type: 'file', value: './order.json', path: '/abs/order.json', isGuideline: false },
            ],
          },
        ],
        expectedMessages: [
          {
            role: 'assistant',
            content: [],
            structured: { status: 'refunded' },
            toolCalls: [{ tool: 'lookupOrder', input: { id: 42 } }],
          },
        ],
      },
      inputFiles: ['/abs/order.json'],
      guidelineFiles: ['/abs/support.instructions.md'],
      trace,
      traceSummary: {
        eventCount: 1,
        toolNames: ['lookupOrder'],
        toolCallsByName: { lookupOrder: 1 },
        errorCount: 0,
      },
      outputMessages: [
        { role: 'assistant', toolCalls: [{ tool: 'lookupOrder', input: { id: 42 }, id: 'c1' }] },
        { role: 'assistant', name: 'agent', content: 'Refunded.' },
      ],
    });
    const result = await codeJudgeEvaluator.evaluate(judge('node code-judge/judge-echo.mjs'), rich);
    const payload = JSON.parse(result.reasoning ?? '');
    expect(payload.expected_outcome).toBe('Refunds the order');
    expect(payload.input_messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Refund this:' },
    ]);
    expect(payload.expected_messages).toEqual([
      {
        role: 'assistant',
        content: { status: 'refunded' },
        tool_calls: [{ tool: 'lookupOrder', input: { id: 42 } }],
      },
    ]);
    expect(payload.output_messages).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ tool: 'lookupOrder', input: { id: 42 }, id: 'c1' }],
      },
      { role: 'assistant', name: 'agent', content: 'Refunded.' },
    ]);
    expect(payload.input_files).toEqual(['/abs/order.json']);
    expect(payload.guideline_files).toEqual(['/abs/support.instructions.md']);
    expect(payload.candidate_trace).toEqual(trace);
    expect(payload.candidate_trace_summary.toolCallsByName).toEqual({ lookupOrder: 1 });
  });

  it('runs in the eval file directory by default, and in cwd relative to it', async () => {
    const byDefault = await codeJudgeEvaluator.evaluate(
      judge('node code-judge/judge-echo.mjs'),
      context,
    );
    expect(byDefault.hits).toEqual([FIXTURES_DIR]);
    const inCwd = await codeJudgeEvaluator.evaluate(
      judge(['node', 'judge-echo.mjs'], { cwd: 'code-judge' }),
      context,
    );
    expect(inCwd.hits).toEqual([JUDGES]);
  });

  it("starts scripts from the context's environment, not process.env", async () => {
    const script =
      'node -e "console.log(JSON.stringify({score: 1, hits: [String(process.env.AGENTV_TEST_JUDGE_ENV)]}))"';
    const withEnv = { ...context, env: { ...process.env, AGENTV_TEST_JUDGE_ENV: 'given' } };
    expect((await codeJudgeEvaluator.evaluate(judge(script), withEnv)).hits).toEqual(['given']);
    expect(process.env.AGENTV_TEST_JUDGE_ENV).toBeUndefined();
    expect((await codeJudgeEvaluator.evaluate(judge(script), context)).hits).toEqual(['undefined']);
  });

  it('names the option each problem is about', () => {
    expect(codeJudgeEvaluator.validate?.(judge('node x.mjs', { cwd: 3 }))).toEqual([
      expect.objectContaining({ severity: 'error', path: ['cwd'] }),
    ]);
  });

  it('uses the last line that is a JSON object when the script logs first', async () => {
    const result = await codeJudgeEvaluator.evaluate(
      judge('node code-judge/judge-chatty.mjs'),
      context,
    );
    expect(result).toEqual({ score: 0.7, hits: ['partial'], misses: ['incomplete'] });
  });

  it('keeps at most 4 hits and misses, each cut to 500 characters, saying how many were left out', async () => {
    const script = [
      'node',
      '-e',
      `console.log(JSON.stringify({ score: 0.5,
        hits: Array.from({ length: 10 }, (_, i) => 'hit ' + i),
        misses: ['x'.repeat(2000), 'second'] }))`,
    ];
    const result = await codeJudgeEvaluator.evaluate(judge(script), context);
    expect(result.hits).toEqual(['hit 0', 'hit 1', 'hit 2', 'hit 3', '… and 6 more']);
    expect(result.misses).toEqual([`${'x'.repeat(499)}…`, 'second']);
    // The score is as printed: the grader run clamps it and warns (see grade-case.test.ts).
    const over = await codeJudgeEvaluator.evaluate(
      judge(['node', '-e', 'console.log(JSON.stringify({ score: 7 }))']),
      context,
    );
    expect(over.score).toBe(7);
  });

  it('accepts a result printed as multi-line JSON', async () => {
    const result = await codeJudgeEvaluator.evaluate(
      judge('node code-judge/judge-pretty.mjs'),
      context,
    );
    expect(result).toEqual({ score: 0.9, hits: [], misses: [], reasoning: 'pretty' });
  });

  it('copes with a script that never reads its stdin, even with a large payload', async () => {
    const big = makeContext({ candidateAnswer: 'x'.repeat(4 * 1024 * 1024) });
    const result = await codeJudgeEvaluator.evaluate(
      judge('node code-judge/judge-ignores-stdin.mjs'),
      big,
    );
    expect(result.score).toBe(1);
  });

  it('fails with the exit code and stderr when the script crashes', async () => {
    await expect(
      codeJudgeEvaluator.evaluate(judge('node code-judge/judge-crash.mjs'), context),
    ).rejects.toThrow(
      'script "node code-judge/judge-crash.mjs" exited with code 3; Error: database unreachable; stderr: loading model... | Error: database unreachable',
    );
  });

  it('fails with an excerpt of the output when the script prints prose', async () => {
    const error = await codeJudgeEvaluator
      .evaluate(judge('node code-judge/judge-garbage.mjs'), context)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).name).toBe('EvaluatorError');
    expect((error as Error).message).toMatch(/printed no JSON object; expected one JSON object/);
    expect((error as Error).message).toContain(
      'it printed: I think the answer is pretty good, 8/10',
    );
  });

  it('fails naming the wrong fields when the result has the wrong shape', async () => {
    await expect(
      codeJudgeEvaluator.evaluate(judge('node code-judge/judge-wrong-shape.mjs'), context),
    ).rejects.toThrow(
      /printed a result of the wrong shape \(score: .*expected number.*\).*it printed: \{"grade":"A","score":"high"\}$/,
    );
  });

  it('fails when the command does not exist or the cwd is missing', async () => {
    await expect(
      codeJudgeEvaluator.evaluate(judge(['agentv-no-such-judge-command']), context),
    ).rejects.toThrow(/script "agentv-no-such-judge-command" could not start: .*ENOENT/);
    await expect(
      codeJudgeEvaluator.evaluate(judge('agentv-no-such-judge-command'), context),
    ).rejects.toThrow(/exited with code 127/);
    await expect(
      codeJudgeEvaluator.evaluate(judge('node judge-echo.mjs', { cwd: 'missing-dir' }), context),
    ).rejects.toThrow(
      `its working directory "${path.join(FIXTURES_DIR, 'missing-dir')}" does not exist`,
    );
  });

  it('stops a script that runs past timeout_seconds', async () => {
    await expect(
      codeJudgeEvaluator.evaluate(
        judge('node code-judge/judge-slow.mjs', { timeout_seconds: 0.3 }),
        context,
      ),
    ).rejects.toThrow(
      'script "node code-judge/judge-slow.mjs" timed out after 0.3s and was stopped',
    );
  });

  it('takes the score of a script that exits, and stops what it left running in the background', async () => {
    const pidFile = path.join(os.tmpdir(), `agentv-judge-bg-${process.pid}-${Date.now()}.pid`);
    const score = await codeJudgeEvaluator.evaluate(
      judge(`sleep 30 & echo $! > ${pidFile}; echo '{"score": 1}'`, { timeout_seconds: 5 }),
      context,
    );
    // The score is taken once the script exits, not when its timeout ends it.
    expect(score.score).toBe(1);
    const leftover = Number(readFileSync(pidFile, 'utf8'));
    rmSync(pidFile, { force: true });
    // The evaluation returns only after what the script left running is gone.
    expect(runningNotZombie(leftover)).toBe(false);
  });

  it('stops the script when the run is interrupted', async () => {
    const controller = new AbortController();
    const pending = codeJudgeEvaluator.evaluate(
      judge(['node', 'code-judge/judge-slow.mjs']),
      makeContext({ signal: controller.signal }),
    );
    setTimeout(() => controller.abort(), 200);
    await expect(pending).rejects.toThrow('was stopped: the run was interrupted');
  });

  it('reports missing or malformed options', () => {
    expect(messagesOf(codeJudgeEvaluator.validate?.(makeConfig('code_judge')))).toEqual([
      expect.stringContaining('"script" is missing'),
    ]);
    expect(messagesOf(codeJudgeEvaluator.validate?.(judge([] as string[])))).toEqual([
      expect.stringContaining('"script" must be a string or a non-empty list of strings'),
    ]);
    expect(
      messagesOf(
        codeJudgeEvaluator.validate?.(judge('node x.mjs', { timeout_seconds: 0, cwd: 3 })),
      ),
    ).toEqual([
      '"cwd" must be a directory path, got 3',
      '"timeout_seconds" must be a number of seconds > 0, got 0',
    ]);
    expect(
      messagesOf(codeJudgeEvaluator.validate?.(judge(['node', 'x.mjs'], { timeout_seconds: 5 }))),
    ).toEqual([]);
  });
});

/** True while `pid` runs; an exited process nobody reaped yet (a zombie) counts as gone. */
function runningNotZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}
