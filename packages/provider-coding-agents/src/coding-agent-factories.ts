import type { ProviderFactory } from '@agentv/core/provider-utils';
import { codexProviderFactory } from './codex/codex-provider.js';

/** Every coding-agent provider of this package, aliases included, for the app's registry. */
export const codingAgentProviderFactories: readonly ProviderFactory[] = [codexProviderFactory];
