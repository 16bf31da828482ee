import { describe, expect, it } from 'vitest';
import { canonicalGeminiToolName, geminiToolNames } from './gemini-tool-names.js';

describe('Gemini CLI tool names', () => {
  it.each([
    ['run_shell_command', 'shell'],
    ['read_file', 'read_file'],
    ['read_many_files', 'read_file'],
    ['write_file', 'write_file'],
    ['replace', 'edit_file'],
    ['glob', 'search'],
    ['grep_search', 'search'],
    ['search_file_content', 'search'],
    ['web_fetch', 'web_fetch'],
    ['write_todos', 'todo'],
    ['tracker_update_task', 'todo'],
    ['mcp_github_create_issue', 'mcp:github/create_issue'],
    ['list_directory', 'list_directory'],
    ['google_web_search', 'google_web_search'],
    ['mcp_broken', 'mcp_broken'],
  ])('%s is %s', (raw, canonical) => {
    expect(canonicalGeminiToolName(raw)).toBe(canonical);
  });

  it('turns a canonical name back into every Gemini CLI tool it stands for', () => {
    expect(geminiToolNames('search')).toEqual(['glob', 'grep_search']);
    expect(geminiToolNames('read_file')).toEqual(['read_file', 'read_many_files']);
    expect(geminiToolNames('edit_file')).toEqual(['replace']);
    expect(geminiToolNames('mcp:github/create_issue')).toEqual(['mcp_github_create_issue']);
    expect(geminiToolNames('mcp:github/*')).toEqual(['mcp_github_*']);
    expect(geminiToolNames('run_shell_command(git diff)')).toEqual(['run_shell_command(git diff)']);
  });
});
