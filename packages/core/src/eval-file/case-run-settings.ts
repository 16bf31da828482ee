import { parseRepeatPassRule, type RepeatPassRule } from '../repeats/repeat-pass-rule.js';
import type { CaseBudget } from './eval-case.js';

/** What an `execution:` block (file or case) says about repeats and budgets. */
export interface RunSettings {
  repeatPass?: RepeatPassRule;
  budget?: CaseBudget;
}

/**
 * Reads `repeat_pass`, `max_cost_usd`, `max_tokens` and `max_duration_seconds` of an
 * `execution:` mapping; values of the wrong type are left out (the schema reports them).
 */
export function runSettingsOf(execution: Record<string, unknown> | undefined): RunSettings {
  if (execution === undefined) return {};
  const settings: RunSettings = {};
  const rule =
    typeof execution.repeat_pass === 'string'
      ? parseRepeatPassRule(execution.repeat_pass)
      : undefined;
  if (rule !== undefined) settings.repeatPass = rule;
  const budget: CaseBudget = {};
  if (isPositive(execution.max_cost_usd)) budget.maxCostUsd = execution.max_cost_usd;
  if (isPositive(execution.max_tokens) && Number.isInteger(execution.max_tokens)) {
    budget.maxTokens = execution.max_tokens;
  }
  if (isPositive(execution.max_duration_seconds)) {
    budget.maxDurationSeconds = execution.max_duration_seconds;
  }
  if (Object.keys(budget).length > 0) settings.budget = budget;
  return settings;
}

/** A case's settings over its file's: each key of the case wins. */
export function mergeRunSettings(file: RunSettings, own: RunSettings): RunSettings {
  const merged: RunSettings = {};
  const repeatPass = own.repeatPass ?? file.repeatPass;
  if (repeatPass !== undefined) merged.repeatPass = repeatPass;
  if (file.budget !== undefined || own.budget !== undefined) {
    merged.budget = { ...file.budget, ...own.budget };
  }
  return merged;
}

function isPositive(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}
