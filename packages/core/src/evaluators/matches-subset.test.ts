import { describe, expect, it } from 'vitest';
import { matchesSubset } from './matches-subset.js';

describe('matchesSubset', () => {
  it('accepts extra keys in the actual object, at any depth', () => {
    expect(matchesSubset({ id: 42 }, { id: 42, verbose: true })).toBe(true);
    expect(matchesSubset({ q: { text: 'a' } }, { q: { text: 'a', lang: 'en' }, n: 1 })).toBe(true);
  });

  it('rejects a missing key or a different value', () => {
    expect(matchesSubset({ id: 42 }, { ID: 42 })).toBe(false);
    expect(matchesSubset({ id: 42 }, { id: '42' })).toBe(false);
    expect(matchesSubset({ q: { text: 'a' } }, { q: { text: 'b' } })).toBe(false);
    expect(matchesSubset({ id: null }, {})).toBe(false);
  });

  it('compares arrays element by element with equal lengths', () => {
    expect(matchesSubset([{ a: 1 }], [{ a: 1, b: 2 }])).toBe(true);
    expect(matchesSubset(['a'], ['a', 'b'])).toBe(false);
    expect(matchesSubset(['b', 'a'], ['a', 'b'])).toBe(false);
  });

  it('needs an object where the expectation is an object', () => {
    expect(matchesSubset({ id: 1 }, undefined)).toBe(false);
    expect(matchesSubset({ id: 1 }, [1])).toBe(false);
    expect(matchesSubset({}, { anything: true })).toBe(true);
  });
});
