/**
 * Splits a stream of text chunks into lines as they arrive and hands each non-empty line to
 * `onLine` (without its line break, a trailing `\r` removed). `end()` hands over a last line
 * that had no line break.
 */
export function createLineSplitter(onLine: (line: string) => void): {
  push(chunk: string): void;
  end(): void;
} {
  let rest = '';
  const emit = (line: string) => {
    const text = line.endsWith('\r') ? line.slice(0, -1) : line;
    if (text.trim() !== '') onLine(text);
  };
  return {
    push(chunk) {
      let start = 0;
      let newline = chunk.indexOf('\n');
      if (newline === -1) {
        rest += chunk;
        return;
      }
      emit(rest + chunk.slice(0, newline));
      start = newline + 1;
      newline = chunk.indexOf('\n', start);
      while (newline !== -1) {
        emit(chunk.slice(start, newline));
        start = newline + 1;
        newline = chunk.indexOf('\n', start);
      }
      rest = chunk.slice(start);
    },
    end() {
      if (rest !== '') emit(rest);
      rest = '';
    },
  };
}
