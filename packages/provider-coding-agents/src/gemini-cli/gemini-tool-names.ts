import { type CanonicalToolName, mcpToolName } from '@agentv/core/provider-utils';

/**
 * Gemini CLI's own tool names (0.61) → canonical names. `search_file_content` is the older name
 * of `grep_search`, which Gemini CLI still accepts; its task tracker (`tracker_*`) keeps a todo
 * list like `write_todos`.
 */
export const GEMINI_CLI_TOOL_NAMES: Record<string, CanonicalToolName> = {
  run_shell_command: 'shell',
  read_file: 'read_file',
  read_many_files: 'read_file',
  write_file: 'write_file',
  replace: 'edit_file',
  glob: 'search',
  grep_search: 'search',
  search_file_content: 'search',
  web_fetch: 'web_fetch',
  write_todos: 'todo',
  tracker_create_task: 'todo',
  tracker_update_task: 'todo',
  tracker_get_task: 'todo',
  tracker_list_tasks: 'todo',
  tracker_add_dependency: 'todo',
  tracker_visualize: 'todo',
};

const MCP_PREFIX = 'mcp_';

/**
 * The canonical name of one of Gemini CLI's tools. An MCP tool is `mcp_<server>_<tool>`, split
 * at the first `_` after the prefix as Gemini CLI itself does (its server names hold no `_`).
 */
export function canonicalGeminiToolName(rawName: string): string {
  const known = GEMINI_CLI_TOOL_NAMES[rawName];
  if (known !== undefined) return known;
  const mcp = /^mcp_([^_]+)_(.+)$/.exec(rawName);
  if (mcp) return mcpToolName(mcp[1] as string, mcp[2] as string);
  return rawName;
}

/**
 * Gemini CLI's names for a tool as a user wrote it in `allowed_tools` / `denied_tools`: a
 * canonical name stands for every Gemini tool mapped to it (`search` → `glob`, `grep_search`),
 * `mcp:server/tool` becomes `mcp_server_tool` (`mcp:server/*`: `mcp_server_*`, every tool of the
 * server), and anything else (`run_shell_command(git diff)`, `replace`) is passed as written.
 */
export function geminiToolNames(name: string): string[] {
  if (name.startsWith('mcp:')) {
    const rest = name.slice('mcp:'.length);
    const slash = rest.indexOf('/');
    if (slash > 0) return [`${MCP_PREFIX}${rest.slice(0, slash)}_${rest.slice(slash + 1)}`];
  }
  const raw = Object.entries(GEMINI_CLI_TOOL_NAMES)
    .filter(([own, canonical]) => canonical === name && own !== 'search_file_content')
    .map(([own]) => own);
  return raw.length > 0 ? raw : [name];
}
