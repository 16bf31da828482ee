import type { ProviderContext } from './provider-factory.js';
import type { ResolvedTarget } from './resolved-target.js';

/**
 * What a provider gets besides its settings, in every provider package's
 * `create…Provider(settings, options)`: the run's context and the target served.
 */
export interface ProviderOptions extends ProviderContext {
  /** The target the provider serves; named in its id, `--verbose` lines and errors. */
  targetName: string;
  /**
   * Values to mask as `***` in logs, errors and `raw`: what the target's
   * `${{ VAR }}` placeholders were replaced with (they often hold API keys).
   */
  secretValues?: readonly string[];
}

/** The `ProviderOptions` of `target` in a run's `context`: what a factory's `create` passes on. */
export function providerOptions(target: ResolvedTarget, context: ProviderContext): ProviderOptions {
  return {
    ...context,
    targetName: target.name,
    ...(target.secretValues === undefined ? {} : { secretValues: target.secretValues }),
  };
}
