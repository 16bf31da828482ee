import { describe, expect, it } from 'vitest';
import { callLabel } from './call-label.js';
import { callTimeout } from './call-timeout.js';

describe('callTimeout', () => {
  it('--agent-timeout wins over timeout_seconds, and the hint then names only the flag', () => {
    expect(callTimeout(30, { defaultTimeoutSeconds: 1 })).toEqual({
      seconds: 1,
      fromFlag: true,
      hint: "raise --agent-timeout (it wins over the target's timeout_seconds)",
    });
    expect(callTimeout(1, { defaultTimeoutSeconds: 30 }).seconds).toBe(30);
  });

  it("uses the target's timeout_seconds without the flag, and names both ways to raise it", () => {
    expect(callTimeout(5, {})).toEqual({
      seconds: 5,
      fromFlag: false,
      hint: 'raise timeout_seconds on the target (or pass --agent-timeout)',
    });
    expect(callTimeout(undefined, {}).seconds).toBeUndefined();
  });
});

describe('callLabel', () => {
  it('names the case and the attempt counted from 1', () => {
    expect(callLabel({ evalCaseId: 'refund-001', attempt: 0 })).toBe('refund-001 attempt 1');
    expect(callLabel({ evalCaseId: 'refund-001', attempt: 2 })).toBe('refund-001 attempt 3');
  });
});
