import { createInterface } from 'node:readline';

/** Asks yes/no questions on one input stream. */
export interface YesNoPrompter {
  /** Writes `question` and reads one answer: true only for an answer starting with y or Y. */
  ask(question: string): Promise<boolean>;
  close(): void;
}

/**
 * A prompter reading answers line by line from `input`. Enter, any other
 * answer and the end of input all mean no, so nothing is overwritten by accident.
 */
export function createYesNoPrompter(
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
): YesNoPrompter {
  const lines = createInterface({ input, terminal: false });
  const buffered: string[] = [];
  const waiting: ((line: string | undefined) => void)[] = [];
  let ended = false;
  lines.on('line', (line) => {
    const resolve = waiting.shift();
    if (resolve) resolve(line);
    else buffered.push(line);
  });
  lines.on('close', () => {
    ended = true;
    for (const resolve of waiting.splice(0)) resolve(undefined);
  });
  return {
    async ask(question) {
      output.write(question);
      const answer =
        buffered.length > 0
          ? buffered.shift()
          : ended
            ? undefined
            : await new Promise<string | undefined>((resolve) => waiting.push(resolve));
      return /^\s*y/i.test(answer ?? '');
    },
    close: () => lines.close(),
  };
}
