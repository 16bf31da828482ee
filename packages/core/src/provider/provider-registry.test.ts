import { describe, expect, it } from 'vitest';
import { AgentvError } from '../errors/agentv-error.js';
import { mockProviderFactory } from './mock-provider.js';
import type { Provider } from './provider.js';
import type { ProviderFactory } from './provider-factory.js';
import { createProviderRegistry } from './provider-registry.js';
import type { ResolvedTarget } from './resolved-target.js';

function target(provider: string): ResolvedTarget {
  return { name: 'agent', provider, settings: {}, filePath: '/t.yaml', baseDir: '/' };
}

/** A factory whose providers claim `version` of the contract. */
function factoryClaiming(kind: string, version: unknown): ProviderFactory {
  return {
    kind,
    create: (resolved) =>
      ({
        specificationVersion: version,
        id: `${kind}:${resolved.name}`,
        kind,
        targetName: resolved.name,
        invoke: async () => ({ text: 'ok' }),
      }) as unknown as Provider,
  };
}

describe('ProviderRegistry.create', () => {
  it('creates providers of the current contract version', () => {
    const registry = createProviderRegistry([mockProviderFactory]);
    expect(registry.create(target('mock')).specificationVersion).toBe('v1');
  });

  it('refuses a provider of another contract version, naming its kind and target', () => {
    const registry = createProviderRegistry([
      factoryClaiming('future', 'v2'),
      factoryClaiming('ancient', undefined),
    ]);
    const error = (() => {
      try {
        registry.create(target('future'));
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(AgentvError);
    expect((error as AgentvError).message).toBe(
      'provider "future" (target "agent") implements version "v2" of the provider contract; this AgentV needs "v1"',
    );
    expect((error as AgentvError).hint).toContain('"future" provider package');
    expect(() => registry.create(target('ancient'))).toThrow(
      'provider "ancient" (target "agent") implements no version of the provider contract',
    );
  });
});
