import type { Provider, ResolvedTarget, RunEvaluationOptions } from '@agentv/core';

/**
 * One provider per target for several `runEvaluation` calls over the same plan
 * (the repeats of `--repeat N`): a persistent `cli` target's processes start
 * once, not once per repeat, and a health check runs once. `create` hands each
 * run a view whose `close` does nothing; `close` stops the real providers.
 */
export function shareProviders(options: RunEvaluationOptions): {
  create: (target: ResolvedTarget) => Provider;
  close: () => Promise<void>;
} {
  const providers = new Map<string, Provider>();
  const views = new Map<string, Provider>();
  return {
    create: (target) => {
      const existing = views.get(target.name);
      if (existing) return existing;
      const provider = options.createProvider
        ? options.createProvider(target)
        : options.providerRegistry.create(target, options.providerContext);
      providers.set(target.name, provider);
      const view = keptOpen(provider);
      views.set(target.name, view);
      return view;
    },
    close: async () => {
      await Promise.allSettled([...providers.values()].map((provider) => provider.close?.()));
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
