import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ProviderRequest } from '@agentv/core/provider-utils';
import { FILE_PLACEHOLDERS } from './placeholders.js';
import type { PlaceholderValues } from './render-command-template.js';

/** The files `preparePlaceholderValues` may name in a call's temp dir. */
export const CALL_FILES = {
  prompt: 'prompt.txt',
  input: 'input.json',
  output: 'output.txt',
  trace: 'trace.otlp.json',
  conversation: 'conversation.json',
} as const;

/** Placeholder values for one call, and where the command writes its answer. */
export interface PreparedValues {
  values: PlaceholderValues;
  /** Set when the template uses `{OUTPUT_FILE}`. */
  outputFile?: string;
  /** Set when the template uses `{TRACE_FILE}`: where the agent may write OTLP/JSON spans. */
  traceFile?: string;
}

/**
 * Computes the value of every placeholder; file placeholders only when `used`
 * by the template (see `CompiledCommandTemplate.uses`), with paths in
 * `tempDir`: `{PROMPT_FILE}` and `{INPUT_FILE}` are written now; `{OUTPUT_FILE}`
 * is a fresh path the command creates.
 */
export async function preparePlaceholderValues(
  request: ProviderRequest,
  used: ReadonlySet<string>,
  tempDir: string | undefined,
): Promise<PreparedValues> {
  const values: PlaceholderValues = {
    PROMPT: request.question,
    GUIDELINES: request.guidelines,
    EVAL_ID: request.evalCaseId,
    ATTEMPT: String(request.attempt),
    REPEAT: String(request.repeat ?? 1),
    FILES: caseFiles(request),
    ATTACHMENTS: request.inputFiles,
  };
  // Only a case with a workspace has one: `{WORKSPACE}` without it is render's "has no value".
  if (request.workspace !== undefined) values.WORKSPACE = request.workspace;
  if (request.evalDir !== undefined) values.EVAL_DIR = request.evalDir;
  // A case that is no conversation is a conversation of one turn. Set only in a conversation or
  // when named: two more variables per spawn cost every plain case (CONTRIBUTING, issue 22).
  if (request.conversation !== undefined || used.has('TURN')) {
    values.TURN = String(request.conversation?.turn ?? 1);
  }
  if (request.conversation !== undefined || used.has('CONVERSATION_ID')) {
    values.CONVERSATION_ID = request.conversation?.id ?? request.evalCaseId;
  }
  const prepared: PreparedValues = { values };
  const needsFile = FILE_PLACEHOLDERS.some((name) => used.has(name));
  if (!needsFile) return prepared;
  if (tempDir === undefined) throw new Error('file placeholders need a temp dir');

  if (used.has('PROMPT_FILE')) {
    const path = join(tempDir, CALL_FILES.prompt);
    await writeFile(path, request.question, { mode: 0o600 });
    values.PROMPT_FILE = path;
  }
  if (used.has('INPUT_FILE')) {
    const path = join(tempDir, CALL_FILES.input);
    await writeFile(path, JSON.stringify(requestRecord(request), null, 2), { mode: 0o600 });
    values.INPUT_FILE = path;
  }
  if (used.has('CONVERSATION_FILE')) {
    const path = join(tempDir, CALL_FILES.conversation);
    await writeFile(path, JSON.stringify(conversationRecord(request), null, 2), { mode: 0o600 });
    values.CONVERSATION_FILE = path;
  }
  if (used.has('OUTPUT_FILE')) {
    prepared.outputFile = join(tempDir, CALL_FILES.output);
    values.OUTPUT_FILE = prepared.outputFile;
  }
  if (used.has('TRACE_FILE')) {
    prepared.traceFile = join(tempDir, CALL_FILES.trace);
    values.TRACE_FILE = prepared.traceFile;
  }
  return prepared;
}

/**
 * The `{CONVERSATION_FILE}` JSON: `{id, turn, messages}`, `messages` being the
 * conversation so far (`{role, content}`, this turn's user message last).
 */
export function conversationRecord(request: ProviderRequest): Record<string, unknown> {
  return {
    id: request.conversation?.id ?? request.evalCaseId,
    turn: request.conversation?.turn ?? 1,
    messages: chatRecords(request.chatPrompt),
  };
}

function chatRecords(messages: ProviderRequest['chatPrompt']): Record<string, unknown>[] {
  return messages.map((message) => ({
    role: message.role,
    ...(message.name === undefined ? {} : { name: message.name }),
    content: message.content,
  }));
}

/**
 * The files of `{FILES}`, as AgentV lists them: every file the case
 * references, its guideline files first, then its other input files.
 */
export function caseFiles(
  request: Pick<ProviderRequest, 'guidelineFiles' | 'inputFiles'>,
): string[] {
  return [...request.guidelineFiles, ...request.inputFiles];
}

/**
 * The `{INPUT_FILE}` JSON (and a persistent agent's request line): the request in
 * snake_case, one record; `workspace` is the case's workspace when it has one.
 */
export function requestRecord(request: ProviderRequest): Record<string, unknown> {
  return {
    id: request.evalCaseId,
    question: request.question,
    guidelines: request.guidelines,
    guideline_files: request.guidelineFiles,
    input_files: request.inputFiles,
    ...(request.chatPrompt.length > 0 ? { input_messages: chatRecords(request.chatPrompt) } : {}),
    ...(request.expectedOutcome === undefined ? {} : { expected_outcome: request.expectedOutcome }),
    ...(request.workspace === undefined ? {} : { workspace: request.workspace }),
  };
}
