import { describe, expect, it } from 'vitest';
import {
  parseRepeatPassRule,
  repeatPassName,
  repeatVerdict,
  repeatVerdictDecided,
} from './repeat-pass-rule.js';

describe('parseRepeatPassRule', () => {
  it('reads the four spellings and refuses others', () => {
    expect(parseRepeatPassRule('all')).toEqual({ kind: 'all' });
    expect(parseRepeatPassRule('majority')).toEqual({ kind: 'majority' });
    expect(parseRepeatPassRule('rate>=0.8')).toEqual({ kind: 'rate', rate: 0.8 });
    expect(parseRepeatPassRule('rate >= .5')).toEqual({ kind: 'rate', rate: 0.5 });
    expect(parseRepeatPassRule('rate>=1.5')).toBeUndefined();
    expect(parseRepeatPassRule('mean')).toBeUndefined();
    expect(repeatPassName({ kind: 'rate', rate: 0.8 })).toBe('rate>=0.8');
  });
});

describe('repeatVerdict', () => {
  it('2 of 3 passing fails all, passes any, majority and rate>=0.6', () => {
    expect(repeatVerdict({ kind: 'all' }, 2, 3)).toBe(false);
    expect(repeatVerdict({ kind: 'any' }, 2, 3)).toBe(true);
    expect(repeatVerdict({ kind: 'majority' }, 2, 3)).toBe(true);
    expect(repeatVerdict({ kind: 'rate', rate: 0.6 }, 2, 3)).toBe(true);
    expect(repeatVerdict({ kind: 'rate', rate: 0.7 }, 2, 3)).toBe(false);
    expect(repeatVerdict({ kind: 'majority' }, 2, 4)).toBe(false);
  });

  it('is decided once the remaining repeats cannot change it', () => {
    expect(repeatVerdictDecided({ kind: 'all' }, 0, 1, 5)).toBe(true);
    expect(repeatVerdictDecided({ kind: 'all' }, 4, 4, 5)).toBe(false);
    expect(repeatVerdictDecided({ kind: 'any' }, 1, 1, 5)).toBe(true);
    expect(repeatVerdictDecided({ kind: 'any' }, 0, 4, 5)).toBe(false);
    expect(repeatVerdictDecided({ kind: 'majority' }, 3, 3, 5)).toBe(true);
    expect(repeatVerdictDecided({ kind: 'majority' }, 0, 3, 5)).toBe(true);
    expect(repeatVerdictDecided({ kind: 'majority' }, 1, 3, 5)).toBe(false);
  });
});
