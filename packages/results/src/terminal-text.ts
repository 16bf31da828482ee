// C0 controls but tab, DEL, C1 controls, and the Unicode controls that reorder or break text
// (bidi embeddings, overrides, isolates and marks; line and paragraph separators).
const UNSAFE =
  /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r' };

/**
 * `text` safe to print on a terminal: every control character but tab — escape
 * sequences, `\r`, `\n`, backspace, C1 — and every Unicode control that
 * reorders or breaks a line (bidi overrides, isolates, marks, line separators)
 * is written as an escape (`\x1b`, `\r`, `\n`, `\u202e`). Text that comes from
 * eval files, datasets or agents (case ids, target names, errors, agent
 * output) goes through it before it is printed, so it cannot move the cursor,
 * clear the screen, recolour or reorder a line, or forge one. Result files
 * keep the text as it is.
 */
export function terminalText(text: string): string {
  UNSAFE.lastIndex = 0;
  if (!UNSAFE.test(text)) return text;
  return text.replace(UNSAFE, escapeCharacter);
}

/**
 * `terminalText` for text whose own lines are meant (a multi-line error
 * message): each line made safe, the line breaks kept.
 */
export function terminalLines(text: string): string {
  return text.split('\n').map(terminalText).join('\n');
}

function escapeCharacter(character: string): string {
  const named = NAMED[character];
  if (named !== undefined) return named;
  const code = character.charCodeAt(0);
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
}
