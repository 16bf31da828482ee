import { createProviderRegistry, type ProviderRegistry } from '@agentv/core';
import { mockProviderFactory } from '@agentv/core/test';
import { cliProviderFactory } from '@agentv/provider-cli';
import { codingAgentProviderFactories } from '@agentv/provider-coding-agents';
import { httpProviderFactory } from '@agentv/provider-http';
import { llmProviderFactories } from '@agentv/provider-llm';

/**
 * The only place providers are registered. To add a provider, add its package
 * to this app's dependencies and its factory to this list.
 */
export function createAppProviderRegistry(): ProviderRegistry {
  return createProviderRegistry([
    cliProviderFactory,
    httpProviderFactory,
    mockProviderFactory,
    ...llmProviderFactories,
    ...codingAgentProviderFactories,
  ]);
}
