import { describe, expect, it } from 'vitest';
import { didYouMean } from './did-you-mean.js';

describe('didYouMean', () => {
  it('suggests the closest name when a typo is likely, and lists every name', () => {
    expect(didYouMean('contians', ['contains', 'equals', 'regex'])).toBe(
      'did you mean "contains"? Or use one of: contains, equals, regex',
    );
    expect(didYouMean('PROMT', ['PROMPT', 'EVAL_ID'], (name) => `{${name}}`)).toBe(
      'did you mean "{PROMPT}"? Or use one of: {PROMPT}, {EVAL_ID}',
    );
    expect(didYouMean('something', ['contains', 'equals'])).toBe('use one of: contains, equals');
  });
});
