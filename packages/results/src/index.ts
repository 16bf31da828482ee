// The public API of @agentv/results: named exports only.

export { safeFileStem } from './case-file-names.js';
export { checkResultLine } from './check-result-line.js';
export type {
  CaseChange,
  CaseComparison,
  CaseOutcome,
  ComparableResult,
  CompareOptions,
  McNemarTest,
  PairedChange,
  RunComparison,
  UnmatchedCase,
} from './compare-runs.js';
export {
  compareRuns,
  DEFAULT_BOOTSTRAP_RESAMPLES,
  DEFAULT_BOOTSTRAP_SEED,
  MCNEMAR_EXACT_BELOW,
  mcnemarTest,
  pairedBootstrap,
  TIE_TOLERANCE,
} from './compare-runs.js';
export type { FormatSummaryOptions } from './format-summary.js';
export { formatSummary } from './format-summary.js';
export type { HtmlReportOptions } from './html-report.js';
export { writeHtmlReport } from './html-report.js';
export { createJsonlWriter } from './jsonl-writer.js';
export type { JunitOptions, NotRunCase } from './junit-writer.js';
export { writeJunitReport } from './junit-writer.js';
export type { PromptDumpFile, PromptDumpRecord, PromptDumpWriter } from './prompt-dump-writer.js';
export { createPromptDumpWriter } from './prompt-dump-writer.js';
export type { ReadResultFileOptions, ReadResultLine } from './read-result-file.js';
export { fromResultRecord, ResultFileLineError, readResultFile } from './read-result-file.js';
export type { ResultWriter } from './result-file-writer.js';
export type {
  ConversationTurnRecord,
  EvaluatorResultRecord,
  RepeatSummaryRecord,
  ResultRecord,
  RunRecord,
} from './result-line-schema.js';
export { terminalLines, terminalText } from './terminal-text.js';
export type { ResultRecordOptions } from './to-result-record.js';
export { toResultRecord } from './to-result-record.js';
export type { TraceDumpFile, TraceDumpRecord, TraceDumpWriter } from './trace-dump-writer.js';
export { createTraceDumpWriter } from './trace-dump-writer.js';
export type { TranscriptRecord, TranscriptWriter } from './transcript-writer.js';
export { createTranscriptWriter, transcriptsFolder } from './transcript-writer.js';
export type {
  WorkspaceChanges,
  WorkspaceChangesFile,
  WorkspaceChangesRecord,
  WorkspaceChangesWriter,
} from './workspace-changes-writer.js';
export {
  createWorkspaceChangesWriter,
  readWorkspaceChanges,
  workspaceChangesFolder,
} from './workspace-changes-writer.js';
export { writeFileAtomically } from './write-file-atomically.js';
export { createYamlWriter } from './yaml-writer.js';
