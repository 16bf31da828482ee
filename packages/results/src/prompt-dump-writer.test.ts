import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPromptDumpWriter, type PromptDumpRecord } from './prompt-dump-writer.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'agentv-prompts-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const prompt = {
  question: '@[System]:\nYou are a support agent.\n\n@[User]:\nRefund order 42.',
  chatPrompt: [
    { role: 'system' as const, content: 'You are a support agent.' },
    { role: 'user' as const, content: 'Refund order 42.' },
  ],
  guidelines: '<file path="policy.instructions.md">\nBe kind.\n</file>',
  guidelineFiles: ['/repo/policy.instructions.md'],
  inputFiles: ['/repo/order-42.json'],
};

function record(overrides: Partial<PromptDumpRecord> = {}): PromptDumpRecord {
  return {
    evalId: 'refund-001',
    dataset: 'support',
    evalFile: '/repo/evals/support.yaml',
    target: 'agent',
    prompt,
    ...overrides,
  };
}

describe('createPromptDumpWriter', () => {
  it('writes the prompt payload of a case to <case>.json', async () => {
    const writer = createPromptDumpWriter(path.join(root, 'prompts'));
    const filePath = await writer.write(record());
    expect(filePath).toBe(path.join(root, 'prompts', 'refund-001.json'));
    expect(JSON.parse(await readFile(filePath, 'utf8'))).toEqual({
      eval_id: 'refund-001',
      dataset: 'support',
      eval_file: '/repo/evals/support.yaml',
      target: 'agent',
      question: prompt.question,
      chat_prompt: prompt.chatPrompt,
      guidelines: prompt.guidelines,
      guideline_files: prompt.guidelineFiles,
      input_files: prompt.inputFiles,
    });
  });

  it('keeps hostile ids inside the folder and same-id cases of two files apart', async () => {
    const folder = path.join(root, 'nested', 'prompts');
    const writer = createPromptDumpWriter(folder);
    await writer.write(record({ evalId: '../../../outside' }));
    await writer.write(record({ evalId: 'dup' }));
    await writer.write(
      record({ evalId: 'dup', dataset: 'billing', evalFile: '/repo/billing.yaml' }),
    );
    expect(await readdir(root)).toEqual(['nested']);
    const files = (await readdir(folder)).sort();
    expect(files).toHaveLength(3);
    expect(files).toContain('dup.json');
    expect(files).toContain('billing__dup.json');
  });
});
