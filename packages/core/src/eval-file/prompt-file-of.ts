import path from 'node:path';

/**
 * The file a `prompt:` option names, or undefined when it is inline text: a
 * single line that starts with `./`, `../` or `/`, or ends in a file
 * extension such as `.md` or `.txt`.
 */
export function promptFileOf(prompt: string): string | undefined {
  const text = prompt.trim();
  if (text === '' || /[\r\n]/.test(text) || text.includes('{{')) return undefined;
  if (/^\.{1,2}[\\/]/.test(text) || path.isAbsolute(text)) return text;
  return /^[^\s]+\.[A-Za-z0-9]{1,8}$/.test(text) ? text : undefined;
}
