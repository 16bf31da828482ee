import type { Issue } from '../errors/input-issue.js';
import { closestMatch } from '../util/closest-match.js';
import { isRecord } from '../util/records.js';
import type { SourceLocator } from './yaml-source.js';

/** How a format spells the keys of a mapping (see `UnknownKeysOptions.spelling`). */
export interface KeySpelling {
  /** The keys a misspelt one is matched against. */
  match: readonly string[];
  /** The key a hint names for a match this format writes otherwise (`evaluators` → `assertions`). */
  named?: Readonly<Record<string, string>>;
  /** The keys a hint lists when none is close. */
  list: readonly string[];
}

/** Where a mapping is, and what to attach to warnings about its keys. */
export interface UnknownKeysOptions {
  file: string;
  source: SourceLocator;
  /** The data path of the mapping in the file. */
  path: readonly PropertyKey[];
  /** Keys accepted in this mapping. */
  known: readonly string[];
  /**
   * How the file's format spells this mapping's keys, when not as `known` (a `tests:` file of
   * AgentV 4.x, checked once translated into `known`'s format).
   */
  spelling?: KeySpelling;
  /** Names the mapping in the message, e.g. `in the execution block`; empty for none. */
  where?: string;
  caseId?: string;
  target?: string;
  /** The key as the file spells it, when the value's keys were converted (camelCase → snake_case). */
  displayKey?: (key: string) => string;
  /**
   * Known keys a misspelling of which is an error, not a warning: ignoring it would leave out
   * what it holds (`evalcase:` for `evalcases:`, whose cases would not run). With a test, only
   * when the misspelt key's value passes it (`evaluator:` holding a list of graders, not
   * `evaluation: manual` that merely looks like it).
   */
  errorWhenMisspelt?: Readonly<Record<string, true | ((value: unknown) => boolean)>>;
}

/** What `unknownKeyWarnings` makes of an unknown key: the known key it takes it for, if any. */
export interface Misspelling {
  /** The closest known key (as `spelling.match`, else `known`, spells it); undefined when none is close. */
  matched: string | undefined;
  /** Ignoring the key would leave out what it holds (see `errorWhenMisspelt`): an error. */
  leavesOut: boolean;
}

/** How `unknownKeyWarnings` reads unknown `key` holding `value`, for callers that must agree with it. */
export function readMisspelling(
  key: string,
  value: unknown,
  options: Pick<UnknownKeysOptions, 'known' | 'spelling' | 'errorWhenMisspelt'>,
): Misspelling {
  const matched = closestMatch(key, options.spelling?.match ?? options.known);
  const test = matched === undefined ? undefined : options.errorWhenMisspelt?.[matched];
  return { matched, leavesOut: test === true || test?.(value) === true };
}

/**
 * One warning per key of `value` that is not in `known`, placed on the key,
 * with a "did you mean" hint when a known key is close.
 */
export function unknownKeyWarnings(value: unknown, options: UnknownKeysOptions): Issue[] {
  if (!isRecord(value)) return [];
  const issues: Issue[] = [];
  for (const key of Object.keys(value)) {
    if (options.known.includes(key)) continue;
    const { matched, leavesOut } = readMisspelling(key, value[key], options);
    const suggestion =
      matched === undefined ? undefined : (options.spelling?.named?.[matched] ?? matched);
    const named = `unknown key "${options.displayKey?.(key) ?? key}"${options.where ? ` ${options.where}` : ''}`;
    const issue: Issue = {
      severity: leavesOut ? 'error' : 'warning',
      file: options.file,
      ...options.source.locateKey(options.path, key),
      message: leavesOut ? `${named}: what it holds would be left out` : `${named} is ignored`,
      hint: suggestion
        ? `did you mean "${suggestion}"?`
        : `remove it, or use one of: ${(options.spelling?.list ?? options.known).filter((name) => !name.startsWith('$')).join(', ')}`,
    };
    if (options.caseId !== undefined) issue.caseId = options.caseId;
    if (options.target !== undefined) issue.target = options.target;
    issues.push(issue);
  }
  return issues;
}
