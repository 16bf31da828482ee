import { describe, expect, it } from 'vitest';
import { callLabel } from './call-label.js';
import { callTimeout, describeCallTimeout } from './call-timeout.js';

describe('callTimeout', () => {
  it('--agent-timeout wins over timeout_seconds, and the hint then names only the flag', () => {
    expect(callTimeout(30, { defaultTimeoutSeconds: 1 })).toEqual({
      seconds: 1,
      fromFlag: true,
      fromDefault: false,
      hint: "raise --agent-timeout (it wins over the target's timeout_seconds)",
    });
    expect(callTimeout(1, { defaultTimeoutSeconds: 30 }).seconds).toBe(30);
  });

  it("uses the target's timeout_seconds without the flag, and names both ways to raise it", () => {
    expect(callTimeout(5, {})).toEqual({
      seconds: 5,
      fromFlag: false,
      fromDefault: false,
      hint: 'raise timeout_seconds on the target (or pass --agent-timeout)',
    });
    expect(callTimeout(undefined, {}).seconds).toBeUndefined();
  });

  it("applies the provider's default when neither the flag nor timeout_seconds is given", () => {
    expect(callTimeout(undefined, {}, 600)).toEqual({
      seconds: 600,
      fromFlag: false,
      fromDefault: true,
      hint: 'set timeout_seconds on the target (without it a call may take 600 s), or pass --agent-timeout',
    });
    // The target's timeout_seconds and --agent-timeout both win over the default.
    expect(callTimeout(5, {}, 600).seconds).toBe(5);
    expect(callTimeout(undefined, { defaultTimeoutSeconds: 2 }, 600).seconds).toBe(2);
    expect(callTimeout(5, {}, 600).fromDefault).toBe(false);
  });

  it('says where a limit comes from, for --verbose', () => {
    expect(describeCallTimeout(callTimeout(undefined, {}, 600))).toBe(
      "600 s (the provider's default; set timeout_seconds to change it)",
    );
    expect(describeCallTimeout(callTimeout(30, {}, 600))).toBe('30 s (timeout_seconds)');
    expect(describeCallTimeout(callTimeout(30, { defaultTimeoutSeconds: 2 }))).toBe(
      '2 s (--agent-timeout)',
    );
    expect(describeCallTimeout(callTimeout(undefined, {}))).toBe(
      'none (set timeout_seconds to limit each call)',
    );
  });
});

describe('callLabel', () => {
  it('names the case and the attempt counted from 1', () => {
    expect(callLabel({ evalCaseId: 'refund-001', attempt: 0 })).toBe('refund-001 attempt 1');
    expect(callLabel({ evalCaseId: 'refund-001', attempt: 2 })).toBe('refund-001 attempt 3');
  });
});
