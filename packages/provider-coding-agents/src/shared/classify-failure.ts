import type { AgentFailureKind } from './agent-adapter.js';

const AUTH =
  /\b(401|403)\b|unauthori[sz]ed|forbidden|invalid[ _-]?api[ _-]?key|incorrect api key|authentication|x-api-key|api key not valid/i;
const MODEL_NOT_FOUND =
  /model_not_found|\bmodels?\b[^\n]{0,80}\b(not found|does not exist|is not supported|unknown|not available)\b|unknown model|\b404\b/i;

/**
 * What a failure message an agent reported is about, from words every model API uses:
 * `auth` (401/403, an invalid API key), `model_not_found` (a model that does not exist, a 404),
 * else `agent_error`.
 */
export function classifyFailureText(text: string): AgentFailureKind {
  if (AUTH.test(text)) return 'auth';
  if (MODEL_NOT_FOUND.test(text)) return 'model_not_found';
  return 'agent_error';
}

/** `text` on one line (whitespace runs as one space), cut at 300 characters: a failure's detail. */
export function failureLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

/** The last non-empty line of `text` (an agent's stderr), trimmed. */
export function lastLine(text: string): string | undefined {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .at(-1);
}
