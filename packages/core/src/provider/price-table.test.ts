import { describe, expect, it } from 'vitest';
import { estimateCostUsd, lookupPrice } from './price-table.js';

describe('lookupPrice', () => {
  it('finds models with date stamps and vendor prefixes, the most specific name first', () => {
    expect(lookupPrice('gpt-4o-2024-08-06')).toEqual({ inputPerMtok: 2.5, outputPerMtok: 10 });
    expect(lookupPrice('gpt-4o-mini')).toEqual({ inputPerMtok: 0.15, outputPerMtok: 0.6 });
    expect(lookupPrice('openai/gpt-4o-mini-2024-07-18')).toEqual({
      inputPerMtok: 0.15,
      outputPerMtok: 0.6,
    });
    expect(lookupPrice('claude-3-5-haiku-20241022')).toEqual({
      inputPerMtok: 0.8,
      outputPerMtok: 4,
    });
    expect(lookupPrice('claude-sonnet-4-5-20250929')).toEqual({
      inputPerMtok: 3,
      outputPerMtok: 15,
    });
  });

  it('knows nothing of unlisted models or other variants of listed ones', () => {
    expect(lookupPrice('llama3.1:8b')).toBeUndefined();
    expect(lookupPrice('gpt-4o-audio-preview')).toBeUndefined();
  });
});

describe('estimateCostUsd', () => {
  it('prices input and output tokens per million', () => {
    expect(estimateCostUsd('gpt-4o-mini', { inputTokens: 1_000_000, outputTokens: 500_000 })).toBe(
      0.45,
    );
  });

  it("uses the target's pricing over the table", () => {
    expect(
      estimateCostUsd(
        'gpt-4o-mini',
        { inputTokens: 1000, outputTokens: 1000 },
        { inputPerMtok: 1, outputPerMtok: 2 },
      ),
    ).toBe(0.003);
    expect(
      estimateCostUsd(
        'my-local-model',
        { inputTokens: 1000 },
        { inputPerMtok: 1, outputPerMtok: 2 },
      ),
    ).toBe(0.001);
  });

  it('is undefined, never 0, when the price or the token counts are unknown', () => {
    expect(estimateCostUsd('llama3.1', { inputTokens: 10, outputTokens: 10 })).toBeUndefined();
    expect(estimateCostUsd('gpt-4o', {})).toBeUndefined();
  });
});
