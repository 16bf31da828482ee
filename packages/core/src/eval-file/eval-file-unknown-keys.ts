import type { Issue } from '../errors/input-issue.js';
import { closestMatch } from '../util/closest-match.js';
import { isRecord } from '../util/records.js';
import { formatPath } from '../yaml/describe-zod-issues.js';
import { unknownKeyWarnings } from '../yaml/unknown-keys.js';
import type { SourceLocator } from '../yaml/yaml-source.js';
import { KNOWN_KEYS } from './eval-file-schema.js';
import { QUESTION_KEYS } from './read-dataset.js';
import {
  NOT_UPSTREAM_CASE_KEYS,
  UPSTREAM_CASE_KEYS,
} from './upstream/translate-upstream-format.js';

const KNOWN = {
  case: new Set(KNOWN_KEYS.case),
  // A dataset line's question keys are read before its keys are checked; a misspelling of one
  // gets its "did you mean".
  datasetCase: new Set([...KNOWN_KEYS.case, ...QUESTION_KEYS]),
  caseExecution: new Set(KNOWN_KEYS.caseExecution),
  fileExecution: new Set(KNOWN_KEYS.fileExecution),
  message: new Set(KNOWN_KEYS.message),
};

/**
 * Keys of a case or an `execution` block whose misspelling is an error when it holds what the key
 * would (a list of graders, a list of rubrics): they would not run, and the case would be graded
 * by the file's evaluators alone, or not at all. `evaluation: manual` stays a warning.
 */
const LEFT_OUT_WHEN_MISSPELT = {
  evaluators: (value: unknown) =>
    Array.isArray(value) && value.some((item) => isRecord(item) && 'type' in item),
  rubrics: (value: unknown) => Array.isArray(value) && value.length > 0,
};

/** The keys a case of an AgentV 4.x `tests:` file spells, offered in its hints. */
const UPSTREAM_CASE_WORDS = [
  ...KNOWN_KEYS.case.filter((key) => !NOT_UPSTREAM_CASE_KEYS.includes(key)),
  ...UPSTREAM_CASE_KEYS,
];

/** `LEFT_OUT_WHEN_MISSPELT` for such a case: its graders are `assertions:` (or `assert:`). */
const UPSTREAM_LEFT_OUT_WHEN_MISSPELT = {
  ...LEFT_OUT_WHEN_MISSPELT,
  assertions: LEFT_OUT_WHEN_MISSPELT.evaluators,
  assert: LEFT_OUT_WHEN_MISSPELT.evaluators,
};

/** Keys whose misspelling holding graders leaves a case without them. */
const GRADER_KEYS = new Set(['evaluators', 'assertions', 'assert']);

/**
 * Whether `value` has an unknown key that `evalFileUnknownKeyWarnings` reports as a misspelt
 * `evaluators:` whose graders would be left out (an error at that key).
 */
function misspeltEvaluators(
  value: unknown,
  known: ReadonlySet<string>,
  offered: readonly string[] = [...known],
): boolean {
  if (!isRecord(value)) return false;
  for (const key in value) {
    if (known.has(key)) continue;
    const suggestion = closestMatch(key, offered);
    if (suggestion === undefined || !GRADER_KEYS.has(suggestion)) continue;
    if (LEFT_OUT_WHEN_MISSPELT.evaluators(value[key])) return true;
  }
  return false;
}

/**
 * Whether a case (of an eval file, or a dataset line's) lists graders under a misspelt
 * `evaluators:` of its own or of its `execution`: an error reported at that key, which is then
 * the reason the case has no graders (it is not also reported as having none).
 */
export function caseMisspellsEvaluators(
  rawCase: unknown,
  datasetLine: boolean,
  /** The case is a `tests:` file's, translated: its graders were spelt `assertions:`. */
  upstream = false,
): boolean {
  if (!isRecord(rawCase)) return false;
  const caseKeys = datasetLine ? KNOWN.datasetCase : KNOWN.case;
  return (
    misspeltEvaluators(rawCase, caseKeys, upstream ? UPSTREAM_CASE_WORDS : undefined) ||
    misspeltEvaluators(rawCase.execution, KNOWN.caseExecution)
  );
}

/** Whether the file's `execution` lists graders under a misspelt `evaluators:` (see above). */
export function executionMisspellsEvaluators(execution: unknown): boolean {
  return misspeltEvaluators(execution, KNOWN.fileExecution);
}

function hasUnknownKey(value: unknown, known: ReadonlySet<string>): boolean {
  if (!isRecord(value)) return false;
  for (const key in value) if (!known.has(key)) return true;
  return false;
}

/** Whether any mapping `evalFileUnknownKeyWarnings` checks in a case has a key it does not know. */
function caseHasUnknownKey(
  evalCase: Record<string, unknown>,
  caseKeys: ReadonlySet<string>,
): boolean {
  return (
    hasUnknownKey(evalCase, caseKeys) ||
    hasUnknownKey(evalCase.execution, KNOWN.caseExecution) ||
    someHasUnknownKey(evalCase.input_messages, KNOWN.message) ||
    someHasUnknownKey(evalCase.expected_messages, KNOWN.message)
  );
}

/** `hasUnknownKey` for the items of a list (an indexed loop: it runs for every case). */
function someHasUnknownKey(list: unknown, known: ReadonlySet<string>): boolean {
  if (!Array.isArray(list)) return false;
  for (let index = 0; index < list.length; index++) {
    if (hasUnknownKey(list[index], known)) return true;
  }
  return false;
}

/**
 * Warnings for keys an eval file does not understand: at the top level, in
 * `execution`, in each case, its `execution` and its messages.
 */
export function evalFileUnknownKeyWarnings(
  data: Record<string, unknown>,
  file: string,
  source: SourceLocator,
  /** A dataset line's case: it may also give its question as `question` or `input`. */
  datasetLine = false,
  /** `data` is a `tests:` file translated: its cases' keys are named as that format spells them. */
  upstream = false,
): Issue[] {
  const caseKeys = datasetLine ? KNOWN.datasetCase : KNOWN.case;
  const issues = [
    ...unknownKeyWarnings(data, {
      file,
      source,
      path: [],
      known: KNOWN_KEYS.file,
      where: 'at the top level',
      // A misspelt list of cases or dataset: the run would quietly have fewer cases.
      errorWhenMisspelt: { evalcases: true, cases: true },
    }),
    ...unknownKeyWarnings(data.execution, {
      file,
      source,
      path: ['execution'],
      known: KNOWN_KEYS.fileExecution,
      where: 'in execution',
      errorWhenMisspelt: LEFT_OUT_WHEN_MISSPELT,
    }),
  ];
  if (!Array.isArray(data.evalcases)) return issues;
  data.evalcases.forEach((rawCase: unknown, index) => {
    if (typeof rawCase !== 'object' || rawCase === null) return;
    const evalCase = rawCase as Record<string, unknown>;
    if (!caseHasUnknownKey(evalCase, caseKeys)) return;
    const casePath = ['evalcases', index];
    const caseId = typeof evalCase.id === 'string' && evalCase.id !== '' ? evalCase.id : undefined;
    const check = (
      value: unknown,
      relative: PropertyKey[],
      known: ReadonlySet<string>,
      spelt?: readonly string[],
    ) => {
      // Most mappings have no unknown key; skip building the warning context for them.
      if (!hasUnknownKey(value, known)) return;
      const shown = formatPath(caseId === undefined ? [...casePath, ...relative] : relative);
      issues.push(
        ...unknownKeyWarnings(value, {
          file,
          source,
          path: [...casePath, ...relative],
          known: [...known],
          ...(spelt === undefined ? {} : { suggest: spelt }),
          where: shown === '' ? '' : `in ${shown}`,
          errorWhenMisspelt:
            spelt === undefined ? LEFT_OUT_WHEN_MISSPELT : UPSTREAM_LEFT_OUT_WHEN_MISSPELT,
          ...(caseId === undefined ? {} : { caseId }),
        }),
      );
    };
    check(evalCase, [], caseKeys, upstream ? UPSTREAM_CASE_WORDS : undefined);
    check(evalCase.execution, ['execution'], KNOWN.caseExecution);
    for (const key of ['input_messages', 'expected_messages']) {
      const messages = evalCase[key];
      if (!Array.isArray(messages)) continue;
      messages.forEach((message: unknown, messageIndex) => {
        check(message, [key, messageIndex], KNOWN.message);
      });
    }
  });
  return issues;
}
