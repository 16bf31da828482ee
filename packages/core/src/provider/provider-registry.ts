import type { Issue } from '../errors/input-issue.js';
import { UnknownProviderError } from '../errors/unknown-provider-error.js';
import type { ResolvedTarget } from '../targets/resolved-target.js';
import type { Provider } from './provider.js';
import type { ProviderContext, ProviderFactory } from './provider-factory.js';

/** Resolves a target's `provider:` value to the factory that creates its provider. */
export interface ProviderRegistry {
  register(factory: ProviderFactory): ProviderRegistry;
  has(kind: string): boolean;
  get(kind: string, targetName: string): ProviderFactory;
  kinds(): string[];
  /** Validate a target's settings with its factory; unknown kinds throw `UnknownProviderError`. */
  validate(target: ResolvedTarget): Issue[];
  /** Problems of using a target for the cases of one eval file (see `ProviderFactory.checkUse`). */
  checkUse(target: ResolvedTarget, evalFile: string): Issue[];
  create(target: ResolvedTarget, context?: ProviderContext): Provider;
}

export function createProviderRegistry(
  factories: readonly ProviderFactory[] = [],
): ProviderRegistry {
  const byKind = new Map<string, ProviderFactory>();
  const registry: ProviderRegistry = {
    register(factory) {
      if (byKind.has(factory.kind)) {
        throw new Error(`provider kind "${factory.kind}" is registered twice`);
      }
      byKind.set(factory.kind, factory);
      return registry;
    },
    has: (kind) => byKind.has(kind),
    get(kind, targetName) {
      const factory = byKind.get(kind);
      if (!factory) throw new UnknownProviderError(kind, targetName, registry.kinds());
      return factory;
    },
    kinds: () => [...byKind.keys()].sort(),
    validate(target) {
      return registry.get(target.provider, target.name).validate?.(target) ?? [];
    },
    checkUse(target, evalFile) {
      // An unknown kind is reported by `validate`; there is nothing more to say about its use.
      return byKind.get(target.provider)?.checkUse?.(target, evalFile) ?? [];
    },
    create(target, context = {}) {
      return registry.get(target.provider, target.name).create(target, context);
    },
  };
  for (const factory of factories) registry.register(factory);
  return registry;
}
