import { type CanonicalToolName, mcpToolName } from '@agentv/core/provider-utils';

/**
 * Claude Code's own tool names → canonical names. Claude Code 2.1 keeps its todo list with the
 * `Task*` tools (`TaskCreate`, `TaskUpdate`, …) where earlier versions had `TodoWrite`; `TaskStop`
 * stops a background command and is not a todo tool.
 */
export const CLAUDE_CODE_TOOL_NAMES: Record<string, CanonicalToolName> = {
  Bash: 'shell',
  Read: 'read_file',
  Write: 'write_file',
  Edit: 'edit_file',
  MultiEdit: 'edit_file',
  Grep: 'search',
  Glob: 'search',
  WebFetch: 'web_fetch',
  TodoWrite: 'todo',
  TaskCreate: 'todo',
  TaskUpdate: 'todo',
  TaskList: 'todo',
  TaskGet: 'todo',
};

const MCP_PREFIX = 'mcp__';

/** The canonical name of one of Claude Code's tools: `mcp__server__tool` is `mcp:server/tool`. */
export function canonicalClaudeToolName(rawName: string): string {
  const known = CLAUDE_CODE_TOOL_NAMES[rawName];
  if (known !== undefined) return known;
  if (rawName.startsWith(MCP_PREFIX)) {
    const rest = rawName.slice(MCP_PREFIX.length);
    const split = rest.indexOf('__');
    if (split > 0 && split < rest.length - 2) {
      return mcpToolName(rest.slice(0, split), rest.slice(split + 2));
    }
  }
  return rawName;
}

/**
 * Claude Code's names for a tool as a user wrote it in `allowed_tools` / `denied_tools`: a
 * canonical name stands for every Claude tool mapped to it (`search` → `Grep`, `Glob`),
 * `mcp:server/tool` becomes `mcp__server__tool` (`mcp:server/*`: every tool of the server,
 * `mcp__server`), and anything else (`Bash(git diff:*)`, `Edit`)
 * is passed as written.
 */
export function claudeToolNames(name: string): string[] {
  if (name.startsWith('mcp:')) {
    const rest = name.slice('mcp:'.length);
    const slash = rest.indexOf('/');
    if (slash > 0) {
      const server = `${MCP_PREFIX}${rest.slice(0, slash)}`;
      const tool = rest.slice(slash + 1);
      return [tool === '*' ? server : `${server}__${tool}`];
    }
  }
  const raw = Object.entries(CLAUDE_CODE_TOOL_NAMES)
    .filter(([, canonical]) => canonical === name)
    .map(([rawName]) => rawName);
  return raw.length > 0 ? raw : [name];
}
