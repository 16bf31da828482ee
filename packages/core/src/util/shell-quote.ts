/**
 * Quotes `value` as one POSIX shell word: wrapped in single quotes, each `'`
 * written as `'\''`. Inside single quotes the shell expands nothing, so the
 * word reaches the command byte for byte, whatever it contains (`$()`,
 * backticks, `;`, newlines, ...). NUL bytes cannot be passed in argv at all;
 * callers reject them before quoting.
 */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", "'\\''")}'`;
}

/**
 * `value` as one POSIX shell word, as it is when it holds only characters no shell treats
 * specially (letters, digits, `_@%+=:,./-`), else single-quoted (`shellQuote`): for commands
 * printed for people to read and run.
 */
export function shellWord(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : shellQuote(value);
}
