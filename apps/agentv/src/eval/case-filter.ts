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

function wildcardToRegExp(pattern: string): RegExp {
  const source = pattern
    .split('')
    .map((char) =>
      char === '*' ? '.*' : char === '?' ? '.' : char.replace(/[.+^${}()|[\]\\]/g, '\\$&'),
    )
    .join('');
  return new RegExp(`^${source}$`);
}
