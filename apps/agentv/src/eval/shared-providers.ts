import type { RunEvaluationOptions } from '@agentv/core';
import type { ProviderRole } from '@agentv/core/internal';
import type { Provider, ProviderContext, ResolvedTarget } from '@agentv/core/provider-utils';

/**
 * One provider per target and role for several `runEvaluation` calls over the
 * same plan (the repeats of `--repeat N`): a persistent `cli` target's
 * processes start once, not once per repeat, and a health check runs once —
 * for the targets cases run against and for judge targets alike (a judge
 * target that is also a run target keeps a provider of its own, as in a single
 * run). `create` hands each run a view whose `close` does nothing; `close`
 * stops the real providers, each once.
 */
export function shareProviders(options: RunEvaluationOptions): {
  create: (
    target: ResolvedTarget,
    role: ProviderRole,
    context: ProviderContext | undefined,
  ) => Provider;
  close: () => Promise<void>;
} {
  const providers: Provider[] = [];
  const views = new Map<string, Provider>();
  return {
    create: (target, role, context) => {
      const key = `${role}\u0000${target.name}`;
      const existing = views.get(key);
      if (existing) return existing;
      // The context of the run asking (its log masks the run's secrets), not the outer one.
      const provider = options.createProvider
        ? options.createProvider(target, role, context)
        : options.providerRegistry.create(target, context ?? options.providerContext);
      providers.push(provider);
      const view = keptOpen(provider);
      views.set(key, view);
      return view;
    },
    close: async () => {
      const closing = providers.splice(0);
      views.clear();
      await Promise.allSettled(closing.map((provider) => provider.close?.()));
    },
  };
}

function keptOpen(provider: Provider): Provider {
  let health: Promise<void> | undefined;
  return new Proxy(provider, {
    get(real, key) {
      if (key === 'close') return async () => {};
      if (key === 'healthcheck' && real.healthcheck) {
        return () => {
          health ??= real.healthcheck!();
          return health;
        };
      }
      const value = Reflect.get(real, key, real);
      return typeof value === 'function' ? value.bind(real) : value;
    },
  });
}
