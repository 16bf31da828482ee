import { parseJsonObject } from '../util/records.js';

/**
 * Finds the JSON object in a judge's reply, tolerating what models wrap
 * around it: the whole reply, else the first ```json (or bare ```) fenced
 * block holding an object, else the first balanced `{...}` in the text that
 * parses. Undefined when there is none.
 */
export function extractJudgeJson(reply: string): Record<string, unknown> | undefined {
  const text = reply.trim();
  const whole = parseJsonObject(text);
  if (whole !== undefined) return whole;
  for (const match of text.matchAll(/```[A-Za-z0-9_-]*[ \t]*\r?\n([\s\S]*?)```/g)) {
    const fenced = parseJsonObject(match[1]!.trim());
    if (fenced !== undefined) return fenced;
  }
  for (let start = text.indexOf('{'); start !== -1; start = text.indexOf('{', start + 1)) {
    const end = matchingBrace(text, start);
    if (end === -1) continue;
    const found = parseJsonObject(text.slice(start, end + 1));
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Index of the `}` closing the `{` at `start` (strings and escapes honoured), or -1. */
function matchingBrace(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let index = start; index < text.length; index++) {
    const char = text[index];
    if (inString) {
      if (char === '\\') index++;
      else if (char === '"') inString = false;
    } else if (char === '"') {
      inString = true;
    } else if (char === '{') {
      depth++;
    } else if (char === '}') {
      depth--;
      if (depth === 0) return index;
    }
  }
  return -1;
}
