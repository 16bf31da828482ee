export type { CodeJudgeEvaluatorOptions } from './code-judge.js';
export {
  codeJudgeEvaluator,
  createCodeJudgeEvaluator,
  DEFAULT_CODE_JUDGE_TIMEOUT_SECONDS,
} from './code-judge.js';
export type { CodeJudgeMessage, CodeJudgePayload } from './code-judge-payload.js';
export { buildCodeJudgePayload } from './code-judge-payload.js';
export { containsEvaluator } from './contains.js';
export { equalsEvaluator } from './equals.js';
export type { EvaluatorRegistry } from './evaluator-registry.js';
export { createEvaluatorRegistry, defaultEvaluators } from './evaluator-registry.js';
export type { CaseGrade, GradeCaseOptions } from './grade-case.js';
export { gradeCase } from './grade-case.js';
export { isJsonEvaluator } from './is-json.js';
export { regexEvaluator } from './regex.js';
export { toolTrajectoryEvaluator } from './tool-trajectory.js';
export { BORDERLINE_SCORE, PASS_SCORE, verdictFor } from './verdict.js';
