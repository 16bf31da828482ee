import type { ProviderFactory } from '@agentv/core/provider-utils';
import {
  claudeCodeAliasFactories,
  claudeCodeProviderFactory,
} from './claude-code/claude-code-provider.js';
import { codexProviderFactory } from './codex/codex-provider.js';
import {
  copilotCliAliasFactories,
  copilotCliProviderFactory,
} from './copilot-cli/copilot-cli-provider.js';
import { geminiCliProviderFactory } from './gemini-cli/gemini-cli-provider.js';
import { opencodeProviderFactory } from './opencode/opencode-provider.js';

/** Every coding-agent provider of this package, aliases included, for the app's registry. */
export const codingAgentProviderFactories: readonly ProviderFactory[] = [
  codexProviderFactory,
  claudeCodeProviderFactory,
  ...claudeCodeAliasFactories,
  geminiCliProviderFactory,
  opencodeProviderFactory,
  copilotCliProviderFactory,
  ...copilotCliAliasFactories,
];
