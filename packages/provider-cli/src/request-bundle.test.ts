import type { ProviderRequest } from '@agentv/core/provider-utils';
import { describe, expect, it } from 'vitest';
import { requestRecord } from './placeholder-values.js';
import { requestLine } from './request-bundle.js';

const base: ProviderRequest = {
  evalCaseId: 'c1',
  attempt: 0,
  question: 'What is "2 + 2"?\n',
  chatPrompt: [],
  guidelines: '',
  guidelineFiles: [],
  inputFiles: [],
};

describe('requestLine', () => {
  it('is the JSON of the request record, with and without the optional fields', () => {
    const requests: ProviderRequest[] = [
      base,
      {
        ...base,
        chatPrompt: [
          { role: 'system', content: 'be brief' },
          { role: 'user', name: 'ann', content: 'é 😀' },
        ],
        guidelines: '<file path="g.md">\nrules\n</file>',
        guidelineFiles: ['/repo/g.md'],
        inputFiles: ['/repo/a.txt', '/repo/b.txt'],
        expectedOutcome: 'says 4',
      },
    ];
    for (const request of requests) {
      expect(requestLine(request)).toBe(JSON.stringify(requestRecord(request)));
    }
  });
});
