import { describe, expect, it } from 'vitest';
import { anchorScriptFile } from './anchor-script-file.js';

describe('anchorScriptFile', () => {
  it('makes the script file absolute and leaves every other word as written', () => {
    expect(anchorScriptFile(['node', './judges/check.mjs', 'out.txt'], '/p/evals')).toEqual([
      'node',
      '/p/evals/judges/check.mjs',
      'out.txt',
    ]);
    expect(anchorScriptFile('python3 judges/check.py --strict out.txt', '/p/evals')).toBe(
      'python3 /p/evals/judges/check.py --strict out.txt',
    );
    expect(anchorScriptFile('./check.sh && echo done', '/p/my evals')).toBe(
      "'/p/my evals/check.sh' && echo done",
    );
  });

  it('leaves commands without a local script file alone', () => {
    expect(anchorScriptFile('npx vitest run', '/p')).toBe('npx vitest run');
    expect(anchorScriptFile('node "$JUDGE"', '/p')).toBe('node "$JUDGE"');
    expect(anchorScriptFile(['node', '-e', 'console.log(1)'], '/p')).toEqual([
      'node',
      '-e',
      'console.log(1)',
    ]);
  });
});
