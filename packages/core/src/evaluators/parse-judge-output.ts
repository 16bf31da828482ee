import { z } from 'zod';
import { parseJsonObject } from '../util/records.js';
import type { EvaluationScore } from './evaluator.js';
import { EvaluatorError } from './evaluator-error.js';
import { capJudgeItems } from './judge-items.js';

/** What a code judge must print: one JSON object. */
export const judgeOutputSchema = z.object({
  score: z.number(),
  hits: z.array(z.string()).nullish(),
  misses: z.array(z.string()).nullish(),
  reasoning: z.string().nullish(),
});

const EXPECTED =
  'expected one JSON object {"score": number, "hits"?: [...], "misses"?: [...], "reasoning"?: "..."} on stdout';

/**
 * Reads a judge's stdout: the whole output when it is one JSON object, else
 * the last non-empty line that is a JSON object (earlier lines may be logs).
 * Throws `EvaluatorError` naming `label` with an excerpt of the output when
 * there is no such object or it has the wrong shape. Hits and misses are capped
 * as an LLM judge's are (`capJudgeItems`); the score is as printed (the grader
 * run clamps it to 0–1 and warns when it was outside).
 */
export function parseJudgeOutput(stdout: string, label: string): EvaluationScore {
  const text = stdout.trim();
  if (text === '') throw new EvaluatorError(`${label} printed nothing; ${EXPECTED}`);
  const candidate = findJsonObject(text);
  if (candidate === undefined) {
    throw new EvaluatorError(
      `${label} printed no JSON object; ${EXPECTED}; it printed: ${excerpt(text)}`,
    );
  }
  const parsed = judgeOutputSchema.safeParse(candidate.value);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .map(
        (issue) => `${issue.path.length > 0 ? issue.path.join('.') : 'output'}: ${issue.message}`,
      )
      .join('; ');
    throw new EvaluatorError(
      `${label} printed a result of the wrong shape (${problems}); ${EXPECTED}; it printed: ${excerpt(candidate.text)}`,
    );
  }
  const { score, hits, misses, reasoning } = parsed.data;
  return {
    score,
    hits: capJudgeItems(hits ?? []),
    misses: capJudgeItems(misses ?? []),
    ...(reasoning == null ? {} : { reasoning }),
  };
}

function findJsonObject(
  text: string,
): { value: Record<string, unknown>; text: string } | undefined {
  const candidates = [text, ...text.split(/\r?\n/).reverse()];
  for (const candidate of candidates) {
    const value = parseJsonObject(candidate);
    if (value) return { value, text: candidate.trim() };
  }
  return undefined;
}

function excerpt(text: string, max = 200): string {
  const oneLine = text.replace(/\s+/g, ' ');
  return oneLine.length > max ? `${oneLine.slice(0, max - 3)}...` : oneLine;
}
