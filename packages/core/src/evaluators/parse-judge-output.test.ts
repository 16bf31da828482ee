import { describe, expect, it } from 'vitest';
import { parseJudgeOutput } from './parse-judge-output.js';

const label = 'script "judge"';

describe('parseJudgeOutput', () => {
  it('reads a result surrounded by whitespace', () => {
    expect(parseJudgeOutput('\n  {"score": 0.5, "hits": ["a"]}  \n\n', label)).toEqual({
      score: 0.5,
      hits: ['a'],
      misses: [],
    });
  });

  it('says the script printed nothing', () => {
    expect(() => parseJudgeOutput('  \n', label)).toThrow(
      'script "judge" printed nothing; expected',
    );
  });

  it('truncates a long excerpt of what was printed', () => {
    const noise = 'word '.repeat(200);
    const error = (() => {
      try {
        parseJudgeOutput(noise, label);
      } catch (caught) {
        return caught as Error;
      }
      return undefined;
    })();
    expect(error?.message).toMatch(/it printed: (word ){39}wo\.\.\.$/);
  });

  it('rejects hits that are not strings', () => {
    expect(() => parseJudgeOutput('{"score": 1, "hits": [1]}', label)).toThrow(
      /wrong shape \(hits\.0: Invalid input: expected string, received number\)/,
    );
  });
});
