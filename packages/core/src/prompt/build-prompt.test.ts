import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AgentvError } from '../errors/agentv-error.js';
import type { ContentBlock, EvalCase, EvalMessage } from '../eval-file/eval-case.js';
import { buildPrompt } from './build-prompt.js';
import { messageText, referenceAnswer } from './message-text.js';

const fixture = (name: string) => path.join(import.meta.dirname, '__fixtures__', name);

const text = (value: string): ContentBlock => ({ type: 'text', value });
const file = (name: string, isGuideline = false): ContentBlock => ({
  type: 'file',
  value: `./${name}`,
  path: fixture(name),
  isGuideline,
});

function evalCase(inputMessages: EvalMessage[], expectedMessages: EvalMessage[] = []): EvalCase {
  return {
    id: 'case-1',
    dataset: 'prompts',
    filePath: fixture('suite.yaml'),
    inputMessages,
    expectedMessages,
    evaluators: [],
  };
}

describe('buildPrompt', () => {
  it('uses the text of a single message as the question', async () => {
    const prompt = await buildPrompt(
      evalCase([{ role: 'user', content: [text('What is 2 + 2?')] }]),
    );
    expect(prompt).toEqual({
      question: 'What is 2 + 2?',
      chatPrompt: [{ role: 'user', content: 'What is 2 + 2?' }],
      guidelines: '',
      guidelineFiles: [],
      inputFiles: [],
    });
  });

  it('labels each visible turn with its role when there are several', async () => {
    const prompt = await buildPrompt(
      evalCase([
        { role: 'system', content: [text('You are terse.')] },
        { role: 'user', content: [text('Hi'), text('Refund order 42.')] },
        { role: 'assistant', name: 'bot', content: [text('Which order?')] },
        { role: 'tool', content: [text('{"ok": true}')] },
        { role: 'user', content: [] },
      ]),
    );
    expect(prompt.question).toBe(
      '@[System]:\nYou are terse.\n\n@[User]:\nHi\nRefund order 42.\n\n@[Assistant]:\nWhich order?\n\n@[Tool]:\n{"ok": true}',
    );
    expect(prompt.chatPrompt).toEqual([
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Hi\nRefund order 42.' },
      { role: 'assistant', name: 'bot', content: 'Which order?' },
      { role: 'tool', content: '{"ok": true}' },
    ]);
  });

  it('embeds attached files with the path as written and lists them once', async () => {
    const prompt = await buildPrompt(
      evalCase([
        {
          role: 'user',
          content: [text('Check this order:'), file('order.json'), file('order.json')],
        },
      ]),
    );
    const element = '<file path="./order.json">\n{\n  "order": 42\n}\n</file>';
    expect(prompt.question).toBe(`Check this order:\n${element}\n${element}`);
    expect(prompt.inputFiles).toEqual([fixture('order.json')]);
  });

  it('moves guideline files out of the turns into guidelines and the system message', async () => {
    const prompt = await buildPrompt(
      evalCase([
        { role: 'system', content: [text('You are a support agent.')] },
        {
          role: 'user',
          content: [
            file('style.instructions.md', true),
            text('Where is my parcel?'),
            file('policy.prompt.md', true),
          ],
        },
      ]),
    );
    const guidelines =
      '<file path="./style.instructions.md">\nBe concise.\n</file>\n\n<file path="./policy.prompt.md">\nNever promise dates.\n</file>';
    expect(prompt.guidelines).toBe(guidelines);
    expect(prompt.guidelineFiles).toEqual([
      fixture('style.instructions.md'),
      fixture('policy.prompt.md'),
    ]);
    expect(prompt.inputFiles).toEqual([]);
    expect(prompt.question).toBe(
      '@[System]:\nYou are a support agent.\n\n@[User]:\nWhere is my parcel?',
    );
    expect(prompt.chatPrompt).toEqual([
      { role: 'system', content: `You are a support agent.\n\n${guidelines}` },
      { role: 'user', content: 'Where is my parcel?' },
    ]);
  });

  it('creates a system message for guidelines and counts only visible turns', async () => {
    const prompt = await buildPrompt(
      evalCase([
        { role: 'user', content: [file('style.instructions.md', true)] },
        { role: 'user', content: [text('Only visible turn.')] },
      ]),
    );
    expect(prompt.question).toBe('Only visible turn.');
    expect(prompt.chatPrompt).toEqual([
      { role: 'system', content: '<file path="./style.instructions.md">\nBe concise.\n</file>' },
      { role: 'user', content: 'Only visible turn.' },
    ]);
  });

  it('renders structured content as its pretty JSON text block', async () => {
    const prompt = await buildPrompt(
      evalCase([{ role: 'user', structured: { a: 1 }, content: [text('{\n  "a": 1\n}')] }]),
    );
    expect(prompt.question).toBe('{\n  "a": 1\n}');
  });

  it('fails with the case and file named when an attached file disappeared', async () => {
    const missing: ContentBlock = {
      type: 'file',
      value: './gone.txt',
      path: fixture('gone.txt'),
      isGuideline: false,
    };
    const attempt = buildPrompt(evalCase([{ role: 'user', content: [missing] }]));
    await expect(attempt).rejects.toBeInstanceOf(AgentvError);
    await expect(attempt).rejects.toThrow(
      `case "case-1": cannot read attached file ${fixture('gone.txt')} (ENOENT)`,
    );
  });
});

describe('messageText and referenceAnswer', () => {
  it('joins blocks with newlines, files as their written path', () => {
    expect(messageText({ role: 'user', content: [text('See'), file('order.json')] })).toBe(
      'See\n./order.json',
    );
  });

  it('takes the last expected assistant message that has content', () => {
    const withAnswer = evalCase(
      [{ role: 'user', content: [text('q')] }],
      [
        { role: 'assistant', content: [text('first answer')] },
        { role: 'assistant', content: [text('final answer')] },
        { role: 'assistant', content: [], toolCalls: [{ tool: 'done' }] },
        { role: 'tool', content: [text('tool output')] },
      ],
    );
    expect(referenceAnswer(withAnswer)).toBe('final answer');
    expect(referenceAnswer(evalCase([{ role: 'user', content: [text('q')] }]))).toBeUndefined();
  });
});
