// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are ${{ NAME }} placeholders of targets files, not JS templates
import { describe, expect, it } from 'vitest';
import { describeMissingVariables, interpolateEnv } from './interpolate-env.js';

describe('interpolateEnv', () => {
  it('replaces placeholders with or without spaces, anywhere in nested strings', () => {
    const result = interpolateEnv(
      {
        url: 'https://${{HOST}}:${{ PORT }}/v1',
        env: { TOKEN: 'Bearer ${{  TOKEN  }}' },
        args: ['--key', '${{ TOKEN }}'],
        count: 3,
      },
      { HOST: 'example.test', PORT: '8443', TOKEN: 'secret' },
    );
    expect(result).toEqual({
      value: {
        url: 'https://example.test:8443/v1',
        env: { TOKEN: 'Bearer secret' },
        args: ['--key', 'secret'],
        count: 3,
      },
      missing: [],
      // What was put in, each once, so providers can mask it as a possible secret.
      substituted: ['example.test', '8443', 'secret'],
    });
  });

  it('leaves unset placeholders as written and lists each unset name once, sorted', () => {
    const result = interpolateEnv(
      { a: '${{ ZED }} ${{ ALPHA }}', b: '${{ ZED }}', c: '${{ EMPTY }}' },
      { EMPTY: '' },
    );
    expect(result.value).toEqual({ a: '${{ ZED }} ${{ ALPHA }}', b: '${{ ZED }}', c: '' });
    expect(result.missing).toEqual(['ALPHA', 'ZED']);
  });

  it('does not touch keys or text that only looks similar', () => {
    const result = interpolateEnv(
      { '${{ KEY }}': '${ NAME } {{ NAME }} $NAME' },
      { KEY: 'k', NAME: 'n' },
    );
    expect(result.value).toEqual({ '${{ KEY }}': '${ NAME } {{ NAME }} $NAME' });
  });
});

describe('describeMissingVariables', () => {
  it('names the target and every unset variable', () => {
    expect(describeMissingVariables({ name: 'judge', missingVariables: ['A_KEY', 'B_URL'] })).toBe(
      'target "judge" needs environment variable(s) A_KEY, B_URL, which are not set',
    );
    expect(describeMissingVariables({ name: 'ok' })).toBe('');
  });
});
