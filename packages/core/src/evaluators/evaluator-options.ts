import type { EvaluatorConfig } from './evaluator-config.js';

/** Problems with `case_sensitive`: it must be a boolean when given. */
export function validateCaseSensitive(config: EvaluatorConfig): string[] {
  const value = config.case_sensitive;
  if (value === undefined || typeof value === 'boolean') return [];
  return [`"case_sensitive" must be true or false, got ${describe(value)}`];
}

/** `case_sensitive`, default true. */
export function isCaseSensitive(config: EvaluatorConfig): boolean {
  return config.case_sensitive !== false;
}

/** A short description of a value for messages: its JSON, truncated. */
export function describe(value: unknown): string {
  const text = value === undefined ? 'nothing' : (JSON.stringify(value) ?? String(value));
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** Shortens text for hits and misses, on one line. */
export function excerpt(text: string, max = 80): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > max ? `${oneLine.slice(0, max - 3)}...` : oneLine;
}
