import { describe, expect, it } from 'vitest';
import { lookupPath, pathProblem } from './json-path.js';

describe('lookupPath', () => {
  const response = { data: { answer: 'yes', list: [{ text: 'a' }, null] }, '0': 'zero', count: 3 };

  it('follows keys and array indexes', () => {
    expect(lookupPath(response, 'data.answer')).toEqual({ found: true, value: 'yes' });
    expect(lookupPath(response, 'data.list.0.text')).toEqual({ found: true, value: 'a' });
    expect(lookupPath(response, 'data.list.1')).toEqual({ found: true, value: null });
    expect(lookupPath(response, '0')).toEqual({ found: true, value: 'zero' });
  });

  it('says where it stopped and what exists there', () => {
    expect(lookupPath(response, 'result')).toEqual({
      found: false,
      reason: 'the response has no key "result"; its keys are "0", "data", "count"',
    });
    expect(lookupPath(response, 'data.list.first')).toEqual({
      found: false,
      reason: '"data.list" is an array of 2 (use an index such as 0, not "first")',
    });
    expect(lookupPath(response, 'data.list.5.text')).toEqual({
      found: false,
      reason: '"data.list" is an array of 2, so index 5 does not exist',
    });
    expect(lookupPath(response, 'count.value')).toEqual({
      found: false,
      reason: '"count" is a number, not an object or array',
    });
    expect(lookupPath('plain', 'a')).toEqual({
      found: false,
      reason: 'the response is a string, not an object or array',
    });
    expect(lookupPath({}, 'a')).toEqual({
      found: false,
      reason: 'the response is an empty object',
    });
  });
});

describe('pathProblem', () => {
  it('accepts dot paths and names what is wrong with others', () => {
    expect(pathProblem('choices.0.message.content')).toBeUndefined();
    expect(pathProblem('')).toBe('must not be empty');
    expect(pathProblem('.data')).toContain('empty segment');
    expect(pathProblem('data.')).toContain('empty segment');
    expect(pathProblem('data answer')).toBe('must not contain spaces');
    expect(pathProblem('choices[0]')).toContain('brackets');
  });
});
