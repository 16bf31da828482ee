import type { EvalCase } from '@agentv/core';

/**
 * Keeps the cases whose id matches any of `patterns` (`*` and `?` wildcards,
 * whole id). With no patterns every case is kept.
 */
export function filterCasesById(
  cases: readonly EvalCase[],
  patterns: readonly string[],
): EvalCase[] {
  if (patterns.length === 0) return [...cases];
  const matchers = patterns.map(wildcardToRegExp);
  return cases.filter((evalCase) => matchers.some((matcher) => matcher.test(evalCase.id)));
}

/**
 * Keeps the cases that have any of `include` (every case when it is empty)
 * and none of `exclude`. Tags are compared exactly.
 */
export function filterCasesByTags(
  cases: readonly EvalCase[],
  include: readonly string[],
  exclude: readonly string[],
): EvalCase[] {
  if (include.length === 0 && exclude.length === 0) return [...cases];
  return cases.filter((evalCase) => {
    const tags = evalCase.tags ?? [];
    if (include.length > 0 && !include.some((tag) => tags.includes(tag))) return false;
    return !exclude.some((tag) => tags.includes(tag));
  });
}

function wildcardToRegExp(pattern: string): RegExp {
  const source = pattern
    .split('')
    .map((char) =>
      char === '*' ? '.*' : char === '?' ? '.' : char.replace(/[.+^${}()|[\]\\]/g, '\\$&'),
    )
    .join('');
  return new RegExp(`^${source}$`);
}
