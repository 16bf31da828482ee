/**
 * What is wrong with a line `JSON.parse` rejected, and where: the column
 * (1-based, in `text`) from the `at position N` Node puts in most of its
 * messages, which is then dropped from the message (with its `in JSON`); column 1 and the message
 * as it is when Node gives no position (e.g. `Unexpected end of JSON input`).
 */
export function jsonParseProblem(
  error: unknown,
  text: string,
): { column: number; message: string } {
  const message = error instanceof Error ? error.message : String(error);
  const match = / at position (\d+)(?: \(line \d+ column \d+\))?$/.exec(message);
  if (match === null) return { column: 1, message };
  const position = Math.min(Number(match[1]), text.length);
  return { column: position + 1, message: message.slice(0, match.index).replace(/ in JSON$/, '') };
}
