export type { TargetPolicy } from './check-target.js';
export { checkTarget, RUN_TARGET_POLICY, targetSettingsIssue } from './check-target.js';
export type {
  EvalFilesLoader,
  LoadedProject,
  LoadProjectOptions,
  ProjectEvalFile,
} from './load-project.js';
export { displayPath, knownSettingsKeys, loadProject } from './load-project.js';
