import { isRecord } from '../../util/records.js';

/** How one of upstream's grader types is read: as one of ours, or refused with a reason. */
export type UpstreamGrader =
  | {
      /** Our grader type. */
      type: string;
      /** Upstream option name → ours (options not listed keep their name). */
      rename?: Readonly<Record<string, string>>;
      /** Options our grader needs set to give upstream's verdict. */
      set?: Readonly<Record<string, unknown>>;
    }
  | { refused: string; hint: string };

/**
 * The grader types of AgentV 2.7–4.42 (`assertions:` of `tests:` files), by
 * upstream's name with `_` read as `-` (as upstream reads them). The single
 * table `agentv validate`, the loader, `agentv migrate` and the README follow.
 */
export const UPSTREAM_GRADERS: Readonly<Record<string, UpstreamGrader>> = {
  'code-grader': { type: 'code_judge', rename: { command: 'script' } },
  'llm-grader': { type: 'llm_judge' },
  rubrics: { type: 'rubric', rename: { criteria: 'rubrics' } },
  rubric: { type: 'rubric' },
  composite: { type: 'composite', rename: { assertions: 'evaluators', assert: 'evaluators' } },
  'tool-trajectory': { type: 'tool_trajectory' },
  contains: { type: 'contains' },
  'contains-any': { type: 'contains_any' },
  'contains-all': { type: 'contains_all' },
  icontains: { type: 'icontains' },
  'icontains-any': { type: 'contains_any', set: { case_sensitive: false } },
  'icontains-all': { type: 'contains_all', set: { case_sensitive: false } },
  'starts-with': { type: 'starts_with' },
  'ends-with': { type: 'ends_with' },
  regex: { type: 'regex', rename: { value: 'pattern' } },
  'is-json': { type: 'is_json' },
  equals: { type: 'equals' },
  latency: { type: 'latency' },
  cost: { type: 'cost' },
  'execution-metrics': { type: 'execution_metrics' },
  'token-usage': {
    refused: 'token-usage is not an AgentV grader',
    hint: 'bound tokens with `type: execution_metrics` (`max_tokens`), or check `token_usage` in a code_judge script',
  },
  'field-accuracy': {
    refused: 'field-accuracy is not an AgentV grader',
    hint: 'compare the fields in a code_judge script (it gets the answer and `expected_messages`), or use json_schema',
  },
  'skill-trigger': {
    refused: 'skill-trigger reads the transcripts of specific coding agents, which AgentV does not',
    hint: 'check the tool calls with `type: tool_trajectory`',
  },
  'inline-assert': {
    refused: 'inline-assert is a function of a TypeScript eval file',
    hint: 'write the check as a code_judge script',
  },
};

/**
 * The grader types a `tests:` file writes, sorted: AgentV 4.x's names of those it reads, and of
 * `ours` (this AgentV's types) those no 4.x name is read as. Negated checks are `negate: true`
 * there, not listed `not_<type>` types.
 */
export function testsFileGraderTypes(ours: readonly string[]): string[] {
  const read = Object.entries(UPSTREAM_GRADERS).filter(([, grader]) => 'type' in grader);
  const covered = new Set(read.map(([, grader]) => (grader as { type: string }).type));
  const own = ours.filter(
    (type) =>
      !covered.has(type) &&
      !type.startsWith('not_') &&
      UPSTREAM_GRADERS[type.replaceAll('_', '-')] === undefined,
  );
  return [...read.map(([name]) => name), ...own].sort();
}

/** Upstream's spellings of 1.x names it no longer runs (it skips them with a warning). */
const OURS = new Set(['code_judge', 'llm_judge', 'is_json', 'json_schema', 'tool_trajectory']);

/** Options upstream reads on every grader that ours do not have. */
export const REFUSED_GRADER_OPTIONS: Readonly<Record<string, string>> = {
  preprocessors:
    'AgentV graders see the answer as the agent gave it; reshape it in a code_judge script',
  target: 'an LLM grader asks the judge target of its case: set `execution.judge_target`',
};

/** Our type for an upstream `type:`, or the refusal; undefined for a type neither knows. */
export function upstreamGrader(type: string): UpstreamGrader | undefined {
  if (OURS.has(type)) return { type };
  return UPSTREAM_GRADERS[type.replaceAll('_', '-')];
}

/** A problem found rewriting a grader, at `path` below the grader entry. */
export interface GraderProblem {
  severity: 'error' | 'warning';
  path: PropertyKey[];
  message: string;
  hint?: string;
}

/** What `translateGrader` gives: our entry (undefined when refused) and its problems. */
export interface TranslatedGrader {
  entry?: Record<string, unknown>;
  problems: GraderProblem[];
  /** For each key of `entry` that has another name in the file: that name. */
  renamed: Record<string, string>;
}

/**
 * One upstream grader entry as ours (README, "Coming from AgentV"): the type
 * and options renamed per `UPSTREAM_GRADERS`, `required` and `min_score` as
 * our `required` (`requiredOf`), composite members and rubric items
 * rewritten. `member`: the entry is a composite's member, where upstream
 * ignores `required`. A type neither upstream nor we know is kept as
 * written, for the evaluator registry to report.
 */
export function translateGrader(raw: unknown, member = false): TranslatedGrader {
  const problems: GraderProblem[] = [];
  const renamed: Record<string, string> = {};
  if (!isRecord(raw) || typeof raw.type !== 'string')
    return { entry: raw as never, problems, renamed };
  const known = upstreamGrader(raw.type);
  if (known === undefined) return { entry: raw, problems, renamed };
  if ('refused' in known) {
    problems.push({
      severity: 'error',
      path: ['type'],
      message: `grader type "${raw.type}" is not supported: ${known.refused}`,
      hint: known.hint,
    });
    return { problems, renamed };
  }
  const entry: Record<string, unknown> = { type: known.type };
  const required = requiredOf(raw, member, problems);
  for (const [key, value] of Object.entries(raw)) {
    if (key === 'type') continue;
    if (key === 'required' || key === 'min_score') {
      if (required !== undefined && !('required' in entry)) entry.required = required;
      continue;
    }
    const refusal = REFUSED_GRADER_OPTIONS[key];
    if (refusal !== undefined && !(key === 'target' && known.type === 'code_judge')) {
      problems.push({
        severity: 'error',
        path: [key],
        message: `grader option "${key}" is not supported`,
        hint: refusal,
      });
      continue;
    }
    const ours = known.rename?.[key] ?? key;
    if (ours !== key) renamed[ours] = key;
    entry[ours] = value;
  }
  Object.assign(entry, known.set);
  if (known.type === 'code_judge' && raw.target !== undefined) {
    problems.push({
      severity: 'error',
      path: ['target'],
      message: 'a code grader calling targets (`target:`) is not supported',
      hint: 'call the model from the script yourself, or grade with an llm_judge',
    });
    delete entry.target;
  }
  if (known.type === 'llm_judge' && typeof entry.prompt === 'string') {
    // Upstream reads a bare prompt as text and `file://PATH` as a file; ours tells them apart itself.
    if (entry.prompt.startsWith('file://')) entry.prompt = entry.prompt.slice('file://'.length);
  }
  if (known.type === 'rubric' && Array.isArray(entry.rubrics)) {
    const key = renamed.rubrics ?? 'rubrics';
    entry.rubrics = entry.rubrics.map((item, index) =>
      translateRubricItem(item, [key, index], problems),
    );
  }
  if (known.type === 'composite') {
    const key = renamed.evaluators ?? 'evaluators';
    if (Array.isArray(entry.evaluators)) {
      const members: unknown[] = [];
      entry.evaluators.forEach((member, index) => {
        const translated = translateGrader(member, true);
        for (const problem of translated.problems) {
          problems.push({ ...problem, path: [key, index, ...problem.path] });
        }
        if (translated.entry !== undefined) members.push(translated.entry);
      });
      entry.evaluators = members;
    }
    if (isRecord(entry.aggregator))
      entry.aggregator = translateAggregator(entry.aggregator, problems);
  }
  return { entry, problems, renamed };
}

const AGGREGATORS: Record<string, string> = {
  weighted_average: 'weighted_average',
  'code-grader': 'code_judge',
  code_grader: 'code_judge',
  'llm-grader': 'llm_judge',
  llm_grader: 'llm_judge',
};

function translateAggregator(
  aggregator: Record<string, unknown>,
  problems: GraderProblem[],
): Record<string, unknown> {
  const type = typeof aggregator.type === 'string' ? aggregator.type : undefined;
  const ours = type === undefined ? undefined : (AGGREGATORS[type] ?? type);
  if (type === 'threshold') {
    problems.push({
      severity: 'error',
      path: ['aggregator', 'type'],
      message: 'the composite aggregator "threshold" is not supported',
      hint: 'use `weighted_average` and set the case `threshold`, or a code_judge aggregator',
    });
  }
  const result: Record<string, unknown> = { ...aggregator, type: ours };
  if (ours === 'code_judge' && result.script === undefined) {
    result.script = aggregator.command ?? aggregator.path;
    delete result.command;
    delete result.path;
  }
  return result;
}

function translateRubricItem(
  item: unknown,
  path: PropertyKey[],
  problems: GraderProblem[],
): unknown {
  if (!isRecord(item)) return item;
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(item)) {
    if (key === 'outcome' || key === 'criteria') result.description = value;
    else if (['operator', 'min_score', 'required_min_score', 'score_ranges'].includes(key)) {
      problems.push({
        severity: 'error',
        path: [...path, key],
        message: `rubric option "${key}" is not supported`,
        hint: 'AgentV rubric items are met or not: keep `description`, `weight` and `required`',
      });
    } else result[key] = value;
  }
  return result;
}

const SCORE = 'a score above 0 and at most 1, e.g. `0.6`';

/**
 * Our `required` for upstream's `required` and `min_score` (AgentV 4.42 reads
 * `min_score` first, then a numeric `required`, then `true`; `min_score` alone
 * does nothing there, nor does `required` on a composite's member): a warning
 * for what upstream ignores, an error for a value it would not read.
 */
function requiredOf(
  raw: Record<string, unknown>,
  member: boolean,
  problems: GraderProblem[],
): boolean | number | undefined {
  const { required, min_score: minScore } = raw;
  const isScore = (value: unknown): value is number =>
    typeof value === 'number' && value > 0 && value <= 1;
  if (required !== undefined && typeof required !== 'boolean' && !isScore(required)) {
    problems.push({
      severity: 'error',
      path: ['required'],
      message: `"required" must be true, false or ${SCORE}, got ${JSON.stringify(required)}`,
    });
    return undefined;
  }
  if (minScore !== undefined && !isScore(minScore)) {
    problems.push({
      severity: 'error',
      path: ['min_score'],
      message: `"min_score" must be ${SCORE}, got ${JSON.stringify(minScore)}`,
    });
    return undefined;
  }
  if (required === undefined || required === false) {
    if (minScore !== undefined) {
      problems.push({
        severity: 'warning',
        path: ['min_score'],
        message:
          '"min_score" without "required: true" has no effect (as in AgentV 4.42) and is ignored',
        hint: 'add `required: true` for the case to fail when this grader scores below it, or remove it',
      });
    }
    return required;
  }
  if (member) {
    problems.push({
      severity: 'warning',
      path: ['required'],
      message:
        '"required" on a member of a composite has no effect (as in AgentV 4.42) and is ignored',
      hint: 'put `required` on the composite itself',
    });
    return undefined;
  }
  return minScore ?? required;
}
