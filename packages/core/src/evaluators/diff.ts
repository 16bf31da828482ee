import type { Issue } from '../errors/input-issue.js';
import type { EvaluatorConfig } from '../eval-file/evaluator-config.js';
import { matchesGlob } from '../util/glob-match.js';
import type { FileChange } from '../workspace/file-changes.js';
import type { Evaluator } from './evaluator.js';
import { describe, optionIssue, throwIfInvalid } from './evaluator-options.js';
import { immediateEvaluator } from './immediate-evaluator.js';
import { requireWorkspace } from './require-workspace.js';

const CHECKS = ['must_change', 'must_not_change', 'max_lines'] as const;

/** Paths named in one hit or miss, at most. */
const MAX_NAMED_PATHS = 10;

/**
 * `diff`: judges what the agent changed in the case's workspace (added,
 * modified and deleted files, from the baseline taken before it ran).
 * `must_change`: every glob must match at least one changed path;
 * `must_not_change`: no changed path may match any of its globs; `max_lines`:
 * lines added plus lines removed (binary files count none) at most this many.
 * Globs are relative to the workspace with `/` separators (`*` within a
 * segment, `**` across them); one ending in `/` matches everything under that
 * folder. Every check given must hold: each is a hit or a miss naming the
 * paths, and the score is 1 when all hold, else 0. A case without a
 * workspace is an evaluator error.
 */
export const diffEvaluator: Evaluator = immediateEvaluator({
  type: 'diff',
  options: [...CHECKS],
  needsWorkspace: true,
  validate: (config) => validateOptions(config),
  evaluateNow(config, context) {
    const { changes } = requireWorkspace(context, 'diff');
    throwIfInvalid(validateOptions(config));
    const hits: string[] = [];
    const misses: string[] = [];
    for (const glob of globList(config.must_change)) {
      const matched = changes.files.filter((file) => matches(file.path, glob));
      if (matched.length > 0) {
        hits.push(`changed as required (${JSON.stringify(glob)}): ${names(matched)}`);
      } else {
        misses.push(
          `nothing matching ${JSON.stringify(glob)} changed${
            changes.files.length === 0
              ? ' (nothing changed at all)'
              : `; changed: ${names(changes.files)}`
          }`,
        );
      }
    }
    for (const glob of globList(config.must_not_change)) {
      const matched = changes.files.filter((file) => matches(file.path, glob));
      if (matched.length === 0) {
        hits.push(`nothing matching ${JSON.stringify(glob)} changed`);
      } else {
        misses.push(`changed but must not (${JSON.stringify(glob)}): ${names(matched)}`);
      }
    }
    if (config.max_lines !== undefined) {
      const max = config.max_lines as number;
      const total = changes.insertions + changes.deletions;
      const size = `${total} ${total === 1 ? 'line' : 'lines'} changed (+${changes.insertions} -${changes.deletions}${binaryNote(changes.files)})`;
      if (total <= max) hits.push(`${size}, within max_lines ${max}`);
      else misses.push(`${size}, more than max_lines ${max}`);
    }
    return { score: misses.length === 0 ? 1 : 0, hits, misses };
  },
});

/** True when `file` matches `glob`; a glob ending in `/` matches everything under that folder. */
function matches(file: string, glob: string): boolean {
  const pattern = glob.startsWith('./') ? glob.slice(2) : glob;
  return matchesGlob(file, pattern.endsWith('/') ? `${pattern}**` : pattern);
}

/** The paths with their status, `src/a.ts (modified)`, at most 10 and how many more. */
function names(files: readonly FileChange[]): string {
  const shown = files
    .slice(0, MAX_NAMED_PATHS)
    .map((file) => `${file.path} (${file.status}${file.binary ? ', binary' : ''})`);
  const more = files.length - shown.length;
  return more > 0 ? `${shown.join(', ')} and ${more} more` : shown.join(', ');
}

function binaryNote(files: readonly FileChange[]): string {
  const binary = files.filter((file) => file.binary).length;
  return binary === 0 ? '' : `; ${binary} binary ${binary === 1 ? 'file' : 'files'} not counted`;
}

function globList(value: unknown): string[] {
  if (value === undefined) return [];
  return typeof value === 'string' ? [value] : (value as string[]);
}

function validateOptions(config: EvaluatorConfig): Issue[] {
  const problems: Issue[] = [];
  if (CHECKS.every((check) => config[check] === undefined)) {
    problems.push(
      optionIssue(
        'must_change',
        `give at least one check: ${CHECKS.join(', ')} (e.g. \`must_change: [src/**]\`)`,
      ),
    );
  }
  for (const option of ['must_change', 'must_not_change'] as const) {
    const value = config[option];
    if (value === undefined) continue;
    const list = typeof value === 'string' ? [value] : value;
    if (
      !Array.isArray(list) ||
      list.length === 0 ||
      !list.every((item) => typeof item === 'string' && item !== '')
    ) {
      problems.push(
        optionIssue(
          option,
          `"${option}" must be a glob or a non-empty list of globs such as [src/**, package.json], got ${describe(value)}`,
        ),
      );
      continue;
    }
    for (const glob of list as string[]) {
      const problem = globProblem(glob);
      if (problem !== undefined) {
        problems.push(optionIssue(option, `"${option}" glob ${JSON.stringify(glob)} ${problem}`));
      }
    }
  }
  const max = config.max_lines;
  if (max !== undefined && (typeof max !== 'number' || !Number.isInteger(max) || max < 0)) {
    problems.push(
      optionIssue(
        'max_lines',
        `"max_lines" must be a whole number of lines >= 0, got ${describe(max)}`,
      ),
    );
  }
  return problems;
}

/** Why a glob can never match a changed path (always relative, with `/`). */
function globProblem(glob: string): string | undefined {
  if (glob.startsWith('/') || /^[A-Za-z]:[\\/]/.test(glob)) {
    return 'is absolute; changed paths are relative to the workspace (write `src/**`)';
  }
  if (glob.includes('\\')) return 'uses `\\`; changed paths use `/` (write `src/app.ts`)';
  if (glob === '..' || glob.startsWith('../') || glob.includes('/../')) {
    return 'leaves the workspace; changed paths are inside it';
  }
  return undefined;
}
