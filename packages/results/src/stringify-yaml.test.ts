import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { stringifyYaml } from './stringify-yaml.js';

describe('stringifyYaml', () => {
  it('writes multiline strings as literal blocks and parses back to the same value', () => {
    const value = {
      eval_id: 'refund-001',
      candidate_answer: 'Refunded $59.90.\nAnything else?\n',
      reasoning: 'first line\n  indented line',
      quoted: ['yes', '1.0', 'a: b', '', 'null'],
      long: 'word '.repeat(60).trim(),
      control: 'bell\u0007\r\nwindows',
      nested: { misses: ['no amount\nstated'] },
      nothing: null,
    };
    const text = stringifyYaml(value);
    expect(text).toContain('candidate_answer: |\n  Refunded $59.90.\n  Anything else?\n');
    expect(text).toContain(`long: ${'word '.repeat(60).trim()}\n`);
    expect(text.endsWith('\n')).toBe(true);
    expect(parse(text)).toEqual(value);
  });

  it('writes a repeated object twice instead of as an alias', () => {
    const shared = { tool: 'search' };
    const text = stringifyYaml({ a: shared, b: shared });
    expect(text).not.toMatch(/[&*]a\d/);
    expect(parse(text)).toEqual({ a: shared, b: shared });
  });
});
