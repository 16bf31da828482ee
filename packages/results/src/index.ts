export type { FormatSummaryOptions } from './format-summary.js';
export { formatSummary } from './format-summary.js';
export type { ResultWriter } from './jsonl-writer.js';
export { createJsonlWriter } from './jsonl-writer.js';
export type { HistogramBin, RunStatistics, RunStatisticsOptions } from './statistics.js';
export { computeRunStatistics } from './statistics.js';
export { summarizeTrace } from './summarize-trace.js';
export type {
  EvaluatorResultRecord,
  OutputMessageRecord,
  ResultRecord,
  ResultRecordOptions,
} from './to-result-record.js';
export { toResultRecord } from './to-result-record.js';
