import type { EvalCase, EvalMessage } from '../eval-file/eval-case.js';

/**
 * The text of a message without reading files: its blocks joined by
 * newlines, a file block as its path as written in the eval file.
 */
export function messageText(message: EvalMessage): string {
  return message.content.map((block) => block.value).join('\n');
}

/** The text of the last expected assistant message that has content; undefined when none. */
export function referenceAnswer(evalCase: EvalCase): string | undefined {
  for (let index = evalCase.expectedMessages.length - 1; index >= 0; index--) {
    const message = evalCase.expectedMessages[index]!;
    if (message.role !== 'assistant') continue;
    const text = messageText(message);
    if (text.trim() !== '') return text;
  }
  return undefined;
}
