export {
  codeJudgeEvaluator,
  DEFAULT_CODE_JUDGE_TIMEOUT_SECONDS,
} from './code-judge.js';
export type { CodeJudgeMessage, CodeJudgePayload } from './code-judge-payload.js';
export { buildCodeJudgePayload } from './code-judge-payload.js';
export { containsEvaluator } from './contains.js';
export { equalsEvaluator } from './equals.js';
export type { EvaluatorRegistry } from './evaluator.js';
export { createEvaluatorRegistry, defaultEvaluators } from './evaluator-registry.js';
export type { CaseGrade, GradeCaseOptions } from './grade-case.js';
export { gradeCase } from './grade-case.js';
export { isJsonEvaluator } from './is-json.js';
export { regexEvaluator } from './regex.js';
export { toolTrajectoryEvaluator } from './tool-trajectory.js';
export { BORDERLINE_SCORE, PASS_SCORE, verdictFor } from './verdict.js';
export { compositeEvaluator, DEFAULT_AGGREGATOR_PROMPT } from './composite.js';
export { extractJudgeJson } from './extract-judge-json.js';
export type { Judge, JudgeRequest } from './evaluator.js';
export { createJudge, needsJudge } from './judge.js';
export {
  DEFAULT_JUDGE_PROMPT,
  JUDGE_PROMPT_VARIABLES,
  MAX_JUDGE_ITEMS,
  renderTemplate,
} from './judge-prompt.js';
export { jsonSchemaEvaluator } from './json-schema.js';
export { llmJudgeEvaluator } from './llm-judge.js';
export type { RubricItemOutcome } from './rubric.js';
export { rubricEvaluator } from './rubric.js';
