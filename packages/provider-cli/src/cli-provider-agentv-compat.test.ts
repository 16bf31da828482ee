import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProviderRequest } from '@agentv/core/provider-utils';
import { shellQuote } from '@agentv/core/provider-utils';
import { afterAll, describe, expect, it } from 'vitest';
import { createCliProvider } from './cli-provider.js';
import type { CliProviderSettings } from './cli-provider-settings.js';
import { fakeAgentCommand } from './test-support/fake-agent-path.js';
import { makeRequest } from './test-support/make-request.js';

// Replies shaped as AgentV (agentv-eval-v2) agents write them, run through real commands.

const scratch = mkdtempSync(join(tmpdir(), 'agentv-cli-compat-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Writes, for every request of the bundle, the reply in REPLY_FILE with the request's id. */
const BATCH_REPLIER = join(scratch, 'batch-replier.mjs');
writeFileSync(
  BATCH_REPLIER,
  `import { readFileSync, writeFileSync } from 'node:fs';
const [replyFile, input, output] = process.argv.slice(2);
const reply = JSON.parse(readFileSync(replyFile, 'utf8'));
const ids = readFileSync(input, 'utf8').split('\\n').filter(Boolean).map((line) => JSON.parse(line).id);
writeFileSync(output, ids.map((id) => JSON.stringify({ id, ...reply })).join('\\n') + '\\n');
`,
);

function provider(commandTemplate: string, settings: Partial<CliProviderSettings> = {}) {
  return createCliProvider(
    {
      commandTemplate,
      filesFormat: '{path}',
      attachmentsFormat: '{path}',
      cwd: scratch,
      env: {},
      verbose: false,
      ...settings,
    },
    { targetName: 'agentv_agent', killGraceMs: 200 },
  );
}

let replies = 0;
/** Answers a case with `reply` (as JSON) twice: alone on stdout, and as a batch line. */
async function answerBothWays(reply: unknown) {
  const replyFile = join(scratch, `reply-${replies++}.json`);
  writeFileSync(replyFile, JSON.stringify(reply));
  const single = await provider(`cat ${shellQuote(replyFile)}`).invoke(makeRequest());
  const requests: ProviderRequest[] = [
    makeRequest({ evalCaseId: 'first' }),
    makeRequest({ evalCaseId: 'second' }),
  ];
  const batch = await provider(
    `${shellQuote(process.execPath)} ${shellQuote(BATCH_REPLIER)} ${shellQuote(replyFile)} {INPUT_FILE} {OUTPUT_FILE}`,
  ).invokeBatch!(requests);
  return { single, batch };
}

const argvOf = (text: string) => (JSON.parse(text) as { argv: string[] }).argv;

describe('files_format / attachments_format with literal text', () => {
  const files = [join(scratch, "it's a file.txt"), join(scratch, 'two words.md')];

  it('makes the formatter text separate command-line words; only {path} is quoted', async () => {
    const response = await provider(`${fakeAgentCommand('echo')} {FILES} -- {ATTACHMENTS}`, {
      filesFormat: '--file {path}',
      attachmentsFormat: '--attach {basename} --at={path}',
    }).invoke(makeRequest({ inputFiles: files }));
    expect(argvOf(response.text)).toEqual([
      '--file',
      files[0],
      '--file',
      files[1],
      '--',
      '--attach',
      "it's a file.txt",
      `--at=${files[0]}`,
      '--attach',
      'two words.md',
      `--at=${files[1]}`,
    ]);
  });

  it('quotes {path} for the quotes it stands in within the format', async () => {
    const response = await provider(`${fakeAgentCommand('echo')} {FILES} {ATTACHMENTS}`, {
      filesFormat: '--file="{path}"',
      attachmentsFormat: "--name='{basename}'",
    }).invoke(makeRequest({ inputFiles: [join(scratch, 'a "b" $HOME `c`.txt'), files[0]!] }));
    expect(argvOf(response.text)).toEqual([
      `--file=${join(scratch, 'a "b" $HOME `c`.txt')}`,
      `--file=${files[0]}`,
      '--name=a "b" $HOME `c`.txt',
      "--name=it's a file.txt",
    ]);
  });

  it('keeps each rendered file one quoted word inside the template’s own quotes', async () => {
    const response = await provider(`${fakeAgentCommand('echo')} "{FILES}"`, {
      filesFormat: '--file {path}',
    }).invoke(makeRequest({ inputFiles: files }));
    expect(argvOf(response.text)).toEqual([`--file ${files[0]} --file ${files[1]}`]);
  });
});

describe('{FILES} lists guideline files too; {ATTACHMENTS} only input files', () => {
  it('renders guideline files first, then the input files', async () => {
    const guideline = join(scratch, 'style.instructions.md');
    const input = join(scratch, 'data.csv');
    const response = await provider(`${fakeAgentCommand('echo')} {FILES} -- {ATTACHMENTS}`, {
      filesFormat: '-f {path}',
    }).invoke(makeRequest({ guidelineFiles: [guideline], inputFiles: [input] }));
    expect(argvOf(response.text)).toEqual(['-f', guideline, '-f', input, '--', input]);
  });
});

describe('a reply with output_messages and no text', () => {
  const reply = {
    output_messages: [
      { role: 'user', content: 'Refund order 42' },
      {
        role: 'assistant',
        content: 'Let me look it up.',
        tool_calls: [{ tool: 'lookupOrder', input: { id: 42 }, output: { total: 59.9 } }],
      },
      { role: 'assistant', tool_calls: [{ tool: 'refund', input: { id: 42 } }] },
      { role: 'assistant', content: 'Refunded order 42.' },
      { role: 'tool', content: 'audit log written' },
    ],
  };

  it('answers with the last assistant message, single and batch', async () => {
    const { single, batch } = await answerBothWays(reply);
    for (const response of [single, ...batch]) {
      expect(response.text).toBe('Refunded order 42.');
      expect(response.outputMessages?.flatMap((m) => m.toolCalls ?? []).map((c) => c.tool)).toEqual(
        ['lookupOrder', 'refund'],
      );
    }
  });

  it('joins the text blocks of a content list', async () => {
    const { single, batch } = await answerBothWays({
      output_messages: [
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Refunded' },
            { type: 'image', url: 'x.png' },
            { type: 'text', text: 'order 42.' },
          ],
        },
      ],
    });
    for (const response of [single, ...batch]) expect(response.text).toBe('Refunded\norder 42.');
  });

  it('answers with an empty string when no assistant message has content', async () => {
    const { single, batch } = await answerBothWays({
      output_messages: [{ role: 'assistant', tool_calls: [{ tool: 'search' }] }],
    });
    for (const response of [single, ...batch]) expect(response.text).toBe('');
  });

  it('still prefers text when both are given', async () => {
    const { single, batch } = await answerBothWays({ ...reply, text: 'from text' });
    for (const response of [single, ...batch]) expect(response.text).toBe('from text');
  });
});

describe('agent-reported metrics', () => {
  it('reads token_usage, cost_usd and duration_ms, single and batch', async () => {
    const { single, batch } = await answerBothWays({
      text: 'ok',
      token_usage: { input: 1200, output: 340, cached: 800 },
      cost_usd: 0.0123,
      duration_ms: 4321,
    });
    for (const response of [single, ...batch]) {
      expect(response.usage).toEqual({ inputTokens: 1200, outputTokens: 340, cachedTokens: 800 });
      expect(response.costUsd).toBe(0.0123);
      expect(response.durationMs).toBe(4321);
    }
  });

  it('ignores negative values; single mode falls back to the measured duration', async () => {
    const { single, batch } = await answerBothWays({
      text: 'ok',
      token_usage: { input: 10, output: 2 },
      cost_usd: -1,
      duration_ms: -5,
    });
    expect(single.costUsd).toBeUndefined();
    expect(single.durationMs).toBeGreaterThan(0);
    expect(single.durationMs).toBe(single.raw?.wallTimeMs);
    for (const response of batch) {
      expect(response.usage).toEqual({ inputTokens: 10, outputTokens: 2 });
      expect(response.costUsd).toBeUndefined();
      expect(response.durationMs).toBeUndefined();
    }
  });
});
