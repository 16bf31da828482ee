import type { z } from 'zod';
import type { Issue } from '../errors/input-issue.js';
import { hasPlaceholder } from '../util/env-placeholder.js';
import { valueAt } from '../util/records.js';

/** Where `settingsIssues` puts what it finds, and how it explains it. */
export interface SettingsIssuesOptions {
  /** Where the checked value sits in the target's settings (`['healthcheck']`); default the top. */
  path?: readonly (string | number)[];
  /** A hint per setting (the first key of an issue's full path), for problems whose check gives none. */
  hints?: Readonly<Record<string, string>>;
}

/**
 * How providers check a target's settings: `schema` (zod) describes each
 * setting — its type, format, range, whether it is required — with the message a
 * user reads (`is required`, `must be a mapping`), and every problem it finds
 * becomes an error `Issue` at the setting's `path`. Its hint is the check's own
 * (a refinement's `params: { hint }`), else `options.hints[setting]`. A problem
 * with a value that still holds an unset `${{ VAR }}` is left out: core reports
 * the variable instead. Checks that read several settings at once or the world
 * outside (files, programs, credentials from the environment) run after the
 * schema and return `Issue`s too.
 */
export function settingsIssues(
  schema: z.ZodType,
  settings: unknown,
  options: SettingsIssuesOptions = {},
): Issue[] {
  const result = schema.safeParse(settings);
  if (result.success) return [];
  const issues: Issue[] = [];
  for (const problem of result.error.issues) {
    const at = problem.path.map((key) => (typeof key === 'number' ? key : String(key)));
    if (hasPlaceholder(valueAt(settings, at))) continue;
    const path = [...(options.path ?? []), ...at];
    const hint = hintOf(problem) ?? options.hints?.[String(path[0] ?? '')];
    issues.push({
      severity: 'error',
      path: path.length > 0 ? path : ['settings'],
      message: problem.message,
      ...(hint === undefined ? {} : { hint }),
    });
  }
  return issues;
}

function hintOf(problem: z.core.$ZodIssue): string | undefined {
  const hint = problem.code === 'custom' ? problem.params?.hint : undefined;
  return typeof hint === 'string' ? hint : undefined;
}
