import { AgentvError } from './agentv-error.js';

/** A target names a provider kind that is not registered. */
export class UnknownProviderError extends AgentvError {
  override readonly kind = 'unknown-provider';

  constructor(kind: string, targetName: string, available: readonly string[]) {
    super(`target "${targetName}" uses unknown provider "${kind}"`, {
      hint: `use one of: ${available.join(', ')}`,
    });
  }
}
