import type { EvaluationResult } from '@agentv/core';
import { type ResultRecordOptions, toResultRecord } from './to-result-record.js';

/**
 * Renders the result lines of a run: `JSON.stringify(toResultRecord(result, options))`,
 * each eval file's name computed once per file rather than once per line.
 */
export function createResultLineRenderer(
  options: ResultRecordOptions = {},
): (result: EvaluationResult) => string {
  const evalFileName = options.evalFileName;
  if (evalFileName === undefined)
    return (result) => JSON.stringify(toResultRecord(result, options));
  const names = new Map<string, string>();
  const cached: ResultRecordOptions = {
    ...options,
    evalFileName: (file) => {
      let name = names.get(file);
      if (name === undefined) {
        name = evalFileName(file);
        names.set(file, name);
      }
      return name;
    },
  };
  return (result) => JSON.stringify(toResultRecord(result, cached));
}
