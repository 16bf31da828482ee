import { describe, expect, it } from 'vitest';
import {
  canonicalCopilotToolName,
  copilotPermissionPattern,
  copilotToolsOf,
} from './copilot-tool-names.js';

describe('canonicalCopilotToolName', () => {
  it('maps Copilot CLI tools to canonical names and keeps the others', () => {
    expect(
      [
        'bash',
        'view',
        'create',
        'edit',
        'grep',
        'glob',
        'web_fetch',
        'sql',
        'task',
        'read_bash',
      ].map((own) => canonicalCopilotToolName(own)),
    ).toEqual([
      'shell',
      'read_file',
      'write_file',
      'edit_file',
      'search',
      'search',
      'web_fetch',
      'sql',
      'task',
      'read_bash',
    ]);
  });

  it('names an MCP tool by the server and tool the event gives', () => {
    expect(canonicalCopilotToolName('docs-search', {}, { server: 'docs', tool: 'search' })).toBe(
      'mcp:docs/search',
    );
  });

  it('tells a patch that only adds files and str_replace_editor commands apart', () => {
    const add = '*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch';
    const update = '*** Begin Patch\n*** Update File: a.txt\n@@\n-hi\n+bye\n*** End Patch';
    expect(canonicalCopilotToolName('apply_patch', add)).toBe('write_file');
    expect(canonicalCopilotToolName('apply_patch', { input: add })).toBe('write_file');
    expect(canonicalCopilotToolName('apply_patch', update)).toBe('edit_file');
    expect(canonicalCopilotToolName('str_replace_editor', { command: 'view' })).toBe('read_file');
    expect(canonicalCopilotToolName('str_replace_editor', { command: 'create' })).toBe(
      'write_file',
    );
    expect(canonicalCopilotToolName('str_replace_editor', { command: 'str_replace' })).toBe(
      'edit_file',
    );
  });
});

describe('Copilot CLI names of a configured tool', () => {
  it('gives permission patterns for tools Copilot asks about', () => {
    expect(
      ['shell', 'bash', 'write_file', 'edit_file', 'mcp:gh/list_issues', 'mcp:gh/*'].map(
        copilotPermissionPattern,
      ),
    ).toEqual(['shell', 'shell', 'write', 'write', 'gh(list_issues)', 'gh']);
    expect(copilotPermissionPattern('shell(git:*)')).toBe('shell(git:*)');
    expect(copilotPermissionPattern('read_file')).toBeUndefined();
    expect(copilotPermissionPattern('web_fetch')).toBeUndefined();
  });

  it('gives the tools a canonical name stands for, to hide them', () => {
    expect(copilotToolsOf('search')).toEqual(['grep', 'rg', 'glob']);
    expect(copilotToolsOf('edit_file')).toEqual(['edit', 'str_replace_editor', 'apply_patch']);
    expect(copilotToolsOf('sql')).toEqual(['sql']);
  });
});
