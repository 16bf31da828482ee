import { describe, expect, it } from 'vitest';
import { integerFlag, numberFlag, repeatedFlag, stringFlag } from './flag-values.js';

describe('repeatedFlag', () => {
  it('keeps every value, in order, written either way, and none after --', () => {
    const line = ['a.yaml', '--tag', 'x', '--out', 'o.jsonl', '--tag=y', '--', '--tag', 'z'];
    expect(repeatedFlag(line, 'tag')).toEqual(['x', 'y']);
    expect(repeatedFlag(line, 'target')).toEqual([]);
  });

  it('refuses a flag without a value, last or followed by another flag', () => {
    expect(() => repeatedFlag(['--tag'], 'tag')).toThrow('--tag needs a value');
    expect(() => repeatedFlag(['--tag', '--verbose'], 'tag')).toThrow('--tag needs a value');
  });
});

describe('value checks', () => {
  it('name the flag and the value they refuse', () => {
    expect(stringFlag(undefined, 'out')).toBeUndefined();
    expect(() => stringFlag('', 'out')).toThrow('--out needs a value');
    expect(integerFlag('3', 'workers', 1)).toBe(3);
    expect(() => integerFlag('1.5', 'workers', 1)).toThrow(
      '--workers must be an integer >= 1, got "1.5"',
    );
    expect(numberFlag('0.5', 'threshold', 0, 1)).toBe(0.5);
    expect(() => numberFlag('2', 'threshold', 0, 1)).toThrow(
      '--threshold must be a number between 0 and 1, got "2"',
    );
  });
});
