import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  isProviderError,
  type Provider,
  type ProviderError,
  shellQuote,
} from '@agentv/core/provider-utils';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { cliProviderFactory, createCliProvider } from './cli-provider.js';
import type { CliProviderSettings } from './cli-provider-settings.js';
import { catchError } from './test-support/catch-error.js';
import { makeRequest } from './test-support/make-request.js';
import { makeTarget } from './test-support/make-target.js';
import { processAlive } from './test-support/process-alive.js';

const scratch = mkdtempSync(join(tmpdir(), 'agentv-persistent-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const AGENT = fileURLToPath(new URL('./test-support/persistent-agent.mjs', import.meta.url));
const EXAMPLES = fileURLToPath(new URL('../../../examples/persistent/', import.meta.url));

let open: Provider[] = [];
afterEach(async () => {
  await Promise.all(open.map((provider) => provider.close?.()));
  open = [];
});

let logCount = 0;
/** A fresh log file for an agent's `start <pid>` / `eof <pid>` / `child <pid>` lines. */
function newLog(): string {
  const path = join(scratch, `agent-${++logCount}.log`);
  writeFileSync(path, '');
  return path;
}

function logged(log: string, kind: string): number[] {
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith(`${kind} `))
    .map((line) => Number(line.slice(kind.length + 1)));
}

function persistent(
  commandTemplate: string,
  settings: Partial<CliProviderSettings> = {},
  logLines?: string[],
): Provider {
  const provider = createCliProvider(
    {
      commandTemplate,
      filesFormat: '{path}',
      attachmentsFormat: '{path}',
      cwd: scratch,
      env: {},
      verbose: logLines !== undefined,
      mode: 'persistent',
      ...settings,
    },
    {
      targetName: 'my_agent',
      killGraceMs: 300,
      ...(logLines === undefined ? {} : { log: (line: string) => logLines.push(line) }),
    },
  );
  open.push(provider);
  return provider;
}

/** The test agent, with its start line appended to `log`. */
function testAgent(log: string, ...flags: string[]): string {
  return [process.execPath, AGENT, log, ...flags].map(shellQuote).join(' ');
}

/** Runs `count` cases through `provider` with `workers` of them in flight at once, as the orchestrator does. */
async function runCases(provider: Provider, count: number, workers: number) {
  const texts = new Map<string, string>();
  let next = 0;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (next < count) {
        const id = `case-${next++}`;
        const response = await provider.invoke(
          makeRequest({ evalCaseId: id, question: `q ${id}` }),
        );
        texts.set(id, response.text);
      }
    }),
  );
  return texts;
}

describe('cli provider, mode: persistent', () => {
  it.each([
    ['Node', 'agent.mjs', process.execPath],
    ['Python', 'agent.py', 'python3'],
  ])(
    'the README %s client answers 200 cases with 4 workers and exactly 4 process starts',
    async (_, file, runtime) => {
      const log = newLog();
      // The shell logs its pid, then becomes the agent (exec keeps the pid).
      const command = `echo "start $$" >> ${shellQuote(log)}; exec ${shellQuote(runtime)} ${shellQuote(join(EXAMPLES, file))}`;
      const provider = persistent(command);
      const texts = await runCases(provider, 200, 4);
      expect(texts.size).toBe(200);
      for (const [id, text] of texts) expect(text).toBe(`You asked: q ${id}`);
      const starts = logged(log, 'start');
      expect(starts).toHaveLength(4);
      await provider.close?.();
      expect(starts.filter(processAlive)).toEqual([]);
    },
    60_000,
  );

  it('sends the request line and reads the batch record shape back', async () => {
    const provider = persistent(testAgent(newLog()));
    const response = await provider.invoke(
      makeRequest({
        evalCaseId: 'c1',
        attempt: 1,
        question: 'hi',
        guidelines: 'be brief',
        inputFiles: ['/data/a.txt'],
        expectedOutcome: 'a greeting',
      }),
    );
    expect(response.text).toBe('echo: hi');
    expect(response.usage).toEqual({ inputTokens: 3, outputTokens: 2 });
    expect(response.raw).toMatchObject({ worker: 1, cwd: scratch });
    // The same process answers the next case.
    const second = await provider.invoke(makeRequest({ evalCaseId: 'c2', question: 'again' }));
    expect(second.raw).toMatchObject({ worker: 1, pid: (response.raw as { pid: number }).pid });
  });

  it('writes every request field the protocol names', async () => {
    const log = newLog();
    // `tee` keeps a copy of what AgentV writes to the agent's stdin.
    const provider = persistent(`tee ${shellQuote(`${log}.in`)} | ${testAgent(log)}`);
    await provider.invoke(
      makeRequest({
        evalCaseId: 'c1',
        attempt: 2,
        question: 'hi',
        guidelines: 'be brief',
        inputFiles: ['/data/a.txt'],
        expectedOutcome: 'a greeting',
      }),
    );
    const [line] = readFileSync(`${log}.in`, 'utf8').split('\n');
    expect(JSON.parse(line!)).toEqual({
      id: 'c1',
      question: 'hi',
      guidelines: 'be brief',
      guideline_files: [],
      input_files: ['/data/a.txt'],
      input_messages: [{ role: 'user', content: 'hi' }],
      expected_outcome: 'a greeting',
      // Counted from 1 on the wire, as everywhere AgentV shows attempts (the request's is 0-based).
      attempt: 3,
      repeat: 1,
    });
  });

  it('puts the error line of a crashed worker first, then its stderr on one line', async () => {
    const provider = persistent(testAgent(newLog()));
    const error = (await catchError(() =>
      provider.invoke(makeRequest({ evalCaseId: 't', question: 'throw' })),
    )) as ProviderError;
    expect(error.message).toMatch(
      /exited with code 1 while answering case "t"; Error: model file missing; stderr: working on t \| .*throw new Error\('model file missing'\)/,
    );
    await provider.close?.();
  });

  it('fails the case sent to a worker that closed its stdin but lives on, at once and not at the timeout', async () => {
    // Closes its stdin, then answers its first case and lives on: the next case cannot be
    // written (closed after the answer, a case written first would sit unread in the pipe).
    const provider = persistent(
      `read -r line; exec 0<&-; echo '{"id": "a", "text": "last answer"}'; sleep 30`,
      { timeoutSeconds: 30 },
    );
    expect((await provider.invoke(makeRequest({ evalCaseId: 'a', question: 'one' }))).text).toBe(
      'last answer',
    );
    const started = performance.now();
    const error = (await catchError(() =>
      provider.invoke(makeRequest({ evalCaseId: 'b', question: 'two' })),
    )) as ProviderError;
    expect(error.message).toContain('closed its stdin, so case "b" could not be sent to it');
    expect(error.retryable).toBe(true);
    expect(error.hint).toContain('keeps reading request lines from stdin until it ends');
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('restarts a worker that crashed: that case fails retryably with stderr, the next one passes', async () => {
    const log = newLog();
    const provider = persistent(testAgent(log));
    expect((await provider.invoke(makeRequest({ evalCaseId: 'a', question: 'one' }))).text).toBe(
      'echo: one',
    );
    const error = (await catchError(() =>
      provider.invoke(makeRequest({ evalCaseId: 'b', question: 'crash' })),
    )) as ProviderError;
    expect(isProviderError(error)).toBe(true);
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('[cli:my_agent#1]');
    expect(error.message).toContain('exited with code 3 while answering case "b"');
    expect(error.message).toContain('boom: the agent crashed');
    // The retry (the second attempt: request.attempt 1) gets a new process, as does every case after it.
    const retried = await provider.invoke(
      makeRequest({ evalCaseId: 'b', question: 'crash', attempt: 1 }),
    );
    expect(retried.text).toBe('echo: crash');
    expect((await provider.invoke(makeRequest({ evalCaseId: 'c', question: 'two' }))).text).toBe(
      'echo: two',
    );
    expect(logged(log, 'start')).toHaveLength(2);
  });

  it('kills a worker that hangs at the timeout, with the processes it started', async () => {
    const log = newLog();
    // The limit of a worker's first case covers its start: room for starting Node on a busy
    // machine, as the case after the timeout runs on a new worker.
    const provider = persistent(testAgent(log), { timeoutSeconds: 5 });
    const error = (await catchError(() =>
      provider.invoke(makeRequest({ evalCaseId: 'slow', question: 'hang' })),
    )) as ProviderError;
    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(
      /^timed out after 5s: \[cli:my_agent#1\] \(pid \d+\) gave no response line for case "slow"/,
    );
    expect((await provider.invoke(makeRequest({ evalCaseId: 'next', question: 'q' }))).text).toBe(
      'echo: q',
    );
    await provider.close?.();
    const pids = [...logged(log, 'start'), ...logged(log, 'child')];
    expect(pids).toHaveLength(3);
    expect(pids.filter(processAlive)).toEqual([]);
  });

  it('with start_timeout_seconds sends a process no case before its ready line, and no case pays for the start', async () => {
    const log = newLog();
    const lines: string[] = [];
    // The agent loads for 3 s; a case may take 2 s: its start is not in that limit.
    const provider = persistent(
      testAgent(log, 'ready-after=3000'),
      { timeoutSeconds: 2, startTimeoutSeconds: 30, env: { TOKEN: 's3cret-value' } },
      lines,
    );
    const response = await provider.invoke(makeRequest({ evalCaseId: 'first', question: 'q' }));
    expect(response.text).toBe('echo: q');
    expect((await provider.invoke(makeRequest({ evalCaseId: 'second', question: 'r' }))).text).toBe(
      'echo: r',
    );
    expect(logged(log, 'start')).toHaveLength(1);
    // The line printed while loading is shown masked, before the ready line; the case after it.
    const ignored = lines.indexOf(
      '[cli:my_agent#1] first attempt 1 stdout line before the ready line, ignored: {"status":"loading","token":"***"}',
    );
    const ready = lines.findIndex((line) =>
      /^\[cli:my_agent#1\] first attempt 1 ready after \d+ ms$/.test(line),
    );
    const working = lines.indexOf('[cli:my_agent#1] first attempt 1 stderr: working on first');
    expect(ignored).toBeGreaterThanOrEqual(0);
    expect(ready).toBeGreaterThan(ignored);
    expect(working).toBeGreaterThan(ready);
    expect(lines).toContain(
      '[cli:my_agent] each process is sent cases once it prints {"ready": true}, within 30 s (start_timeout_seconds)',
    );
    expect(lines.join('\n')).not.toContain('s3cret');
  });

  it('with start_timeout_seconds a process that never says ready fails the case, not retried, and no other starts', async () => {
    const log = newLog();
    const silent = persistent(testAgent(log), { startTimeoutSeconds: 1 });
    const late = (await catchError(() =>
      silent.invoke(makeRequest({ evalCaseId: 'a', question: 'q' })),
    )) as ProviderError;
    expect(late.message).toMatch(
      /^\[cli:my_agent#1\] \(pid \d+\) did not print its ready line \{"ready": true\} within 1s \(start_timeout_seconds\) and was killed; it printed nothing on stdout/,
    );
    expect(late).toMatchObject({ retryable: false, failureClass: 'timeout' });
    expect(late.hint).toContain('raise start_timeout_seconds');
    const pid = Number(/\(pid (\d+)\)/.exec(late.message)?.[1]);
    expect(processAlive(pid)).toBe(false);
    // The next case does not wait for another process that would not say ready either.
    const started = Date.now();
    const next = (await catchError(() =>
      silent.invoke(makeRequest({ evalCaseId: 'b', question: 'q' })),
    )) as ProviderError;
    expect(Date.now() - started).toBeLessThan(1000);
    expect(next.message).toContain('no more are started this run');
    expect(next.retryable).toBe(false);
    expect(logged(log, 'start').length).toBeLessThanOrEqual(1);
  });

  it('with start_timeout_seconds a process that exits before its ready line fails the case, retryable', async () => {
    const crashing = persistent(testAgent(newLog(), 'exit-at-start'), { startTimeoutSeconds: 30 });
    const exited = (await catchError(() =>
      crashing.invoke(makeRequest({ evalCaseId: 'b', question: 'q' })),
    )) as ProviderError;
    expect(exited.message).toMatch(
      /^\[cli:my_agent#1\] \(pid \d+\) exited with code 4 before its ready line; stderr: cannot load the model/,
    );
    expect(exited).toMatchObject({ retryable: true, exitCode: 4 });
  });

  it('with start_timeout_seconds a case that stops waiting leaves the loading process to the next case; close stops one still loading', async () => {
    const log = newLog();
    const provider = persistent(testAgent(log, 'ready-after=2000'), { startTimeoutSeconds: 30 });
    const controller = new AbortController();
    const first = provider.invoke(
      makeRequest({ evalCaseId: 'first', question: 'q', signal: controller.signal }),
    );
    await waitFor(() => logged(log, 'start').length === 1);
    controller.abort();
    const stopped = (await catchError(() => first)) as ProviderError;
    expect(stopped.message).toContain('while its persistent agent was loading');
    expect((await provider.invoke(makeRequest({ evalCaseId: 'next', question: 'r' }))).text).toBe(
      'echo: r',
    );
    expect(logged(log, 'start')).toHaveLength(1);

    const silentLog = newLog();
    const silent = persistent(testAgent(silentLog), { startTimeoutSeconds: 60 });
    const waiting = catchError(() => silent.invoke(makeRequest({ evalCaseId: 'c' })));
    await waitFor(() => logged(silentLog, 'start').length === 1);
    const started = Date.now();
    await silent.close?.();
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(logged(silentLog, 'start').filter(processAlive)).toEqual([]);
    expect(((await waiting) as ProviderError).retryable).toBe(false);
  });

  it('fails a case on a response line that is not JSON, naming the line', async () => {
    const provider = persistent(testAgent(newLog()));
    const error = (await catchError(() =>
      provider.invoke(makeRequest({ evalCaseId: 'b', question: 'bad-json' })),
    )) as ProviderError;
    expect(error.message).toBe(
      '[cli:my_agent#1]: response line for case "b" is not valid JSON: {"id": "oops" this is not json',
    );
    expect(error.retryable).toBe(false);
    expect(error.hint).toContain('one JSON line');
    // The worker is replaced; the next case is answered.
    expect((await provider.invoke(makeRequest({ evalCaseId: 'c', question: 'q' }))).text).toBe(
      'echo: q',
    );
  });

  it('fails a case on a response with an unknown id, naming the id and the line', async () => {
    const provider = persistent(testAgent(newLog()));
    const error = (await catchError(() =>
      provider.invoke(makeRequest({ evalCaseId: 'b', question: 'wrong-id' })),
    )) as ProviderError;
    expect(error.message).toBe(
      '[cli:my_agent#1]: response line for case "b" has unknown id "someone-else": {"id":"someone-else","text":"hello"}',
    );
    expect(error.retryable).toBe(false);
  });

  it('masks env values in errors and the verbose log', async () => {
    const lines: string[] = [];
    const provider = persistent(testAgent(newLog()), { env: { TOKEN: 's3cret-value' } }, lines);
    const error = (await catchError(() =>
      provider.invoke(makeRequest({ evalCaseId: 'b', question: 'leak' })),
    )) as ProviderError;
    expect(error.message).toContain('{"id":"leaked","text":"***"}');
    await provider.close?.();
    expect(lines).toContain('[cli:my_agent#1] b attempt 1 stderr: token=***');
    expect(`${error.message}${lines.join('')}`).not.toContain('s3cret');
  });

  it('closes with EOF on stdin: the agent ends by itself', async () => {
    const log = newLog();
    const provider = persistent(testAgent(log));
    await runCases(provider, 6, 2);
    const starts = logged(log, 'start');
    expect(starts).toHaveLength(2);
    await provider.close?.();
    expect(logged(log, 'eof').sort()).toEqual([...starts].sort());
    expect(starts.filter(processAlive)).toEqual([]);
  });

  it('closes an agent that ignores EOF with SIGTERM, and one that ignores SIGTERM with SIGKILL', async () => {
    const log = newLog();
    const stubborn = persistent(testAgent(log, 'ignore-eof'));
    const deaf = persistent(testAgent(log, 'ignore-eof', 'trap-term'));
    await stubborn.invoke(makeRequest());
    await deaf.invoke(makeRequest());
    await Promise.all([stubborn.close?.(), deaf.close?.()]);
    const starts = logged(log, 'start');
    expect(logged(log, 'eof')).toHaveLength(2);
    expect(starts.filter(processAlive)).toEqual([]);
  });

  it('stops the worker of an interrupted case and answers no case after close', async () => {
    const log = newLog();
    const provider = persistent(testAgent(log));
    const controller = new AbortController();
    const pending = provider.invoke(
      makeRequest({ evalCaseId: 'slow', question: 'hang', signal: controller.signal }),
    );
    await waitFor(() => logged(log, 'child').length === 1);
    controller.abort();
    const error = (await catchError(() => pending)) as ProviderError;
    expect(error.message).toContain('the run was interrupted');
    expect(error.retryable).toBe(false);
    await provider.close?.();
    expect([...logged(log, 'start'), ...logged(log, 'child')].filter(processAlive)).toEqual([]);
    const late = (await catchError(() => provider.invoke(makeRequest()))) as ProviderError;
    expect(late.retryable).toBe(false);
  });

  it('logs each worker start and stderr line with the worker and the case it serves when verbose', async () => {
    const lines: string[] = [];
    const provider = persistent(testAgent(newLog()), {}, lines);
    await provider.invoke(makeRequest({ evalCaseId: 'c7' }));
    await provider.invoke(makeRequest({ evalCaseId: 'c8', attempt: 1 }));
    await provider.close?.();
    // The limit of each call first (the cli default here), then the first worker's start.
    expect(lines[0]).toBe(
      "[cli:my_agent] time limit per call: 600 s (the provider's default; set timeout_seconds to change it)",
    );
    expect(lines[1]).toMatch(/^\[cli:my_agent#1\] c7 attempt 1 starting: /);
    expect(
      lines.some((line) => /^\[cli:my_agent#1\] c7 attempt 1 started pid \d+ in /.test(line)),
    ).toBe(true);
    expect(lines).toContain('[cli:my_agent#1] c7 attempt 1 stderr: working on c7');
    expect(lines).toContain('[cli:my_agent#1] c8 attempt 2 stderr: working on c8');
    // Stopped at the end of the run: no case is being served.
    expect(lines.some((line) => /^\[cli:my_agent#1\] pid \d+ exited with code 0$/.test(line))).toBe(
      true,
    );
  });

  it('runs the command in the cwd of the case, restarting a worker that must move', async () => {
    const log = newLog();
    const other = mkdtempSync(join(scratch, 'evals-'));
    const provider = persistent(`pwd >> ${shellQuote(log)}; exec ${testAgent(log)}`, { cwd: '.' });
    await provider.invoke(makeRequest({ evalDir: scratch }));
    await provider.invoke(makeRequest({ evalDir: other }));
    const dirs = readFileSync(log, 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('/'));
    expect(dirs).toEqual([scratch, other]);
  });
});

describe('cli provider, mode: persistent: validation', () => {
  const issues = (settings: Record<string, unknown>, overrides = {}) =>
    cliProviderFactory.validate!(makeTarget(settings, overrides));

  it('accepts mode: persistent and mode: single', () => {
    expect(issues({ command_template: 'node agent.mjs', mode: 'persistent' })).toEqual([]);
    expect(issues({ command_template: 'node agent.mjs {PROMPT}', mode: 'single' })).toEqual([]);
  });

  it('names an unknown mode with a did-you-mean', () => {
    expect(issues({ command_template: 'node agent.mjs', mode: 'persistant' })).toEqual([
      {
        severity: 'error',
        path: ['mode'],
        message: 'unknown mode "persistant"; the modes are single and persistent',
        hint: 'did you mean mode: persistent?',
      },
    ]);
  });

  it('rejects per-case placeholders in a persistent command, pointing at stdin', () => {
    const [issue, ...rest] = issues({
      command_template: 'python agent.py --id {EVAL_ID} {PROMPT} {{LITERAL}}',
      mode: 'persistent',
    });
    expect(rest).toEqual([]);
    expect(issue).toMatchObject({
      severity: 'error',
      path: ['command_template'],
      message:
        '{EVAL_ID}, {PROMPT} cannot be used with mode: persistent, because the command starts once for many cases',
    });
    expect(issue!.hint).toContain('read each case from stdin');
  });

  it('names every field of the request line in the persistent hint, repeat included', () => {
    const [issue] = issues({ command_template: 'node agent.mjs {PROMPT}', mode: 'persistent' });
    expect(issue!.hint).toContain(
      '{"id", "question", "guidelines", "guideline_files", "input_files", "input_messages", "expected_outcome", "attempt", "repeat"}',
    );
  });

  it('rejects provider_batching with mode: persistent', () => {
    expect(
      issues(
        { command_template: 'node agent.mjs', mode: 'persistent' },
        { providerBatching: true },
      ),
    ).toEqual([expect.objectContaining({ severity: 'error', path: ['provider_batching'] })]);
  });

  it('creates a persistent provider from a target with mode: persistent', async () => {
    const log = newLog();
    const provider = cliProviderFactory.create(
      makeTarget({ command_template: testAgent(log), mode: 'persistent', cwd: scratch }),
      {},
    );
    open.push(provider);
    expect(provider.supportsBatch).toBeUndefined();
    expect((await provider.invoke(makeRequest({ question: 'x' }))).text).toBe('echo: x');
    expect((await provider.invoke(makeRequest({ question: 'y' }))).text).toBe('echo: y');
    expect(logged(log, 'start')).toHaveLength(1);
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
