import { type CanonicalToolName, isRecord, mcpToolName } from '@agentv/core/provider-utils';

/**
 * Copilot CLI's own tool names → canonical names. `rg` and `str_replace_editor` are names of
 * other models' tool sets and earlier versions; `powershell` is the shell on Windows. `read_bash`,
 * `write_bash`, `stop_bash` and `list_bash` (talking to a command already started), `sql` (its
 * session database, todos included), `task`, `skill`, `web_search` and the rest keep their own
 * names.
 */
export const COPILOT_TOOL_NAMES: Record<string, CanonicalToolName> = {
  bash: 'shell',
  powershell: 'shell',
  view: 'read_file',
  create: 'write_file',
  edit: 'edit_file',
  str_replace_editor: 'edit_file',
  apply_patch: 'edit_file',
  grep: 'search',
  rg: 'search',
  glob: 'search',
  web_fetch: 'web_fetch',
  fetch: 'web_fetch',
};

/**
 * The canonical name of a call of Copilot CLI's tool `own` with `input`: a tool of an MCP server
 * (the event names the server and its tool) is `mcp:<server>/<tool>`; an `apply_patch` that only
 * adds files is `write_file`; `str_replace_editor` is named after its `command` (`view`,
 * `create`, else an edit); any other name not in the table keeps its own name.
 */
export function canonicalCopilotToolName(
  own: string,
  input?: unknown,
  mcp?: { server: string; tool: string },
): string {
  if (mcp !== undefined) return mcpToolName(mcp.server, mcp.tool);
  if (own === 'apply_patch' && addsOnly(input)) return 'write_file';
  if (own === 'str_replace_editor' && isRecord(input)) {
    if (input.command === 'view') return 'read_file';
    if (input.command === 'create') return 'write_file';
  }
  return COPILOT_TOOL_NAMES[own] ?? own;
}

/**
 * Copilot CLI's tools of a name as a user wrote it in `denied_tools` (for `--excluded-tools`,
 * which hides them from the model): a canonical name stands for every Copilot tool mapped to it
 * (`shell` is also `read_bash`, `write_bash`…, which only serve commands the shell started);
 * anything else is passed as written.
 */
export function copilotToolsOf(name: string): string[] {
  return TOOLS_OF[name] ?? [name];
}

const TOOLS_OF: Record<string, string[]> = {
  shell: ['bash', 'read_bash', 'write_bash', 'stop_bash', 'list_bash', 'powershell'],
  read_file: ['view'],
  write_file: ['create', 'apply_patch'],
  edit_file: ['edit', 'str_replace_editor', 'apply_patch'],
  search: ['grep', 'rg', 'glob'],
  web_fetch: ['web_fetch'],
};

/**
 * Copilot CLI's permission pattern (`--allow-tool` / `--deny-tool`, `kind(argument)`) of a tool
 * as a user wrote it in `allowed_tools` / `denied_tools`: `shell` (and `bash`) is `shell`,
 * `write_file` / `edit_file` (and `create`, `edit`, `apply_patch`) are `write`,
 * `mcp:<server>/<tool>` is `<server>(<tool>)` (`mcp:<server>/*`: `<server>`), a pattern already
 * in Copilot's form (`shell(git:*)`) is passed as written. Undefined for tools Copilot never asks
 * about (reading, searching inside the working folder) and for `web_fetch`, whose tool is hidden
 * instead (its `url` permission covers the shell's URLs too).
 */
export function copilotPermissionPattern(name: string): string | undefined {
  if (name.startsWith('mcp:')) {
    const rest = name.slice('mcp:'.length);
    const slash = rest.indexOf('/');
    if (slash > 0) {
      const server = rest.slice(0, slash);
      const tool = rest.slice(slash + 1);
      return tool === '*' || tool === '' ? server : `${server}(${tool})`;
    }
    return rest;
  }
  if (name in PERMISSION_OF) return PERMISSION_OF[name];
  return name;
}

const PERMISSION_OF: Record<string, string | undefined> = {
  shell: 'shell',
  bash: 'shell',
  powershell: 'shell',
  write_file: 'write',
  edit_file: 'write',
  create: 'write',
  edit: 'write',
  apply_patch: 'write',
  str_replace_editor: 'write',
  // `url` would also take URLs away from the shell: hiding the tool is enough.
  web_fetch: undefined,
  read_file: undefined,
  view: undefined,
  search: undefined,
  grep: undefined,
  glob: undefined,
  rg: undefined,
};

/** Whether an `apply_patch` input (the patch text, or an object holding it) only adds files. */
function addsOnly(input: unknown): boolean {
  const patch =
    typeof input === 'string'
      ? input
      : isRecord(input)
        ? [input.input, input.patch, input.patchText].find((value) => typeof value === 'string')
        : undefined;
  if (typeof patch !== 'string') return false;
  const headers = patch.match(/^\*\*\* (Add|Update|Delete) File:/gm) ?? [];
  return headers.length > 0 && headers.every((header) => header.startsWith('*** Add'));
}
