import type { EvalMessage } from '../eval-file/eval-case.js';
import { type OutputMessage, outputMessageRecord } from '../trace/output-message.js';
import { type TraceEventRecord, traceRecords } from '../trace/trace-event.js';
import type { TraceSummary } from '../trace/trace-summary.js';
import type { FileChanges } from '../workspace/file-changes.js';
import type { EvaluationContext } from './evaluator.js';

/** A message as a code judge receives it. */
export interface CodeJudgeMessage {
  role: string;
  name?: string;
  /** The structured object when the message had one, else its text (null when it has none). */
  content: unknown;
  tool_calls?: unknown[];
}

/** The JSON object written to a code judge's stdin (snake_case; absent values are null). */
export interface CodeJudgePayload {
  question: string;
  expected_outcome: string | null;
  expected_messages: CodeJudgeMessage[];
  reference_answer: string | null;
  candidate_answer: string;
  guideline_files: string[];
  input_files: string[];
  input_messages: CodeJudgeMessage[];
  output_messages: CodeJudgeMessage[] | null;
  candidate_trace: TraceEventRecord[] | null;
  candidate_trace_summary: TraceSummary | null;
  /** The case's `vars` (a CSV dataset's other columns). */
  vars: Record<string, unknown> | null;
  /** Absolute path of the case's workspace (the script's working directory by default). */
  workspace_path: string | null;
  /** What the agent changed in the workspace, from the baseline taken before it ran. */
  file_changes: CodeJudgeFileChanges | null;
}

/** `file_changes` of a code judge's payload: the workspace's `FileChanges`, snake_case. */
export interface CodeJudgeFileChanges {
  /** Every changed path, relative to the workspace with `/` separators, sorted. */
  files: { path: string; status: string; binary?: true; insertions: number; deletions: number }[];
  insertions: number;
  deletions: number;
  /** A unified diff (`a/` and `b/` prefixes); a binary file is a `Binary files … differ` line. */
  diff: string;
}

/**
 * Builds the code judge's stdin object from the evaluation context. The text
 * of an eval message is its text blocks joined by newlines; its file blocks
 * are listed in `input_files` / `guideline_files` instead.
 */
export function buildCodeJudgePayload(context: EvaluationContext): CodeJudgePayload {
  const { evalCase } = context;
  return {
    question: context.question,
    expected_outcome: evalCase.expectedOutcome ?? null,
    expected_messages: evalCase.expectedMessages.map(fromEvalMessage),
    reference_answer: context.referenceAnswer ?? null,
    candidate_answer: context.candidateAnswer,
    guideline_files: context.guidelineFiles,
    input_files: context.inputFiles,
    input_messages: evalCase.inputMessages.map(fromEvalMessage),
    output_messages: context.outputMessages?.map(fromOutputMessage) ?? null,
    candidate_trace: context.trace ? traceRecords(context.trace) : null,
    candidate_trace_summary: context.traceSummary ?? null,
    vars: evalCase.vars ?? null,
    workspace_path: context.workspace?.path ?? null,
    file_changes: context.workspace === undefined ? null : fileChanges(context.workspace.changes),
  };
}

function fileChanges(changes: FileChanges): CodeJudgeFileChanges {
  return {
    files: changes.files.map((file) => ({
      path: file.path,
      status: file.status,
      ...(file.binary ? { binary: true as const } : {}),
      insertions: file.insertions,
      deletions: file.deletions,
    })),
    insertions: changes.insertions,
    deletions: changes.deletions,
    diff: changes.diff,
  };
}

function fromEvalMessage(message: EvalMessage): CodeJudgeMessage {
  const text = message.content
    .flatMap((block) => (block.type === 'text' ? [block.value] : []))
    .join('\n');
  return toMessage(message.role, message.name, message.structured ?? text, message.toolCalls);
}

function fromOutputMessage(message: OutputMessage): CodeJudgeMessage {
  return { ...outputMessageRecord(message), content: message.content ?? null };
}

function toMessage(
  role: string,
  name: string | undefined,
  content: unknown,
  toolCalls: unknown[] | undefined,
): CodeJudgeMessage {
  return {
    role,
    ...(name === undefined ? {} : { name }),
    content,
    ...(toolCalls === undefined ? {} : { tool_calls: toolCalls }),
  };
}
