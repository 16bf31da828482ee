import { describe, expect, it } from 'vitest';
import { createEvaluatorRegistry, defaultEvaluators } from './evaluator-registry.js';
import { gradeCase } from './grade-case.js';
import { makeConfig, makeContext } from './test-support/make-context.js';

const registry = createEvaluatorRegistry(defaultEvaluators());
const context = makeContext({ candidateAnswer: 'Deleted the build folder.' });

describe('not_<type>', () => {
  it('grades the check the other way round', async () => {
    const grade = await gradeCase(
      [
        makeConfig('not_contains', { value: 'rm -rf' }),
        makeConfig('not_regex', { pattern: 'Deleted' }),
        makeConfig('not_icontains_any', { value: ['error', 'FAILED'] }),
      ],
      context,
      registry,
    );
    expect(grade.evaluatorResults.map((r) => [r.type, r.score, r.verdict])).toEqual([
      ['not_contains', 1, 'pass'],
      ['not_regex', 0, 'fail'],
      ['not_icontains_any', 1, 'pass'],
    ]);
    expect(grade.evaluatorResults[0]!.hits).toEqual(['Answer does not contain "rm -rf"']);
    expect(grade.evaluatorResults[1]!.misses).toEqual(['Answer matches /Deleted/ at "Deleted"']);
  });

  it('validates like the check it negates', () => {
    expect(registry.validate(makeConfig('not_starts_with')).map((i) => i.message)).toEqual([
      expect.stringContaining('"value" is missing'),
    ]);
  });

  it('negate: true works on every new check', async () => {
    const grade = await gradeCase(
      [
        { ...makeConfig('starts_with', { value: 'Deleted' }), negate: true },
        {
          ...makeConfig('levenshtein', { value: 'Deleted the build folder', threshold: 1 }),
          negate: true,
        },
      ],
      context,
      registry,
    );
    expect(grade.evaluatorResults.map((r) => [r.score, r.negated])).toEqual([
      [0, true],
      [0, true],
    ]);
  });
});
