import { describe, expect, it } from 'vitest';
import { closestMatch } from './closest-match.js';

describe('closestMatch', () => {
  it('suggests the closest candidate for a typo, ignoring case', () => {
    expect(closestMatch('comand_template', ['command_template', 'cwd'])).toBe('command_template');
    expect(closestMatch('CWD', ['command_template', 'cwd'])).toBe('cwd');
  });

  it('counts two swapped neighbouring letters as one typo', () => {
    expect(closestMatch('modle', ['model', 'api_key'])).toBe('model');
    expect(closestMatch('llm_jduge', ['llm_judge', 'rubric'])).toBe('llm_judge');
  });

  it('suggests nothing when no candidate is close', () => {
    expect(closestMatch('temperature', ['model', 'api_key'])).toBeUndefined();
  });
});
