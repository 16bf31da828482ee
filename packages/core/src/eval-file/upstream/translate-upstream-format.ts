import type { Issue } from '../../errors/input-issue.js';
import { isRecord } from '../../util/records.js';
import type { SourceLocator } from '../../yaml/yaml-source.js';
import { interpolateCaseVars, interpolateEnvReferences } from './interpolate-upstream.js';
import { mappedSource, PathMap } from './mapped-source.js';
import { translateGrader } from './upstream-graders.js';

/** Case keys of the 2.7+ format; one of them in a case marks a file of that format. */
const NEW_CASE_KEYS = [
  'input',
  'input_files',
  'criteria',
  'expected_output',
  'assertions',
  'assert',
];
/** Case keys of the 2.7+ format that `evalcases:` does not have (it reads `metadata` and drops it). */
export const UPSTREAM_CASE_KEYS = [...NEW_CASE_KEYS, 'metadata'];

/** File keys of the 2.7+ format. */
export const NEW_FILE_KEYS = [
  'tests',
  'eval_cases',
  'assertions',
  'assert',
  'input',
  'input_files',
];

/** What the `evalcases:` format writes for each case key of the 2.7+ format. */
const STRAY_KEY_HINTS: Record<string, string> = {
  input: '`input_messages:`',
  input_files: '`input_messages:` with `type: file` blocks',
  criteria: '`expected_outcome:`',
  expected_output: '`expected_messages:`',
  assertions: '`evaluators:`',
  assert: '`evaluators:`',
};

/** Keys upstream reads that change what runs or how it is graded, which AgentV does not have. */
const REFUSED_CASE_KEYS: Record<string, { reason: string; hint: string }> = {
  turns: {
    reason: 'multi-turn conversations (`mode: conversation`, `turns:`) are not supported',
    hint: 'write one case per turn, each with the conversation so far as `input:`',
  },
  depends_on: {
    reason: 'case dependencies are not supported',
    hint: 'make each case independent (a workspace `before_each` hook can prepare what it needs)',
  },
};
const CONVERSATION_KEYS = ['mode', 'aggregation', 'on_turn_failure', 'window_size'];
/**
 * For hints, the keys a 2.7+ file spells otherwise than `evalcases:` does (or by an old name of
 * its own): what a misspelling close to one of them should be written as.
 */
export const UPSTREAM_NAMES: Readonly<Record<string, string>> = {
  input_messages: 'input',
  expected_messages: 'expected_output',
  evaluators: 'assertions',
  expected_outcome: 'criteria',
  outcome: 'criteria',
  assert: 'assertions',
  evalcases: 'tests',
  eval_cases: 'tests',
};

/**
 * `evalcases:` case keys a 2.7+ case does not spell: those it writes otherwise (`input:`,
 * `assertions:`…) and those refused in it.
 */
export const NOT_UPSTREAM_CASE_KEYS = [
  'input_messages',
  'expected_messages',
  'evaluators',
  'expected_outcome',
  'outcome',
  ...Object.keys(REFUSED_CASE_KEYS),
  ...CONVERSATION_KEYS,
];
/** Suite-level keys that only describe the file. */
export const INFO_KEYS = [
  'name',
  'version',
  'author',
  'license',
  'category',
  'metadata',
  'governance',
];

/** An eval file of AgentV 2.7–4.42 rewritten into `agentv-eval-v2`. */
export interface TranslatedEvalFile {
  data: Record<string, unknown>;
  /** Locates paths of `data` at what the file says. */
  source: SourceLocator;
  issues: Issue[];
}

/**
 * Whether the file as a whole is of the 2.7+ format (`tests:`, or a suite-level `assertions:`,
 * `input:`…), not an `evalcases:` file read as one only for a key of some case.
 */
export function isUpstreamSuite(data: Record<string, unknown>): boolean {
  return NEW_FILE_KEYS.some((key) => data[key] !== undefined);
}

/** Whether `data` uses a key of the 2.7+ format (`tests:`, `input:`, `assertions:`…). */
export function isUpstreamFormat(data: Record<string, unknown>): boolean {
  for (const key of NEW_FILE_KEYS) if (data[key] !== undefined) return true;
  const cases = data.evalcases;
  if (!Array.isArray(cases)) return false;
  for (let index = 0; index < cases.length; index++) {
    const item = cases[index];
    if (!isRecord(item)) continue;
    for (const key of NEW_CASE_KEYS) if (item[key] !== undefined) return true;
  }
  return false;
}

/**
 * Rewrites an eval file of AgentV 2.7–4.42 (`tests:` of `input`,
 * `expected_output`, `criteria`, `assertions`…) into the `agentv-eval-v2`
 * shape the loader validates (README, "Coming from AgentV"), as upstream
 * 4.42.4 reads it: `${{ VAR }}` references replaced from `env`, `{{ var }}`
 * in a case's input, criteria and expected output from its `vars`, and
 * upstream's threshold 0.8 when the file sets none (a case's own still wins). Graders
 * are mapped through `UPSTREAM_GRADERS`; what AgentV cannot do is an error at
 * its line; old keys beside new ones are warnings naming the preferred key.
 */
export function translateUpstreamFormat(
  written: Record<string, unknown>,
  file: string,
  source: SourceLocator,
  env: Readonly<Record<string, string | undefined>> = process.env,
  origins?: readonly PropertyKey[][],
): TranslatedEvalFile {
  const raw = interpolateEnvReferences(written, env) as Record<string, unknown>;
  const map = new PathMap();
  const issues: Issue[] = [];
  const at = (path: readonly PropertyKey[], caseId?: string) => ({
    file,
    ...(source.locate(path) ?? {}),
    ...(caseId === undefined ? {} : { caseId }),
  });
  const atKey = (parent: readonly PropertyKey[], key: string, caseId?: string) => ({
    file,
    ...(source.locateKey(parent, key) ?? source.locate(parent) ?? {}),
    ...(caseId === undefined ? {} : { caseId }),
  });
  const prefer = (parent: PropertyKey[], key: string, preferred: string, caseId?: string) => {
    issues.push({
      severity: 'warning',
      ...atKey(parent, key, caseId),
      message: `"${key}" is the old spelling of "${preferred}"`,
      hint: `write \`${preferred}:\``,
    });
  };

  const data: Record<string, unknown> = {};
  const casesKey = ['tests', 'eval_cases', 'evalcases'].filter((key) => raw[key] !== undefined);
  if (casesKey.length > 1) {
    issues.push({
      severity: 'error',
      ...atKey([], casesKey[1]!),
      message: `the file has both "${casesKey[0]}" and "${casesKey[1]}"`,
      hint: 'keep one list of cases, under `tests:`',
    });
  }
  const listKey = casesKey[0];
  let warnedEvalcases = false;
  if (listKey === 'eval_cases') prefer([], listKey, 'tests');
  // An `evalcases:` file that is AgentV 4.x's only through a key of some case (`input:`): one
  // warning at that key says what it did to the file, in place of calling every key of the
  // file's own format an old spelling.
  const strayKeysOnly = listKey === 'evalcases' && !isUpstreamSuite(raw);
  let warnedStrayKey = false;
  const preferUnlessStray = (
    parent: PropertyKey[],
    key: string,
    preferred: string,
    caseId?: string,
  ) => {
    if (!strayKeysOnly) prefer(parent, key, preferred, caseId);
  };
  const warnStrayKey = (parent: PropertyKey[], key: string, caseId: string | undefined) => {
    if (warnedStrayKey) return;
    warnedStrayKey = true;
    issues.push({
      severity: 'warning',
      ...atKey(parent, key, caseId),
      message: `"${key}" is a key of AgentV 4.x's \`tests:\` format, so this \`evalcases:\` file is read as one: a case passes at score 0.8 unless the file or the case sets a threshold (in the \`evalcases:\` format, when every grader passes)`,
      hint: `write ${STRAY_KEY_HINTS[key] ?? "the `evalcases:` format's keys"} to keep the file in the \`evalcases:\` format, or run \`agentv migrate\` to rewrite all of it into \`tests:\``,
    });
  };

  for (const [key, value] of Object.entries(raw)) {
    if (key === listKey) continue;
    if (key === 'tests' || key === 'eval_cases' || key === 'evalcases') continue;
    if (INFO_KEYS.includes(key)) continue;
    if (key === 'assertions' || key === 'assert' || key === 'input' || key === 'input_files') {
      continue;
    }
    if (key === 'execution' && isRecord(value)) {
      data.execution = translateExecution(value, ['execution'], undefined);
      continue;
    }
    if (key === 'preprocessors') {
      refuse(
        [],
        key,
        'preprocessors are not supported',
        'reshape the answer in a code_judge script',
      );
      continue;
    }
    data[key] = value;
  }
  // AgentV 4.x passes a case at score 0.8 unless the file or the case sets another threshold.
  if (data.execution === undefined) data.execution = { threshold: 0.8 };
  else if (isRecord(data.execution) && data.execution.threshold === undefined) {
    data.execution.threshold = 0.8;
  }
  if (typeof raw.name === 'string' && raw.name !== '' && data.dataset === undefined) {
    data.dataset = raw.name;
    map.set(['dataset'], ['name']);
  }
  const suiteAssertions = raw.assertions ?? raw.assert;
  const suiteKey = raw.assertions !== undefined ? 'assertions' : 'assert';
  if (raw.assertions === undefined && raw.assert !== undefined) prefer([], 'assert', 'assertions');
  if (suiteAssertions !== undefined) {
    const execution = isRecord(data.execution) ? data.execution : {};
    if (execution.evaluators !== undefined) prefer(['execution'], 'evaluators', 'assertions');
    execution.evaluators = translateGraders(
      suiteAssertions,
      [suiteKey],
      ['execution', 'evaluators'],
    );
    data.execution = execution;
  } else if (isRecord(data.execution) && data.execution.evaluators !== undefined) {
    data.execution.evaluators = translateGraders(
      data.execution.evaluators,
      ['execution', 'evaluators'],
      ['execution', 'evaluators'],
    );
  }

  const list = listKey === undefined ? undefined : raw[listKey];
  if (typeof list === 'string') {
    // Upstream's external case file; ours reads JSONL and CSV datasets as `cases:`.
    data.cases = list;
    map.set(['cases'], [listKey!]);
  } else if (Array.isArray(list)) {
    data.evalcases = list.map((item, index) => translateCase(item, index));
    map.set(['evalcases'], [listKey!]);
  } else if (list !== undefined) {
    data.evalcases = list;
    map.set(['evalcases'], [listKey!]);
  }
  return { data, source: mappedSource(source, map), issues };

  function refuse(
    parent: PropertyKey[],
    key: string,
    message: string,
    hint: string,
    caseId?: string,
  ) {
    issues.push({ severity: 'error', ...atKey(parent, key, caseId), message, hint });
  }

  function translateExecution(
    execution: Record<string, unknown>,
    path: PropertyKey[],
    caseId: string | undefined,
  ): Record<string, unknown> {
    const result: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(execution)) {
      if (
        key === 'targets' &&
        Array.isArray(value) &&
        value.some((item) => !(typeof item === 'string'))
      ) {
        refuse(
          path,
          key,
          'targets written as mappings (`use_target`, `hooks`) are not supported',
          'name each target from the targets file: `targets: [a, b]`',
          caseId,
        );
        continue;
      }
      if (key === 'trials') {
        const repeat = translateTrials(value, [...path, key], caseId);
        if (repeat !== undefined) {
          result.repeat = repeat;
          map.set(['execution', 'repeat'], [...path, key]);
        }
        continue;
      }
      if (key === 'skip_defaults') {
        refuse(
          path,
          key,
          '`skip_defaults` is not supported',
          "give this case its own `assertions:` (they replace the file's) and no file-level `input:`",
          caseId,
        );
        continue;
      }
      if (
        key === 'workers' ||
        key === 'cache' ||
        key === 'cache_path' ||
        key === 'fail_on_error' ||
        key === 'budget_usd'
      ) {
        issues.push({
          severity: 'warning',
          ...atKey(path, key, caseId),
          message: `"execution.${key}" is ignored: it is a command-line setting in AgentV`,
          hint: 'see `agentv eval --help` (`--workers`, `--max-retries`)',
        });
        continue;
      }
      result[key] = value;
    }
    return result;
  }

  /**
   * `execution.trials` as our `execution.repeat`: its `count`, and `pass_at_k`
   * (the default) or `mean` as the reducer, which grade as AgentV 4.x does.
   */
  function translateTrials(
    value: unknown,
    path: PropertyKey[],
    caseId: string | undefined,
  ): Record<string, unknown> | undefined {
    if (caseId !== undefined) {
      // AgentV 4.x reads only the file's trials.
      issues.push({
        severity: 'warning',
        ...atKey(path.slice(0, -1), 'trials', caseId),
        message: "a case's `execution.trials` is ignored, as in AgentV 4.x",
        hint: "set `trials` in the file's `execution:` (or run with `--repeat N`)",
      });
      return undefined;
    }
    if (!isRecord(value)) {
      refuse(
        path.slice(0, -1),
        'trials',
        '`trials` must be a mapping',
        'e.g. `trials: {count: 3, strategy: pass_at_k}`',
      );
      return undefined;
    }
    for (const key of Object.keys(value)) {
      if (!['count', 'strategy', 'cost_limit_usd', 'costLimitUsd'].includes(key)) {
        issues.push({
          severity: 'warning',
          ...atKey(path, key),
          message: `unknown key "${key}" in trials`,
          hint: 'trials has `count`, `strategy` and `cost_limit_usd`',
        });
      }
    }
    const count = value.count;
    if (typeof count !== 'number' || !Number.isInteger(count) || count < 1) {
      refuse(
        path,
        'count',
        '`trials.count` must be a whole number of at least 1',
        'e.g. `count: 3`',
      );
      return undefined;
    }
    const strategy = value.strategy ?? 'pass_at_k';
    if (strategy === 'confidence_interval') {
      refuse(
        path,
        'strategy',
        'the trials strategy "confidence_interval" is not supported',
        'use `strategy: mean` (or `--repeat-reducer median`), or `pass_at_k`',
      );
      return undefined;
    }
    if (strategy !== 'pass_at_k' && strategy !== 'mean') {
      refuse(
        path,
        'strategy',
        `unknown trials strategy ${JSON.stringify(strategy)}`,
        'use `pass_at_k` or `mean`',
      );
      return undefined;
    }
    const limit = value.cost_limit_usd ?? value.costLimitUsd;
    if (limit !== undefined) {
      issues.push({
        severity: 'warning',
        ...atKey(path, value.cost_limit_usd !== undefined ? 'cost_limit_usd' : 'costLimitUsd'),
        message: '`trials.cost_limit_usd` is not enforced: every trial runs',
        hint: 'bound the cost of a case with a `cost` grader, or lower `count`',
      });
    }
    return { count, reducer: strategy };
  }

  function translateGraders(
    value: unknown,
    writtenPath: PropertyKey[],
    ourPath: PropertyKey[],
    caseId?: string,
  ): unknown {
    if (!Array.isArray(value)) {
      map.set(ourPath, writtenPath);
      return value;
    }
    const result: unknown[] = [];
    const criteria: string[] = [];
    let criteriaIndex: number | undefined;
    value.forEach((item, index) => {
      if (typeof item === 'string') {
        // Upstream grades the plain strings of a list together, as one rubric weighted by their count.
        if (item.trim() !== '') criteria.push(item.trim());
        if (criteriaIndex === undefined) {
          criteriaIndex = result.length;
          map.set([...ourPath, result.length], [...writtenPath, index]);
          result.push(undefined);
        }
        return;
      }
      const translated = translateGrader(item);
      for (const problem of translated.problems) {
        issues.push({
          severity: problem.severity,
          ...at([...writtenPath, index, ...problem.path], caseId),
          message: problem.message,
          ...(problem.hint ? { hint: problem.hint } : {}),
        });
      }
      if (translated.entry === undefined) return;
      map.set([...ourPath, result.length], [...writtenPath, index]);
      for (const [ours, theirs] of Object.entries(translated.renamed)) {
        map.set([...ourPath, result.length, ours], [...writtenPath, index, theirs]);
      }
      result.push(translated.entry);
    });
    if (criteriaIndex !== undefined) {
      if (criteria.length === 0) result.splice(criteriaIndex, 1);
      else result[criteriaIndex] = { type: 'rubric', rubrics: criteria, weight: criteria.length };
    }
    return result;
  }

  function translateCase(item: unknown, index: number): unknown {
    if (!isRecord(item)) return item;
    // A case read from a case file is located at the entry naming that file.
    const written: PropertyKey[] = [...(origins?.[index] ?? [listKey!, index])];
    const ours: PropertyKey[] = ['evalcases', index];
    if (origins?.[index] !== undefined) map.set(ours, written);
    const caseId = typeof item.id === 'string' && item.id !== '' ? item.id : undefined;
    const vars = isRecord(item.vars) ? item.vars : undefined;
    const rendered = vars === undefined ? item : interpolateCaseVars(item, vars);
    const result: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(rendered)) {
      const refusal = REFUSED_CASE_KEYS[key];
      if (refusal !== undefined) {
        refuse(written, key, refusal.reason, refusal.hint, caseId);
        continue;
      }
      if (CONVERSATION_KEYS.includes(key) || key === 'on_dependency_failure') {
        if (key === 'mode' && value !== 'conversation') continue;
        refuse(
          written,
          key,
          REFUSED_CASE_KEYS.turns!.reason,
          REFUSED_CASE_KEYS.turns!.hint,
          caseId,
        );
        continue;
      }
      if (key === 'preprocessors') {
        refuse(
          written,
          key,
          'preprocessors are not supported',
          'reshape the answer in a code_judge script',
          caseId,
        );
        continue;
      }
      switch (key) {
        case 'input':
        case 'input_files':
        case 'assert':
        case 'assertions':
        case 'metadata':
          break;
        case 'criteria':
          result.expected_outcome = value;
          map.set([...ours, 'expected_outcome'], [...written, 'criteria']);
          break;
        case 'expected_outcome':
          if (rendered.criteria !== undefined) break;
          if (listKey !== 'evalcases') prefer(written, key, 'criteria', caseId);
          result.expected_outcome = value;
          break;
        case 'expected_output':
          result.expected_messages = expectedMessages(value);
          map.set([...ours, 'expected_messages'], [...written, 'expected_output']);
          break;
        case 'execution':
          result.execution = isRecord(value)
            ? translateExecution(value, [...written, 'execution'], caseId)
            : value;
          break;
        case 'input_messages':
          if (rendered.input !== undefined) {
            refuse(
              written,
              key,
              'the case has both "input" and "input_messages"',
              'keep `input:`',
              caseId,
            );
            break;
          }
          preferUnlessStray(written, key, 'input', caseId);
          result.input_messages = value;
          break;
        case 'evaluators':
          if (rendered.assertions !== undefined || rendered.assert !== undefined) {
            refuse(
              written,
              key,
              'the case has both "assertions" and "evaluators"',
              'keep `assertions:`',
              caseId,
            );
            break;
          }
          preferUnlessStray(written, key, 'assertions', caseId);
          result.evaluators = translateGraders(
            value,
            [...written, key],
            [...ours, 'evaluators'],
            caseId,
          );
          break;
        default:
          result[key] = value;
      }
    }
    const graders = rendered.assertions ?? rendered.assert;
    if (graders !== undefined) {
      const key = rendered.assertions !== undefined ? 'assertions' : 'assert';
      if (key === 'assert') preferUnlessStray(written, key, 'assertions', caseId);
      result.evaluators = translateGraders(
        graders,
        [...written, key],
        [...ours, 'evaluators'],
        caseId,
      );
    }
    if (
      rendered.input !== undefined ||
      rendered.input_files !== undefined ||
      raw.input !== undefined
    ) {
      const messages = inputMessages(rendered, vars, ours, written);
      if (messages !== undefined) result.input_messages = messages;
    }
    if (strayKeysOnly) {
      const stray = NEW_CASE_KEYS.find((key) => rendered[key] !== undefined);
      if (stray !== undefined) warnStrayKey(written, stray, caseId);
    } else if (
      listKey === 'evalcases' &&
      !warnedEvalcases &&
      (rendered.input !== undefined || rendered.criteria !== undefined || graders !== undefined)
    ) {
      warnedEvalcases = true;
      prefer([], 'evalcases', 'tests');
    }
    return result;
  }

  /** The case's messages: the file's `input` first, then the case's (`input_files` as file blocks). */
  function inputMessages(
    item: Record<string, unknown>,
    vars: Record<string, unknown> | undefined,
    ours: PropertyKey[],
    written: PropertyKey[],
  ): unknown[] | undefined {
    const suite =
      raw.input === undefined
        ? []
        : (expandInput(vars ? interpolateCaseVars({ input: raw.input }, vars).input : raw.input) ??
          []);
    for (let index = 0; index < suite.length; index++) {
      map.set(
        [...ours, 'input_messages', index],
        Array.isArray(raw.input) ? ['input', index] : ['input'],
      );
    }
    const files = item.input_files ?? raw.input_files;
    let own: unknown[] | undefined;
    if (files !== undefined && Array.isArray(files) && typeof item.input === 'string') {
      const blocks = files
        .filter((file) => typeof file === 'string')
        .map((file) => ({ type: 'file', value: file }));
      own = [{ role: 'user', content: [...blocks, { type: 'text', value: item.input }] }];
    } else {
      own = item.input === undefined ? undefined : expandInput(item.input);
    }
    if (own === undefined) {
      // Not a shape upstream reads: handed on as written, for the schema to report at its line.
      if (item.input === undefined) return suite.length > 0 ? suite : undefined;
      map.set([...ours, 'input_messages'], [...written, 'input']);
      return item.input as unknown[];
    }
    own.forEach((_, index) => {
      map.set(
        [...ours, 'input_messages', suite.length + index],
        Array.isArray(item.input) ? [...written, 'input', index] : [...written, 'input'],
      );
    });
    if (suite.length === 0) map.set([...ours, 'input_messages'], [...written, 'input']);
    return [...suite, ...own];
  }
}

/** Upstream's `input:` shorthand: text is one user message, a mapping without `role` its content. */
function expandInput(value: unknown): unknown[] | undefined {
  if (typeof value === 'string') return [{ role: 'user', content: value }];
  if (isRecord(value)) return 'role' in value ? [value] : [{ role: 'user', content: value }];
  if (Array.isArray(value)) return value;
  return undefined;
}

/** Upstream's `expected_output:` shorthand: text, a mapping or blocks are one assistant message. */
function expectedMessages(value: unknown): unknown {
  if (typeof value === 'string') return [{ role: 'assistant', content: value }];
  if (Array.isArray(value)) {
    if (value.length > 0 && isRecord(value[0]) && 'role' in value[0]) return value;
    return [{ role: 'assistant', content: value }];
  }
  if (isRecord(value)) return 'role' in value ? [value] : [{ role: 'assistant', content: value }];
  return value;
}
