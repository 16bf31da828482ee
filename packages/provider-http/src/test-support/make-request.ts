import type { ProviderRequest } from '@agentv/core/provider-utils';

/** A request for one case; `question` may hold quotes and newlines to test escaping. */
export function makeRequest(overrides: Partial<ProviderRequest> = {}): ProviderRequest {
  const question = overrides.question ?? 'Where is my "refund"?\nOrder #42';
  return {
    evalCaseId: 'refund-1',
    attempt: 0,
    question,
    chatPrompt: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: question },
    ],
    guidelines: 'Be brief.',
    guidelineFiles: ['/project/guide.md'],
    inputFiles: ['/project/order.json'],
    evalDir: '/project/evals',
    ...overrides,
  };
}
