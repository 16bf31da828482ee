import { type CanonicalToolName, isRecord, mcpToolName } from '@agentv/core/provider-utils';

/**
 * opencode's own tool names → canonical names. opencode 1.18 offers GPT models `apply_patch` in
 * place of `edit` and `write`; `multiedit`, `patch`, `list` and `todoread` are names of earlier
 * versions. `task`, `skill`, `lsp`, `question`, `websearch` and `invalid` (a call of a tool that
 * does not exist) keep their own names.
 */
export const OPENCODE_TOOL_NAMES: Record<string, CanonicalToolName> = {
  bash: 'shell',
  read: 'read_file',
  write: 'write_file',
  edit: 'edit_file',
  multiedit: 'edit_file',
  patch: 'edit_file',
  apply_patch: 'edit_file',
  grep: 'search',
  glob: 'search',
  list: 'search',
  webfetch: 'web_fetch',
  todowrite: 'todo',
  todoread: 'todo',
};

/** opencode's built-in tools whose names hold an underscore: never an MCP server's tool. */
const BUILT_IN_WITH_UNDERSCORE = new Set(['apply_patch', 'plan_enter', 'plan_exit']);

/**
 * The canonical name of a call of opencode's tool `own` with `input`: an `apply_patch` that only
 * adds files is `write_file`; an MCP tool, which opencode names `<server>_<tool>`, is
 * `mcp:<server>/<tool>` (split at the first underscore: a server whose name holds one is split
 * wrongly, the raw name stays in `rawName`); any other name not in the table keeps its own name.
 */
export function canonicalOpencodeToolName(own: string, input?: unknown): string {
  if (own === 'apply_patch' && addsOnly(input)) return 'write_file';
  const known = OPENCODE_TOOL_NAMES[own];
  if (known !== undefined) return known;
  const split = own.indexOf('_');
  if (split > 0 && split < own.length - 1 && !BUILT_IN_WITH_UNDERSCORE.has(own)) {
    return mcpToolName(own.slice(0, split), own.slice(split + 1));
  }
  return own;
}

/**
 * opencode's permission keys for a tool as a user wrote it in `allowed_tools` / `denied_tools`:
 * a canonical name stands for the permission of every opencode tool mapped to it (`edit` covers
 * `write`, `edit` and `apply_patch`; `search` is `grep`, `glob` and `list`), `mcp:server/tool`
 * is `server_tool` (`mcp:server/*`: `server_*`), and anything else (`bash`, `task`) is passed as
 * written.
 */
export function opencodePermissionKeys(name: string): string[] {
  if (name.startsWith('mcp:')) {
    const rest = name.slice('mcp:'.length);
    const slash = rest.indexOf('/');
    if (slash > 0) return [`${rest.slice(0, slash)}_${rest.slice(slash + 1)}`];
  }
  const keys = PERMISSION_KEYS[name];
  return keys ?? [name];
}

const PERMISSION_KEYS: Record<string, string[]> = {
  shell: ['bash'],
  read_file: ['read'],
  write_file: ['edit'],
  edit_file: ['edit'],
  search: ['grep', 'glob', 'list'],
  web_fetch: ['webfetch'],
  todo: ['todowrite'],
  // opencode checks the `edit` permission for every tool that changes files.
  write: ['edit'],
  apply_patch: ['edit'],
  multiedit: ['edit'],
  patch: ['edit'],
};

function addsOnly(input: unknown): boolean {
  if (!isRecord(input) || typeof input.patchText !== 'string') return false;
  const headers = input.patchText.match(/^\*\*\* (Add|Update|Delete) File:/gm) ?? [];
  return headers.length > 0 && headers.every((header) => header.startsWith('*** Add'));
}
