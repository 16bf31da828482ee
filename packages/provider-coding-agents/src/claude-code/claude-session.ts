import { AgentvError } from '@agentv/core';
import { isRecord, type ProviderResponse } from '@agentv/core/provider-utils';
import { sessionDuration, sessionLines } from '../shared/session-lines.js';
import { createClaudeCodeReader } from './claude-code-reader.js';

/**
 * A Claude Code session (`~/.claude/projects/<folder>/<session>.jsonl`) as a case's answer.
 * Its `user` and `assistant` lines are the messages `claude -p --output-format stream-json`
 * prints, so they go through the same reader (canonical tool names, each event at its line's
 * `timestamp`); what stream-json says in its closing `result` (the answer, the run's usage and
 * cost) a session does not write, so it is built here: the answer is the last assistant text,
 * usage the sum over the assistant messages (each message id once: Claude Code writes a line
 * per content block), cost the session's last `cost-state`, when it has one.
 */
export function readClaudeSession(text: string, shown: string): ProviderResponse {
  const { lines, warnings } = sessionLines(text, shown, 'Claude Code session');
  const messages = lines.filter(
    ({ value }) => (value.type === 'user' || value.type === 'assistant') && isRecord(value.message),
  );
  if (messages.length === 0) {
    throw new AgentvError(
      `${shown} is not a Claude Code session: none of its ${lines.length} lines is a user or assistant message`,
      {
        hint: 'Claude Code writes its sessions to ~/.claude/projects/<folder>/<session id>.jsonl; for Codex write source: codex-session',
      },
    );
  }
  const reader = createClaudeCodeReader();
  const usageById = new Map<string, Record<string, unknown>>();
  let answer: string | undefined;
  let model: string | undefined;
  let cost: number | undefined;
  let lastAt = new Date(0);
  for (const line of lines) {
    const at = line.at ?? lastAt;
    lastAt = at;
    const { value } = line;
    if (value.type === 'cost-state' && typeof value.totalCostUSD === 'number') {
      cost = value.totalCostUSD;
      continue;
    }
    if (value.type === 'user') {
      // stream-json spells it `tool_use_result`.
      reader.push({ ...value, tool_use_result: value.toolUseResult }, at);
      continue;
    }
    if (value.type !== 'assistant' || !isRecord(value.message)) continue;
    reader.push(value, at);
    const message = value.message;
    if (typeof message.model === 'string' && message.model !== '<synthetic>') model = message.model;
    if (typeof message.id === 'string' && isRecord(message.usage)) {
      usageById.set(message.id, message.usage);
    }
    const said = Array.isArray(message.content)
      ? message.content
          .filter((part) => isRecord(part) && part.type === 'text' && typeof part.text === 'string')
          .map((part) => (part as { text: string }).text)
          .join('\n')
      : typeof message.content === 'string'
        ? message.content
        : '';
    if (said.trim() !== '' && value.isSidechain !== true) answer = said;
  }
  const result: Record<string, unknown> = {
    type: 'result',
    subtype: 'success',
    is_error: false,
    result: answer ?? '',
    usage: sumUsage([...usageById.values()]),
  };
  if (cost !== undefined) result.total_cost_usd = cost;
  if (model !== undefined) result.modelUsage = { [model]: {} };
  reader.push(result, lastAt);
  const outcome = reader.finish({ stderr: '' });
  const response: ProviderResponse = { text: outcome.answer ?? '', trace: outcome.trace };
  if (outcome.usage !== undefined) response.usage = outcome.usage;
  if (outcome.costUsd !== undefined) response.costUsd = outcome.costUsd;
  const duration = sessionDuration(messages);
  if (duration !== undefined) response.durationMs = duration;
  if (answer === undefined) warnings.push(`${shown} holds no final answer of the agent`);
  if (warnings.length > 0) response.warnings = warnings;
  return response;
}

function sumUsage(list: readonly Record<string, unknown>[]): Record<string, unknown> {
  const sum: Record<string, number> = {};
  let thinking = 0;
  for (const usage of list) {
    for (const key of [
      'input_tokens',
      'output_tokens',
      'cache_read_input_tokens',
      'cache_creation_input_tokens',
    ]) {
      const value = usage[key];
      if (typeof value === 'number') sum[key] = (sum[key] ?? 0) + value;
    }
    const details = isRecord(usage.output_tokens_details) ? usage.output_tokens_details : undefined;
    if (typeof details?.thinking_tokens === 'number') {
      thinking += details.thinking_tokens;
    }
  }
  return { ...sum, output_tokens_details: { thinking_tokens: thinking } };
}
