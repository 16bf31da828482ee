import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ProviderError, type ProviderRequest, shellQuote } from '@agentv/core/provider-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cliProviderFactory, createCliProvider } from './cli-provider.js';
import { catchError } from './test-support/catch-error.js';
import { makeRequest } from './test-support/make-request.js';
import { makeTarget } from './test-support/make-target.js';

const BATCH_AGENT = fileURLToPath(new URL('./test-support/batch-agent.mjs', import.meta.url));

function batchCommand(mode: string): string {
  return `${shellQuote(process.execPath)} ${shellQuote(BATCH_AGENT)} ${mode} {INPUT_FILE} {OUTPUT_FILE}`;
}

let logDir: string;
beforeEach(async () => {
  logDir = await mkdtemp(join(tmpdir(), 'agentv-batch-test-'));
});
afterEach(async () => {
  await rm(logDir, { recursive: true, force: true });
});

function provider(mode: string, extra: { timeoutSeconds?: number } = {}) {
  return createCliProvider(
    {
      commandTemplate: batchCommand(mode),
      filesFormat: '{path}',
      attachmentsFormat: '{path}',
      cwd: logDir,
      env: { BATCH_LOG: join(logDir, 'runs.log') },
      verbose: false,
      ...extra,
    },
    { targetName: 'batcher', killGraceMs: 200 },
  );
}

function requests(count: number): ProviderRequest[] {
  return Array.from({ length: count }, (_, index) =>
    makeRequest({ evalCaseId: `case-${index}`, question: `question ${index}` }),
  );
}

async function processStarts(): Promise<number> {
  const log = await readFile(join(logDir, 'runs.log'), 'utf8').catch(() => '');
  return log.split('\n').filter(Boolean).length;
}

async function batchError(mode: string, count = 10): Promise<ProviderError> {
  const error = await catchError(() => provider(mode).invokeBatch!(requests(count)));
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

describe('Successful JSONL batch output mapping', () => {
  it('runs the command once and returns each case its own text, in request order', async () => {
    const responses = await provider('reversed').invokeBatch!(requests(5));
    expect(responses.map((response) => response.text)).toEqual(
      Array.from({ length: 5 }, (_, index) => `answer to question ${index}`),
    );
    expect(await processStarts()).toBe(1);
  });

  it('answers 10,000 cases with one process start', async () => {
    const responses = await provider('ok').invokeBatch!(requests(10_000));
    expect(responses).toHaveLength(10_000);
    expect(responses[9_999]?.text).toBe('answer to question 9999');
    expect(await processStarts()).toBe(1);
  });

  it('skips blank lines and ignores records of ids that were not requested', async () => {
    expect(
      (await provider('blank-lines').invokeBatch!(requests(3))).map((r) => r.text),
    ).toHaveLength(3);
    expect((await provider('extra-ids').invokeBatch!(requests(3))).map((r) => r.text)).toEqual([
      'answer to question 0',
      'answer to question 1',
      'answer to question 2',
    ]);
  });
});

describe('Ignore invalid trace events', () => {
  it('keeps the valid trace events and drops the rest; coerces non-string text', async () => {
    const [even, odd] = await provider('traces').invokeBatch!(requests(2));
    expect(even?.text).toBe('answer 0');
    expect(odd?.text).toBe('{"structured":1}');
    expect(even?.trace?.map((event) => [event.type, event.name])).toEqual([
      ['tool_call', 'search'],
      ['tool_result', 'search'],
    ]);
  });
});

describe('output messages in batch records', () => {
  it('converts output_messages and tool_calls to camelCase, in order, keeping trace too', async () => {
    const [response] = await provider('traces').invokeBatch!(requests(1));
    expect(response?.outputMessages).toEqual([
      {
        role: 'assistant',
        content: 'calling tools',
        toolCalls: [
          { tool: 'first', input: { n: 1 }, output: 'one' },
          { tool: 'second', input: { n: 2 } },
        ],
      },
    ]);
    expect(response?.trace).toHaveLength(2);
    expect(response).not.toHaveProperty('extra_field');
  });
});

describe('Missing eval case result', () => {
  it('fails the batch listing every missing id', async () => {
    const error = await batchError('missing', 5);
    expect(error.message).toContain('no line for 2 of 5 requested case(s): case-0, case-1');
    expect(error.retryable).toBe(true);
  });
});

describe('Invalid JSONL line', () => {
  it('fails the batch naming line 7 with an excerpt', async () => {
    const error = await batchError('bad-line-7');
    expect(error.message).toContain('line 7 is not valid JSON');
    expect(error.message).toContain('{"id": "case-6", "text": "unterminated');
  });

  it('fails on a line that is not an object, has no string id, or no text', async () => {
    expect((await batchError('not-object')).message).toContain('line 2 is not a JSON object');
    expect((await batchError('no-id')).message).toContain('line 3 has no string "id"');
    expect((await batchError('no-text')).message).toContain('line 3 (id "case-2") has no "text"');
  });

  it('fails on an id given twice', async () => {
    expect((await batchError('duplicate', 3)).message).toContain(
      'line 4 repeats id "case-0" (first on line 1)',
    );
  });
});

describe('a batch that holds a case id twice', () => {
  it('is refused, and the command started meanwhile is stopped at once', async () => {
    const twice = [...requests(3), makeRequest({ evalCaseId: 'case-1', question: 'again' })];
    const started = Date.now();
    const error = await catchError(() =>
      provider('sleep', { timeoutSeconds: 30 }).invokeBatch!(twice),
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).message).toBe('the batch holds case id "case-1" twice');
    expect((error as ProviderError).retryable).toBe(false);
    // Stopped, not waited for: the command sleeps far longer.
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

describe('batch failures of the command itself', () => {
  it('reports a non-zero exit with the exit code and stderr', async () => {
    const error = await batchError('exit-3');
    expect(error.message).toContain('command exited with code 3');
    expect(error.message).toContain('model quota exhausted');
    expect(error.exitCode).toBe(3);
  });

  it('reports a command that wrote no output file', async () => {
    expect((await batchError('no-output')).message).toContain('did not write {OUTPUT_FILE}');
  });

  it('times the whole batch out', async () => {
    const error = await catchError(() =>
      provider('sleep', { timeoutSeconds: 0.5 }).invokeBatch!(requests(3)),
    );
    expect((error as ProviderError).message).toContain('timed out after 0.5s');
  });
});

describe('the request bundle at {INPUT_FILE}', () => {
  it('holds one line per case with everything a runner needs', async () => {
    const request = makeRequest({
      evalCaseId: 'refund-1',
      question: 'Refund order 42',
      guidelines: 'Be polite.',
      inputFiles: ['/data/order.json'],
      expectedOutcome: 'The order is refunded',
      chatPrompt: [
        { role: 'system', content: 'Be polite.' },
        { role: 'user', content: 'Refund order 42' },
      ],
    });
    const [response] = await provider('echo-bundle').invokeBatch!([request]);
    expect(JSON.parse(response!.text)).toMatchObject({
      id: 'refund-1',
      question: 'Refund order 42',
      guidelines: 'Be polite.',
      input_files: ['/data/order.json'],
      input_messages: [
        { role: 'system', content: 'Be polite.' },
        { role: 'user', content: 'Refund order 42' },
      ],
      expected_outcome: 'The order is refunded',
    });
  });
});

describe('batch settings validation', () => {
  it('requires {OUTPUT_FILE} and rejects per-case placeholders when provider_batching is on', () => {
    const issues = cliProviderFactory.validate!(
      makeTarget(
        { command_template: 'runner --q {PROMPT}', provider_batching: true },
        { providerBatching: true },
      ),
    );
    expect(issues.map((issue) => issue.message)).toEqual([
      'with provider_batching: true the command must write its answers to {OUTPUT_FILE}',
      '{PROMPT} cannot be used with provider_batching: true, because one run answers many cases',
    ]);
  });

  it('accepts the same template without batching', () => {
    expect(
      cliProviderFactory.validate!(makeTarget({ command_template: 'runner --q {PROMPT}' })),
    ).toEqual([]);
  });
});
