import type { Evaluator } from './evaluator.js';
import {
  askJudgeJson,
  DEFAULT_CONVERSATION_JUDGE_PROMPT,
  DEFAULT_JUDGE_PROMPT,
  judgeVariables,
  loadPromptTemplate,
  parseScoreReply,
  renderTemplate,
  SCORE_REPLY_CONTRACT,
  validatePrompt,
} from './judge-prompt.js';
import { gradeRubric, hasRubricItems, validateRubricItems } from './rubric.js';

/**
 * `llm_judge`: asks the judge target to grade the answer with the default
 * prompt or `prompt` (inline template text, or a file relative to the eval
 * file) and reads `{score, hits, misses, reasoning}` from its reply. With
 * `rubrics:` it grades like `rubric` (as AgentV 1.x does).
 */
export const llmJudgeEvaluator: Evaluator = {
  type: 'llm_judge',
  options: ['prompt', 'rubrics'],
  needsJudge: true,
  validate(config) {
    return [...validatePrompt(config.prompt), ...validateRubricItems(config.rubrics, false)];
  },
  async evaluate(config, context) {
    if (hasRubricItems(config.rubrics)) return gradeRubric(config, context);
    const whole = context.conversation !== undefined && context.conversation.turn === undefined;
    const template = await loadPromptTemplate(
      config.prompt,
      context,
      whole ? DEFAULT_CONVERSATION_JUDGE_PROMPT : DEFAULT_JUDGE_PROMPT,
    );
    const prompt = renderTemplate(template, judgeVariables(context));
    return askJudgeJson(context, prompt, SCORE_REPLY_CONTRACT, parseScoreReply);
  },
};
