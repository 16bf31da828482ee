import { describe, expect, it } from 'vitest';
import { isInvalidInputError } from '../errors/invalid-input-error.js';
import { assertValidSettings } from './assert-valid-settings.js';
import type { ResolvedTarget } from './resolved-target.js';

const target: ResolvedTarget = {
  name: 'agent',
  provider: 'echo',
  settings: {},
  filePath: '/project/.agentv/targets.yaml',
  baseDir: '/project/.agentv',
  line: 3,
  positions: { '': { line: 3, column: 5 } },
};

function thrown(run: () => void): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('assertValidSettings', () => {
  it('returns when the issues hold no error: warnings do not stop a target', () => {
    expect(() =>
      assertValidSettings(target, [{ severity: 'warning', path: ['x'], message: 'unknown key' }]),
    ).not.toThrow();
  });

  it("throws every error, located at the target and named after it, the setting's path leading", () => {
    const error = thrown(() =>
      assertValidSettings(target, [
        { severity: 'error', path: ['healthcheck', 'url'], message: 'is required', hint: 'add it' },
        { severity: 'warning', path: ['x'], message: 'unknown key' },
        { severity: 'error', message: 'no settings path' },
      ]),
    );
    expect(isInvalidInputError(error)).toBe(true);
    if (!isInvalidInputError(error)) return;
    expect(error.issues).toEqual([
      expect.objectContaining({
        severity: 'error',
        file: '/project/.agentv/targets.yaml',
        line: 3,
        column: 5,
        target: 'agent',
        message: 'healthcheck.url: is required',
        hint: 'add it',
      }),
      expect.objectContaining({ target: 'agent', line: 3, message: 'no settings path' }),
    ]);
  });

  it('falls back to the target line when no position was recorded', () => {
    const { positions: _, ...unplaced } = target;
    const error = thrown(() =>
      assertValidSettings(unplaced, [{ severity: 'error', path: ['cwd'], message: 'is missing' }]),
    );
    expect(isInvalidInputError(error) && error.issues[0]).toMatchObject({ line: 3 });
  });
});
