import { describe, expect, it } from 'vitest';
import { matchesAnyGlob, matchesGlob } from './glob-match.js';

describe('matchesGlob', () => {
  it('matches ** across any number of directories, including none', () => {
    expect(matchesGlob('a.instructions.md', '**/*.instructions.md')).toBe(true);
    expect(matchesGlob('docs/deep/a.instructions.md', '**/*.instructions.md')).toBe(true);
    expect(matchesGlob('instructions/a.md', '**/instructions/**')).toBe(true);
    expect(matchesGlob('x/instructions/y/z.md', '**/instructions/**')).toBe(true);
    expect(matchesGlob('myinstructions/a.md', '**/instructions/**')).toBe(false);
    expect(matchesGlob('instructions', '**/instructions/**')).toBe(false);
  });

  it('keeps * and ? within one path segment', () => {
    expect(matchesGlob('docs/a.md', 'docs/*.md')).toBe(true);
    expect(matchesGlob('docs/sub/a.md', 'docs/*.md')).toBe(false);
    expect(matchesGlob('case-1.yaml', 'case-?.yaml')).toBe(true);
    expect(matchesGlob('case-10.yaml', 'case-?.yaml')).toBe(false);
  });

  it('treats regular expression characters literally and accepts Windows separators', () => {
    expect(matchesGlob('a+b(1).md', 'a+b(1).md')).toBe(true);
    expect(matchesGlob('aab1.md', 'a+b(1).md')).toBe(false);
    expect(matchesGlob('prompts\\system.md', '**/prompts/**')).toBe(true);
  });

  it('matches when any pattern matches', () => {
    expect(matchesAnyGlob('p/x.prompt.md', ['**/*.instructions.md', '**/*.prompt.md'])).toBe(true);
    expect(matchesAnyGlob('p/x.md', ['**/*.instructions.md', '**/*.prompt.md'])).toBe(false);
  });
});
