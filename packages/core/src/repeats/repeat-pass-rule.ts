/**
 * How a repeated case's verdict follows from its repeats' verdicts (`--repeat-pass`,
 * `execution.repeat_pass`): `all` repeats pass (the default: a case passes under
 * `--repeat N` exactly when it would pass every time without it), `any` passes,
 * `majority` (more than half) pass, or a share of at least `rate` passes.
 */
export type RepeatPassRule =
  | { kind: 'all' }
  | { kind: 'any' }
  | { kind: 'majority' }
  | { kind: 'rate'; rate: number };

export const DEFAULT_REPEAT_PASS: RepeatPassRule = { kind: 'all' };

/** How the rules are written, for hints. */
export const REPEAT_PASS_SPELLINGS =
  'all, any, majority or rate>=X (X from 0 to 1, e.g. rate>=0.8)';

/** Parses `all`, `any`, `majority` or `rate>=X`; undefined when `text` is none of them. */
export function parseRepeatPassRule(text: string): RepeatPassRule | undefined {
  const value = text.trim();
  if (value === 'all' || value === 'any' || value === 'majority') return { kind: value };
  const match = /^rate\s*>=\s*(\d+(?:\.\d+)?|\.\d+)$/.exec(value);
  if (match === null) return undefined;
  const rate = Number(match[1]);
  return rate >= 0 && rate <= 1 ? { kind: 'rate', rate } : undefined;
}

/** The rule as written (`rate>=0.8`). */
export function repeatPassName(rule: RepeatPassRule): string {
  return rule.kind === 'rate' ? `rate>=${rule.rate}` : rule.kind;
}

/** The verdict of `passed` passing repeats out of `count` under `rule`. */
export function repeatVerdict(rule: RepeatPassRule, passed: number, count: number): boolean {
  switch (rule.kind) {
    case 'all':
      return passed === count;
    case 'any':
      return passed > 0;
    case 'majority':
      return passed > count / 2;
    case 'rate':
      // Compared in whole repeats: 0.1 * 3 is not quite 0.3.
      return passed >= rule.rate * count - 1e-9;
  }
}

/**
 * True when the verdict of `count` planned repeats can no longer change: `passed` of the
 * `ran` so far passed, and whatever the others do the rule gives the same verdict.
 */
export function repeatVerdictDecided(
  rule: RepeatPassRule,
  passed: number,
  ran: number,
  count: number,
): boolean {
  // Every rule passes more easily with more passing repeats: the two extremes bound it.
  return repeatVerdict(rule, passed, count) === repeatVerdict(rule, passed + count - ran, count);
}
