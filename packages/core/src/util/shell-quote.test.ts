import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { shellQuote, shellWord } from './shell-quote.js';

// What /bin/sh makes of a quoted word: printf writes it back unchanged.
const throughShell = (word: string) =>
  execFileSync('/bin/sh', ['-c', `printf '%s' ${word}`], { encoding: 'utf8' });

describe('shellQuote', () => {
  it.each([
    ['empty', ''],
    ['single quotes', "it's 'quoted'"],
    ['double quotes and backslashes', 'say "hi" \\n \\\\ \\'],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal shell expansion, on purpose
    ['expansions', '$HOME ${PATH} $(id) `id` $((1+1)) ~ *'],
    ['operators', 'a; b && c || d | e > f < g & h'],
    ['whitespace', 'line 1\nline 2\n\ttabbed  '],
    ['non-ASCII', '✅ 日本語 Ünïcödé 🚀'],
  ])('keeps %s intact through /bin/sh', (_name, value) => {
    expect(throughShell(shellQuote(value))).toBe(value);
  });

  it('always produces one single-quoted word', () => {
    expect(shellQuote('plain')).toBe("'plain'");
    expect(shellQuote("a'b")).toBe("'a'\\''b'");
  });
});

describe('shellWord', () => {
  it('leaves a plain word as it is and quotes anything else, keeping it intact through /bin/sh', () => {
    expect(shellWord('/work/agentv/bin/agentv.cjs')).toBe('/work/agentv/bin/agentv.cjs');
    expect(shellWord('a=b,c:d@e%f+g')).toBe('a=b,c:d@e%f+g');
    for (const value of ["/tmp/my evals/it's", '/tmp/$HOME', 'a;b', '~/x', '*', '']) {
      expect(shellWord(value)).toBe(shellQuote(value));
      expect(throughShell(shellWord(value))).toBe(value);
    }
  });
});
