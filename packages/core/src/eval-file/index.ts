export { findRepoRoot } from '../util/find-repo-root.js';
export { matchesAnyGlob, matchesGlob } from '../util/glob-match.js';
export type { LoadResult } from '../util/load-result.js';
export { hasErrors, uniqueIssues } from '../util/load-result.js';
export type { RubricItem } from './eval-case.js';
export type {
  EvalCaseInput,
  EvalFileInput,
  EvaluatorEntryInput,
  MessageInput,
  RubricInput,
} from './eval-file-schema.js';
export {
  evalCaseSchema,
  evalFileSchema,
  evaluatorEntrySchema,
  MESSAGE_ROLES,
  messageSchema,
} from './eval-file-schema.js';
export type { LoadEvalFileOptions } from './load-eval-file.js';
export { loadEvalFile } from './load-eval-file.js';
