import type { Issue } from '../errors/input-issue.js';
import type { EvaluatorConfig } from './evaluator-config.js';

/** Grader types that run a command line written in their options. */
const COMMAND_GRADER_TYPES: ReadonlySet<string> = new Set(['code_judge', 'command']);

/** Where a dataset record is, for its issues. */
export interface DatasetRecordPlace {
  /** The dataset file as issues name it. */
  file: string;
  line: number;
  caseId?: string;
}

/**
 * Errors for the graders of a dataset record that would run a command: a
 * `code_judge` or a `command` grader, as one of its evaluators, a composite
 * member or a composite aggregator. A dataset may come from anyone (an
 * export, a download), so it can ask questions and name files of the
 * project, never run programs; such graders belong in the eval file, whose
 * `execution.evaluators` grade the records that bring none of their own.
 */
export function datasetCommandGraderIssues(
  evaluators: readonly EvaluatorConfig[],
  place: DatasetRecordPlace,
): Issue[] {
  return commandGraders(evaluators, '').map(({ name, type }) => {
    const issue: Issue = {
      severity: 'error',
      file: place.file,
      line: place.line,
      column: 1,
      message: `a dataset record cannot bring a ${type} grader ("${name}"): it would run a command written in the dataset`,
      hint: `write ${type === 'code_judge' ? 'code judges' : `${type} graders`} in the eval file's \`execution.evaluators\`, which grade every dataset record without evaluators of its own`,
    };
    if (place.caseId !== undefined) issue.caseId = place.caseId;
    return issue;
  });
}

/**
 * Names (`combined.members.check`, `combined.aggregator`) and types of the
 * graders that run a command.
 */
function commandGraders(
  evaluators: readonly unknown[],
  prefix: string,
): { name: string; type: string }[] {
  const found: { name: string; type: string }[] = [];
  for (const entry of evaluators) {
    if (typeof entry !== 'object' || entry === null) continue;
    const config = entry as Record<string, unknown>;
    const name = `${prefix}${typeof config.name === 'string' ? config.name : String(config.type)}`;
    if (typeof config.type === 'string' && COMMAND_GRADER_TYPES.has(config.type)) {
      found.push({ name, type: config.type });
    }
    if (config.type !== 'composite') continue;
    if (Array.isArray(config.evaluators)) {
      found.push(...commandGraders(config.evaluators, `${name}.members.`));
    }
    const aggregator = config.aggregator as Record<string, unknown> | undefined;
    if (typeof aggregator?.type === 'string' && COMMAND_GRADER_TYPES.has(aggregator.type)) {
      found.push({ name: `${name}.aggregator`, type: aggregator.type });
    }
  }
  return found;
}
