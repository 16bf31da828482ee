import { describe, expect, it } from 'vitest';
import { sandboxPathOf } from './in-sandbox.js';

describe('sandboxPathOf', () => {
  const host = '/tmp/agentv-run/exchange-1';
  it('moves paths under the mounted folder to where the sandbox sees them', () => {
    expect(sandboxPathOf(host, host, '/agentv')).toBe('/agentv');
    expect(sandboxPathOf(`${host}/codex-home-x/codex`, host, '/agentv')).toBe(
      '/agentv/codex-home-x/codex',
    );
  });

  it('leaves every other value as it is', () => {
    for (const value of [`${host}-other/x`, '/workspace', 'gpt-5', `--dir=${host}/x`, '']) {
      expect(sandboxPathOf(value, host, '/agentv')).toBe(value);
    }
  });
});
