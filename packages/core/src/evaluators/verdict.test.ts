import { describe, expect, it } from 'vitest';
import { verdictFor } from './verdict.js';

describe('verdictFor', () => {
  it('passes at 0.8 and above', () => {
    expect(verdictFor(1)).toBe('pass');
    expect(verdictFor(0.8)).toBe('pass');
    expect(verdictFor(0.7 + 0.1)).toBe('pass');
  });

  it('is borderline from 0.6 up to 0.8', () => {
    expect(verdictFor(0.6)).toBe('borderline');
    expect(verdictFor(0.79)).toBe('borderline');
  });

  it('fails below 0.6', () => {
    expect(verdictFor(0.59)).toBe('fail');
    expect(verdictFor(0)).toBe('fail');
  });
});
