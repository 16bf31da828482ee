/** `value` as one single-quoted shell word: nothing inside single quotes is special to the shell. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
