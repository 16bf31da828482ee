import type { Issue } from '@agentv/core';
import { findPlaceholders } from './placeholders.js';

/** Placeholders that describe one case, and so have no value when one run answers many. */
const PER_CASE_PLACEHOLDERS = ['PROMPT', 'PROMPT_FILE', 'GUIDELINES', 'FILES', 'ATTACHMENTS'];

/**
 * Problems of a `command_template` used with `provider_batching: true`: the
 * answers must come back as JSONL in `{OUTPUT_FILE}`, and per-case
 * placeholders cannot be filled (the cases are in the `{INPUT_FILE}` bundle).
 */
export function batchTemplateIssues(commandTemplate: string): Issue[] {
  const used = new Set(findPlaceholders(commandTemplate));
  const issues: Issue[] = [];
  if (!used.has('OUTPUT_FILE')) {
    issues.push({
      severity: 'error',
      path: ['command_template'],
      message: 'with provider_batching: true the command must write its answers to {OUTPUT_FILE}',
      hint: 'add {OUTPUT_FILE} to command_template and write one JSONL line {"id", "text", "trace"?} per case there',
    });
  }
  const perCase = PER_CASE_PLACEHOLDERS.filter((name) => used.has(name));
  if (perCase.length > 0) {
    issues.push({
      severity: 'error',
      path: ['command_template'],
      message: `${perCase.map((name) => `{${name}}`).join(', ')} cannot be used with provider_batching: true, because one run answers many cases`,
      hint: 'read each case (id, question, guidelines, input_files, input_messages) from the JSONL bundle at {INPUT_FILE}',
    });
  }
  return issues;
}
