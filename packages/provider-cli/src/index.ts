export type { CliProviderOptions } from './cli-provider.js';
export { cliProviderFactory, createCliProvider } from './cli-provider.js';
export type {
  CliCommandHealthcheck,
  CliHealthcheck,
  CliHttpHealthcheck,
  CliProviderSettings,
} from './cli-provider-settings.js';
export { parseCliSettings, validateCliSettings } from './cli-provider-settings.js';
export { parseCliOutput } from './parse-output.js';
export type { Placeholder, PlaceholderValues } from './render-command-template.js';
export { renderCommandTemplate, SUPPORTED_PLACEHOLDERS } from './render-command-template.js';
export { shellQuote } from './shell-quote.js';
