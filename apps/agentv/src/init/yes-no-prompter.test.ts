import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createYesNoPrompter } from './yes-no-prompter.js';

function streams() {
  const input = new PassThrough();
  const output = new PassThrough();
  let written = '';
  output.on('data', (chunk) => {
    written += chunk;
  });
  return { input, output, written: () => written };
}

describe('createYesNoPrompter', () => {
  it('says yes only to answers starting with y, one line per question', async () => {
    const { input, output, written } = streams();
    const prompter = createYesNoPrompter(input, output);
    input.write('y\nNo\n\nYES\n');
    expect(await prompter.ask('a? ')).toBe(true);
    expect(await prompter.ask('b? ')).toBe(false);
    expect(await prompter.ask('c? ')).toBe(false);
    expect(await prompter.ask('d? ')).toBe(true);
    prompter.close();
    expect(written()).toBe('a? b? c? d? ');
  });

  it('waits for an answer typed later, and treats the end of input as no', async () => {
    const { input, output } = streams();
    const prompter = createYesNoPrompter(input, output);
    const first = prompter.ask('overwrite? ');
    setTimeout(() => input.write('yes\n'), 10);
    expect(await first).toBe(true);
    const second = prompter.ask('overwrite? ');
    input.end();
    expect(await second).toBe(false);
    expect(await prompter.ask('again? ')).toBe(false);
    prompter.close();
  });
});
