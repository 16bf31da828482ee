import { ProviderError } from '@agentv/core/provider-utils';
import { expect } from 'vitest';

/** The `ProviderError` a provider call rejects with; fails the test when it resolves or throws anything else. */
export async function providerFailure(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}
