import { AgentvError } from '../errors/agentv-error.js';
import type { Issue } from '../errors/input-issue.js';
import { UnknownProviderError } from '../errors/unknown-provider-error.js';
import type { WorkspaceConfig } from '../workspace/workspace-config.js';
import { PROVIDER_SPECIFICATION_VERSION, type Provider } from './provider.js';
import type { ProviderContext, ProviderFactory } from './provider-factory.js';
import type { ResolvedTarget } from './resolved-target.js';

/** Resolves a target's `provider:` value to the factory that creates its provider. */
export interface ProviderRegistry {
  register(factory: ProviderFactory): ProviderRegistry;
  has(kind: string): boolean;
  get(kind: string, targetName: string): ProviderFactory;
  kinds(): string[];
  /** Whether targets of `kind` judge their own answers when no judge is configured (`ProviderFactory.canJudge`). */
  canJudge(kind: string): boolean;
  /** Validate a target's settings with its factory; unknown kinds throw `UnknownProviderError`. */
  validate(target: ResolvedTarget): Issue[];
  /** Problems of using a target for the cases of one eval file (see `ProviderFactory.checkUse`). */
  checkUse(
    target: ResolvedTarget,
    evalFile: string,
    mode?: 'run' | 'validate',
    workspace?: WorkspaceConfig,
  ): Issue[];
  /** Create a target's provider; throws when it implements another contract version. */
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
    canJudge: (kind) => byKind.get(kind)?.canJudge === true,
    validate(target) {
      return registry.get(target.provider, target.name).validate?.(target) ?? [];
    },
    checkUse(target, evalFile, mode = 'run', workspace) {
      // An unknown kind is reported by `validate`; there is nothing more to say about its use.
      return byKind.get(target.provider)?.checkUse?.(target, evalFile, mode, workspace) ?? [];
    },
    create(target, context = {}) {
      const provider = registry.get(target.provider, target.name).create(target, context);
      const version: unknown = provider.specificationVersion;
      if (version !== PROVIDER_SPECIFICATION_VERSION) {
        const implemented = version === undefined ? 'no version' : `version "${String(version)}"`;
        throw new AgentvError(
          `provider "${target.provider}" (target "${target.name}") implements ${implemented} of the provider contract; this AgentV needs "${PROVIDER_SPECIFICATION_VERSION}"`,
          {
            hint: `install a release of the "${target.provider}" provider package built for provider contract ${PROVIDER_SPECIFICATION_VERSION} (the same @agentv/core version as AgentV)`,
          },
        );
      }
      return provider;
    },
  };
  for (const factory of factories) registry.register(factory);
  return registry;
}
