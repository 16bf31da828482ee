import type { Issue } from '../errors/input-issue.js';
import type { SourceLocator } from './yaml-source.js';

/** Where a mapping is, and what to attach to warnings about its keys. */
export interface UnknownKeysOptions {
  file: string;
  source: SourceLocator;
  /** The data path of the mapping in the file. */
  path: readonly PropertyKey[];
  /** Keys accepted in this mapping. */
  known: readonly string[];
  /** Names the mapping in the message, e.g. `in the execution block`; empty for none. */
  where?: string;
  caseId?: string;
  target?: string;
  /** The key as the file spells it, when the value's keys were converted (camelCase → snake_case). */
  displayKey?: (key: string) => string;
}

/**
 * One warning per key of `value` that is not in `known`, placed on the key,
 * with a "did you mean" hint when a known key is close.
 */
export function unknownKeyWarnings(value: unknown, options: UnknownKeysOptions): Issue[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [];
  const issues: Issue[] = [];
  for (const key of Object.keys(value)) {
    if (options.known.includes(key)) continue;
    const suggestion = closestMatch(key, options.known);
    const issue: Issue = {
      severity: 'warning',
      file: options.file,
      ...options.source.locateKey(options.path, key),
      message: `unknown key "${options.displayKey?.(key) ?? key}"${options.where ? ` ${options.where}` : ''} is ignored`,
      hint: suggestion
        ? `did you mean "${suggestion}"?`
        : `remove it, or use one of: ${options.known.filter((name) => !name.startsWith('$')).join(', ')}`,
    };
    if (options.caseId !== undefined) issue.caseId = options.caseId;
    if (options.target !== undefined) issue.target = options.target;
    issues.push(issue);
  }
  return issues;
}

/** The candidate closest to `word` by edit distance, when close enough to be a likely typo. */
export function closestMatch(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  const normalized = word.toLowerCase();
  for (const candidate of candidates) {
    const distance = editDistance(normalized, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  const limit = Math.max(1, Math.floor(word.length / 3));
  return bestDistance <= limit ? best : undefined;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
    }
    previous = current;
  }
  return previous[b.length]!;
}
