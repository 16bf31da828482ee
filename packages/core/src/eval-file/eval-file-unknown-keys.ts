import type { Issue } from '../errors/input-issue.js';
import { isRecord } from '../util/records.js';
import { formatPath } from '../yaml/describe-zod-issues.js';
import { type KeySpelling, readMisspelling, unknownKeyWarnings } from '../yaml/unknown-keys.js';
import type { SourceLocator } from '../yaml/yaml-source.js';
import { KNOWN_KEYS } from './eval-file-schema.js';
import { QUESTION_KEYS } from './read-dataset.js';
import {
  INFO_KEYS,
  NEW_FILE_KEYS,
  NOT_UPSTREAM_CASE_KEYS,
  UPSTREAM_CASE_KEYS,
  UPSTREAM_NAMES,
} from './upstream/translate-upstream-format.js';

const KNOWN = {
  case: new Set(KNOWN_KEYS.case),
  // A dataset line's question keys are read before its keys are checked; a misspelling of one
  // gets its "did you mean".
  datasetCase: new Set([...KNOWN_KEYS.case, ...QUESTION_KEYS]),
  caseExecution: new Set(KNOWN_KEYS.caseExecution),
  file: new Set(KNOWN_KEYS.file),
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

/**
 * A format's spelling of keys checked as `known`: the `UPSTREAM_NAMES` ones (and old names) are
 * matched but named as it writes them, and not listed.
 */
function spellingOf(words: readonly string[]): KeySpelling {
  const renamed = Object.keys(UPSTREAM_NAMES);
  return {
    match: [...new Set([...words, ...renamed])],
    named: UPSTREAM_NAMES,
    list: words.filter((key) => !renamed.includes(key)),
  };
}

/** How a case of an AgentV 4.x `tests:` file spells its keys (`input`, `assertions`…). */
const UPSTREAM_CASE = spellingOf([
  ...KNOWN_KEYS.case.filter((key) => !NOT_UPSTREAM_CASE_KEYS.includes(key)),
  ...UPSTREAM_CASE_KEYS,
]);

/** How such a file spells its top-level keys (`tests`, `assertions`, `name`…). */
const UPSTREAM_FILE = spellingOf([
  ...KNOWN_KEYS.file.filter((key) => key !== 'evalcases'),
  ...NEW_FILE_KEYS,
  ...INFO_KEYS,
]);

/** A list of graders, under whichever name the format gives it. */
const holdsGraders = LEFT_OUT_WHEN_MISSPELT.evaluators;

/** A `tests:` file's lists of graders, under any name it may give them. */
const UPSTREAM_GRADER_LISTS = {
  evaluators: holdsGraders,
  assertions: holdsGraders,
  assert: holdsGraders,
};

/** `LEFT_OUT_WHEN_MISSPELT` where graders are also `assertions:` (or `assert:`). */
const UPSTREAM_LEFT_OUT_WHEN_MISSPELT: Readonly<Record<string, (value: unknown) => boolean>> = {
  ...LEFT_OUT_WHEN_MISSPELT,
  ...UPSTREAM_GRADER_LISTS,
};

/**
 * How an `evalcases:` file's top-level keys are matched: also against `tests`, the list of a
 * `tests:` file, which a misspelling of it (`test:`) leaves this format's file looking like.
 */
const FILE_SPELLING: KeySpelling = { match: [...KNOWN_KEYS.file, 'tests'], list: KNOWN_KEYS.file };

/** The top level's: a misspelt list of cases or dataset, the run would quietly have fewer. */
const FILE_LEFT_OUT_WHEN_MISSPELT = { evalcases: true, cases: true, tests: true } as const;
/** A `tests:` file's lists of cases, under any name it may give them. */
const UPSTREAM_FILE_CASE_LISTS = { ...FILE_LEFT_OUT_WHEN_MISSPELT, eval_cases: true } as const;
/** In a `tests:` file also the suite's graders. */
const UPSTREAM_FILE_LEFT_OUT_WHEN_MISSPELT = {
  ...UPSTREAM_FILE_CASE_LISTS,
  ...UPSTREAM_GRADER_LISTS,
} as const;

/**
 * Whether `value` has an unknown key that `evalFileUnknownKeyWarnings` reports as a misspelt
 * list of graders or rubrics (`evaluators:`, `assertions:`, `rubrics:`) that would be left out:
 * an error at that key. `errorWhenMisspelt` is the table that check gives the same mapping, or
 * its graders' part.
 */
function misspeltGraders(
  value: unknown,
  known: ReadonlySet<string>,
  errorWhenMisspelt: Readonly<Record<string, (value: unknown) => boolean>>,
  spelling?: KeySpelling,
): boolean {
  if (!isRecord(value)) return false;
  const options = {
    known: [...known],
    ...(spelling === undefined ? {} : { spelling }),
    errorWhenMisspelt,
  };
  for (const key in value) {
    if (known.has(key)) continue;
    if (readMisspelling(key, value[key], options).leavesOut) return true;
  }
  return false;
}

/**
 * Whether a case (of an eval file, or a dataset line's) lists graders or rubrics under a
 * misspelt key of its own or of its `execution` (`evaluator:`, in a `tests:` file `assertion:`):
 * an error reported at that key, which is then the reason the case has no graders (it is not
 * also reported as having none).
 */
export function caseMisspellsGraders(
  rawCase: unknown,
  datasetLine: boolean,
  /** The case is a `tests:` file's, translated. */
  upstream = false,
): boolean {
  if (!isRecord(rawCase)) return false;
  const caseKeys = datasetLine ? KNOWN.datasetCase : KNOWN.case;
  return (
    (upstream
      ? misspeltGraders(rawCase, caseKeys, UPSTREAM_LEFT_OUT_WHEN_MISSPELT, UPSTREAM_CASE)
      : misspeltGraders(rawCase, caseKeys, LEFT_OUT_WHEN_MISSPELT)) ||
    misspeltGraders(rawCase.execution, KNOWN.caseExecution, LEFT_OUT_WHEN_MISSPELT)
  );
}

/**
 * Whether the file lists its graders under a misspelt key (see above): of its `execution`, or in
 * a `tests:` file (translated) its suite-level `assertions:`.
 */
export function fileMisspellsGraders(data: Record<string, unknown>, upstream: boolean): boolean {
  return (
    misspeltGraders(data.execution, KNOWN.fileExecution, LEFT_OUT_WHEN_MISSPELT) ||
    // The graders' part of `UPSTREAM_FILE_LEFT_OUT_WHEN_MISSPELT`: a misspelt list of cases is
    // `fileMisspellsCases`'s.
    (upstream && misspeltGraders(data, KNOWN.file, UPSTREAM_GRADER_LISTS, UPSTREAM_FILE))
  );
}

/**
 * Whether the file's list of cases (or its dataset) is under a misspelt top-level key
 * (`evalcase:`, `test:`): an error reported at that key, which is then the reason the file has
 * no cases (it is not also reported as missing `evalcases`).
 */
export function fileMisspellsCases(data: Record<string, unknown>, upstream: boolean): boolean {
  const options = {
    known: KNOWN_KEYS.file,
    spelling: upstream ? UPSTREAM_FILE : FILE_SPELLING,
    errorWhenMisspelt: upstream ? UPSTREAM_FILE_CASE_LISTS : FILE_LEFT_OUT_WHEN_MISSPELT,
  };
  for (const key in data) {
    if (KNOWN.file.has(key)) continue;
    if (readMisspelling(key, data[key], options).leavesOut) return true;
  }
  return false;
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
      spelling: upstream ? UPSTREAM_FILE : FILE_SPELLING,
      where: 'at the top level',
      // A misspelt list of cases or dataset: the run would quietly have fewer cases (in a `tests:`
      // file also the suite's graders).
      errorWhenMisspelt: upstream
        ? UPSTREAM_FILE_LEFT_OUT_WHEN_MISSPELT
        : FILE_LEFT_OUT_WHEN_MISSPELT,
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
      spelling?: KeySpelling,
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
          ...(spelling === undefined ? {} : { spelling }),
          where: shown === '' ? '' : `in ${shown}`,
          errorWhenMisspelt:
            spelling === undefined ? LEFT_OUT_WHEN_MISSPELT : UPSTREAM_LEFT_OUT_WHEN_MISSPELT,
          ...(caseId === undefined ? {} : { caseId }),
        }),
      );
    };
    check(evalCase, [], caseKeys, upstream ? UPSTREAM_CASE : undefined);
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
