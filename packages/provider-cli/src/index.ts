// The public API of @agentv/provider-cli: named exports only.
export type { CliProviderOptions } from './cli-provider.js';
export { cliProviderFactory, createCliProvider } from './cli-provider.js';
export type {
  CliCommandHealthcheck,
  CliHealthcheck,
  CliHttpHealthcheck,
  CliProviderSettings,
} from './cli-provider-settings.js';
export { DEFAULT_CLI_TIMEOUT_SECONDS } from './cli-provider-settings.js';
