import type { ProviderRequest } from './provider-request.js';

/**
 * How a provider's `--verbose` lines name the call they are about: `refund-001 attempt 1`.
 * With several workers lines of different cases interleave, so every line of a call
 * starts with its provider tag and this label (`[http:agent] refund-001 attempt 1: …`).
 * Attempts are counted from 1, as everywhere a user sees them (`request.attempt` is 0-based).
 */
export function callLabel(request: Pick<ProviderRequest, 'evalCaseId' | 'attempt'>): string {
  return `${request.evalCaseId} attempt ${request.attempt + 1}`;
}
