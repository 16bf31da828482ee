import type { ProviderRequest } from '@agentv/core/provider-utils';

/** A request for one eval case, as the orchestrator builds it. */
export function makeRequest(overrides: Partial<ProviderRequest> = {}): ProviderRequest {
  const question = overrides.question ?? 'What is 2+2?';
  return {
    evalCaseId: 'case-1',
    attempt: 0,
    question,
    chatPrompt: [{ role: 'user', content: question }],
    guidelines: '',
    guidelineFiles: [],
    inputFiles: [],
    ...overrides,
  };
}
