import { describeLineProblems } from './describe-line-problems.js';
import { compileQuickCheck } from './quick-check.js';
import { resultLineSchema } from './result-line-schema.js';

const isResultLine = compileQuickCheck(resultLineSchema);

/**
 * Checks one parsed line against the result-line schema, as `readResultFile`
 * does: `undefined` when it is a result line (the value is then usable as a
 * `ResultRecord`, unknown keys kept), else what is wrong with it
 * (`score: missing (expected a number)`). For readers that go line by line.
 */
export function checkResultLine(value: unknown): string | undefined {
  if (isResultLine(value)) return undefined;
  const checked = resultLineSchema.safeParse(value);
  return checked.success ? undefined : describeLineProblems(checked.error.issues, value);
}
