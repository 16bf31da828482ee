// The public API of @agentv/provider-http: named exports only.
export type { BodyPlaceholder } from './body-template.js';
export { BODY_PLACEHOLDERS } from './body-template.js';
export type { HttpProviderOptions } from './http-provider.js';
export { createHttpProvider, httpProviderFactory } from './http-provider.js';
export type { HttpHealthcheck, HttpMethod, HttpProviderSettings } from './http-settings.js';
