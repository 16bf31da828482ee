import { describe, expect, it } from 'vitest';
import { canonicalClaudeToolName, claudeToolNames } from './claude-tool-names.js';

describe('Claude Code tool names', () => {
  it.each([
    ['Bash', 'shell'],
    ['Read', 'read_file'],
    ['Write', 'write_file'],
    ['Edit', 'edit_file'],
    ['MultiEdit', 'edit_file'],
    ['Grep', 'search'],
    ['Glob', 'search'],
    ['WebFetch', 'web_fetch'],
    ['TodoWrite', 'todo'],
    ['TaskCreate', 'todo'],
    ['mcp__github__create_issue', 'mcp:github/create_issue'],
    ['mcp__my_server__do__it', 'mcp:my_server/do__it'],
    ['WebSearch', 'WebSearch'],
    ['mcp__broken', 'mcp__broken'],
  ])('%s is %s', (raw, canonical) => {
    expect(canonicalClaudeToolName(raw)).toBe(canonical);
  });

  it('turns a canonical name back into every Claude Code tool it stands for', () => {
    expect(claudeToolNames('search')).toEqual(['Grep', 'Glob']);
    expect(claudeToolNames('mcp:github/create_issue')).toEqual(['mcp__github__create_issue']);
    expect(claudeToolNames('Bash(npm test:*)')).toEqual(['Bash(npm test:*)']);
  });
});
