/**
 * Replays what a program wrote to a terminal and returns the lines left on
 * screen, for the few controls a progress display uses: `\r`, `\n`, cursor up
 * (`ESC[nA`), erase line (`ESC[2K`) and erase to end of line (`ESC[K`). Colour
 * codes are dropped; any other escape sequence throws, so a test notices output
 * it does not understand.
 */
export function terminalScreen(output: string): string[] {
  const lines: string[] = [''];
  let row = 0;
  let column = 0;
  const put = (char: string) => {
    const line = lines[row]!.padEnd(column, ' ');
    lines[row] = line.slice(0, column) + char + line.slice(column + 1);
    column++;
  };
  for (let index = 0; index < output.length; index++) {
    const char = output[index]!;
    if (char === '\u001b') {
      const match = /^\u001b\[(\d*)([A-Za-z])/.exec(output.slice(index));
      if (!match)
        throw new Error(
          `unknown escape at ${index}: ${JSON.stringify(output.slice(index, index + 8))}`,
        );
      const [sequence, count, command] = match;
      index += sequence.length - 1;
      if (command === 'A') {
        row = Math.max(0, row - Number(count || 1));
      } else if (command === 'K' && count === '2') {
        lines[row] = '';
      } else if (command === 'K' && (count === '' || count === '0')) {
        lines[row] = lines[row]!.slice(0, column);
      } else if (command !== 'm') {
        throw new Error(`unsupported escape ${JSON.stringify(sequence)}`);
      }
    } else if (char === '\r') {
      column = 0;
    } else if (char === '\n') {
      row++;
      column = 0;
      if (lines[row] === undefined) lines[row] = '';
    } else {
      put(char);
    }
  }
  return lines.map((line) => line.trimEnd());
}
