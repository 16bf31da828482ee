import type { Issue } from '@agentv/core';
import { closestMatch, type ResolvedTarget } from '@agentv/core/provider-utils';
import { findPlaceholders, isSupportedPlaceholder } from './placeholders.js';

/** The values of a `cli` target's `mode`: a process per case, or one per worker. */
export const CLI_MODES = ['single', 'persistent'] as const;

export type CliMode = (typeof CLI_MODES)[number];

const PROTOCOL_HINT =
  'a persistent agent reads each case as one JSON line on stdin ({"id", "question", "guidelines", "guideline_files", "input_files", "input_messages", "expected_outcome", "attempt", "repeat"}, plus "workspace", the folder to work in, for a case with a workspace; attempt and repeat count from 1) and writes one JSON line {"id", "text"} to stdout';

/** The target's `mode` when it is a valid one, else `single`. */
export function cliMode(settings: Record<string, unknown>): CliMode {
  return settings.mode === 'persistent' ? 'persistent' : 'single';
}

/**
 * Problems of a `cli` target's `mode`: an unknown value (with a did-you-mean),
 * and for `mode: persistent`, `provider_batching` (one process already answers
 * many cases, one at a time) and placeholders in `command_template` (the
 * command starts before any case, so no case value can fill them).
 */
export function persistentModeIssues(target: ResolvedTarget): Issue[] {
  const mode = target.settings.mode;
  if (mode === undefined || mode === 'single') {
    if (target.settings.start_timeout_seconds === undefined) return [];
    return [
      {
        severity: 'error',
        path: ['start_timeout_seconds'],
        message:
          'applies only to mode: persistent, whose processes say when they are ready; a process per case has its start in timeout_seconds',
        hint: 'remove start_timeout_seconds, or set mode: persistent',
      },
    ];
  }
  if (mode !== 'persistent') {
    const suggestion = typeof mode === 'string' ? closestMatch(mode, CLI_MODES) : undefined;
    return [
      {
        severity: 'error',
        path: ['mode'],
        message: `unknown mode ${JSON.stringify(mode)}; the modes are single and persistent`,
        hint: suggestion
          ? `did you mean mode: ${suggestion}?`
          : 'use mode: single (a process per case, the default) or mode: persistent (a process per worker, JSON lines over stdin/stdout)',
      },
    ];
  }
  const issues: Issue[] = [];
  if (target.providerBatching) {
    issues.push({
      severity: 'error',
      path: ['provider_batching'],
      message:
        'cannot be used with mode: persistent, which sends the cases one by one to processes that keep running',
      hint: 'remove provider_batching (and batch_size), or use mode: single for a batch runner',
    });
  }
  const template = target.settings.command_template;
  if (typeof template !== 'string') return issues;
  const perCase = findPlaceholders(template).filter(isSupportedPlaceholder);
  if (perCase.length > 0) {
    issues.push({
      severity: 'error',
      path: ['command_template'],
      message: `${perCase.map((name) => `{${name}}`).join(', ')} cannot be used with mode: persistent, because the command starts once for many cases`,
      hint: `remove them and read each case from stdin: ${PROTOCOL_HINT}`,
    });
  }
  return issues;
}
