import { describe, expect, it } from 'vitest';
import { classifyFailureText } from './classify-failure.js';

describe('classifyFailureText', () => {
  it('tells a refused key and an unknown model from other failures', () => {
    for (const text of [
      'unexpected status 401 Unauthorized: Incorrect API key provided',
      'API Error: 403 forbidden',
      'Invalid API key · Please run /login',
      'API key not valid. Please pass a valid API key.',
    ]) {
      expect(classifyFailureText(text), text).toBe('auth');
    }
    for (const text of [
      'unexpected status 404 Not Found: The model `gpt-nope` does not exist',
      'model_not_found',
      'Requested entity was not found: models/gemini-9 is not found',
      'The model gpt-x is not supported when using Codex with a ChatGPT account',
    ]) {
      expect(classifyFailureText(text), text).toBe('model_not_found');
    }
    expect(classifyFailureText('stream disconnected before completion')).toBe('agent_error');
    expect(classifyFailureText('unexpected status 500 Internal Server Error')).toBe('agent_error');
  });
});
