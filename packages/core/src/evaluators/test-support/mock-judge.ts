import { createMockProvider } from '../../provider/mock-provider.js';
import type { Judge } from '../evaluator.js';
import { createJudge } from '../judge.js';

/** A judge backed by the real `mock` provider, replying `reply` to every question. */
export function mockJudge(reply: string): Judge {
  return createJudge(createMockProvider('judge', { response: reply }), {
    maxRetries: 0,
    baseDelayMs: 1,
    maxDelayMs: 1,
  });
}
