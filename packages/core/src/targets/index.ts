export type { Interpolated } from './interpolate-env.js';
export { describeMissingVariables, interpolateEnv } from './interpolate-env.js';
export type { DotEnvResult, LoadDotEnvOptions } from './load-dotenv.js';
export { loadDotEnv } from './load-dotenv.js';
export type { LoadTargetsOptions } from './load-targets.js';
export { findTargetsFile, loadTargetsFile } from './load-targets.js';
export { parseDotEnv } from './parse-dotenv.js';
export { toSnakeCase } from './snake-case-keys.js';
export type { TargetInput } from './targets-schema.js';
export {
  COMMON_TARGET_KEYS,
  TARGETS_SCHEMA_VERSIONS,
  targetSchema,
  targetsFileSchema,
} from './targets-schema.js';
