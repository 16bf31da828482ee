import { describe, expect, it } from 'vitest';
import { canonicalOpencodeToolName, opencodePermissionKeys } from './opencode-tool-names.js';

describe('canonicalOpencodeToolName', () => {
  it('maps opencode tools to canonical names and keeps the others', () => {
    expect(
      ['bash', 'read', 'write', 'edit', 'multiedit', 'grep', 'glob', 'list', 'webfetch'].map(
        (name) => canonicalOpencodeToolName(name),
      ),
    ).toEqual([
      'shell',
      'read_file',
      'write_file',
      'edit_file',
      'edit_file',
      'search',
      'search',
      'search',
      'web_fetch',
    ]);
    expect(canonicalOpencodeToolName('todowrite')).toBe('todo');
    expect(canonicalOpencodeToolName('task')).toBe('task');
    expect(canonicalOpencodeToolName('plan_exit')).toBe('plan_exit');
  });

  it('tells a patch that only adds files from one that changes them', () => {
    const add = { patchText: '*** Begin Patch\n*** Add File: a.js\n+x\n*** End Patch' };
    const update = {
      patchText:
        '*** Begin Patch\n*** Add File: a.js\n+x\n*** Update File: b.js\n@@\n-y\n+z\n*** End Patch',
    };
    expect(canonicalOpencodeToolName('apply_patch', add)).toBe('write_file');
    expect(canonicalOpencodeToolName('apply_patch', update)).toBe('edit_file');
    expect(canonicalOpencodeToolName('apply_patch')).toBe('edit_file');
  });

  it('names an MCP tool by its server and tool', () => {
    expect(canonicalOpencodeToolName('github_create_issue')).toBe('mcp:github/create_issue');
  });
});

describe('opencodePermissionKeys', () => {
  it("turns canonical and MCP names into opencode's permission keys", () => {
    expect(opencodePermissionKeys('edit_file')).toEqual(['edit']);
    expect(opencodePermissionKeys('write_file')).toEqual(['edit']);
    expect(opencodePermissionKeys('search')).toEqual(['grep', 'glob', 'list']);
    expect(opencodePermissionKeys('mcp:github/*')).toEqual(['github_*']);
    expect(opencodePermissionKeys('task')).toEqual(['task']);
  });
});
