import { describe, expect, it } from 'vitest';
import { createSecretMask } from './mask-secrets.js';

describe('createSecretMask', () => {
  it('masks every occurrence, the longer of two overlapping secrets whole', () => {
    const mask = createSecretMask(['sk-abcdef', 'sk-abcdef-123456'])!;
    expect(mask.text('a sk-abcdef-123456 b sk-abcdef c')).toBe('a *** b *** c');
  });

  it('leaves short values alone and gives no mask when nothing is left', () => {
    expect(createSecretMask(['on', '1', ''])).toBeUndefined();
    expect(createSecretMask(['on', 'long-token'])!.text('on long-token')).toBe('on ***');
  });

  it('masks strings deep inside objects and arrays without changing the input', () => {
    const mask = createSecretMask(['s3cr3t-value'])!;
    const trace = [{ type: 'tool_call', input: { header: 'Bearer s3cr3t-value' } }];
    const clean = { type: 'message', output: 'nothing here' };
    const input = { answer: 'key is s3cr3t-value', score: 1, trace, other: [clean], when: null };
    const masked = mask.deep(input);
    expect(masked).toEqual({
      answer: 'key is ***',
      score: 1,
      trace: [{ type: 'tool_call', input: { header: 'Bearer ***' } }],
      other: [clean],
      when: null,
    });
    expect(input.answer).toBe('key is s3cr3t-value');
    expect(trace[0]!.input.header).toBe('Bearer s3cr3t-value');
    // Parts without a secret are shared, not copied.
    expect(masked.other).toBe(input.other);
    expect(mask.deep(clean)).toBe(clean);
  });
});
