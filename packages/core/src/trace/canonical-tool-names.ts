/**
 * The tool names shared by every coding-agent provider (README, "Coding agents"): a trace's
 * `tool_call` / `tool_result` event carries one of these in `name` and the agent's own name in
 * `rawName`, so one `tool_trajectory` check serves every agent.
 */
export const CANONICAL_TOOL_NAMES = [
  'shell',
  'read_file',
  'write_file',
  'edit_file',
  'search',
  'web_fetch',
  'todo',
] as const;

/** A canonical tool name; an MCP tool is `mcp:<server>/<tool>`. */
export type CanonicalToolName = (typeof CANONICAL_TOOL_NAMES)[number] | `mcp:${string}/${string}`;

/** The canonical name of an MCP server's tool. */
export function mcpToolName(server: string, tool: string): CanonicalToolName {
  return `mcp:${server}/${tool}`;
}
