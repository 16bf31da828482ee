export type { AgentvConfig, ConfigFileInput } from './config-schema.js';
export { configFileSchema, DEFAULT_GUIDELINE_PATTERNS } from './config-schema.js';
export { findConfigFile, loadConfigFile } from './load-config.js';
