import type { Issue } from '../errors/input-issue.js';
import type { SourceLocator } from '../yaml/yaml-source.js';
import type { ContentBlock, EvalMessage, ExpectedToolCall } from './eval-case.js';
import type { MessageInput } from './eval-file-schema.js';
import { describeRefusal } from './file-roots.js';
import { type FileLookup, isGuidelineFile, resolveInputFile } from './resolve-input-file.js';

/** Where a message list is, for issues about its file blocks. */
export interface MessageListContext {
  file: string;
  source: SourceLocator;
  /** Data path of the list, e.g. `['evalcases', 0, 'input_messages']`. */
  path: readonly PropertyKey[];
  caseId?: string;
  lookup: FileLookup;
  issues: Issue[];
}

/**
 * Normalises validated messages: string content becomes one text block, an
 * object becomes `structured` plus a text block of pretty JSON, and file
 * blocks are resolved to absolute paths (a missing file is an error issue
 * listing every path tried; a file outside the project's roots, an error
 * saying where it resolved to).
 */
export async function buildMessages(
  messages: readonly MessageInput[],
  context: MessageListContext,
): Promise<EvalMessage[]> {
  return Promise.all(messages.map((message, index) => buildMessage(message, index, context)));
}

/**
 * `buildMessages` without waiting, for lists without file blocks (most
 * cases): undefined when a message has one, which needs the file system.
 */
export function buildMessagesWithoutFiles(
  messages: readonly MessageInput[],
): EvalMessage[] | undefined {
  for (let index = 0; index < messages.length; index++) {
    const content = messages[index]!.content;
    if (Array.isArray(content) && content.some((block) => block.type !== 'text')) return undefined;
  }
  // `map` sizes the list once: a large dataset keeps it for each of its cases, and a list grown
  // from empty by `push` keeps room for 17 messages (~130 bytes more per case).
  return messages.map((input) => toMessage(input, undefined));
}

/** The message without its content blocks when `blocks` is undefined (computed from text content). */
function toMessage(input: MessageInput, blocks: ContentBlock[] | undefined): EvalMessage {
  const message: EvalMessage = { role: input.role, content: [] };
  if (input.name !== undefined) message.name = input.name;
  const content = input.content;
  if (blocks !== undefined) {
    message.content = blocks;
  } else if (typeof content === 'string') {
    message.content = [{ type: 'text', value: content }];
  } else if (Array.isArray(content)) {
    message.content = content.map(
      (block) => ({ type: 'text', value: block.value }) satisfies ContentBlock,
    );
  } else if (content !== undefined) {
    message.structured = content;
    message.content = [{ type: 'text', value: JSON.stringify(content, null, 2) }];
  }
  if (input.tool_calls !== undefined) {
    message.toolCalls = input.tool_calls.map((call) => {
      const toolCall: ExpectedToolCall = { tool: call.tool };
      if (call.input !== undefined) toolCall.input = call.input;
      if (call.output !== undefined) toolCall.output = call.output;
      return toolCall;
    });
  }
  return message;
}

/** Normalises the message at position `index` of the list at `context.path`. */
export async function buildMessage(
  input: MessageInput,
  index: number,
  context: MessageListContext,
): Promise<EvalMessage> {
  const content = input.content;
  if (!Array.isArray(content)) return toMessage(input, undefined);
  const blocks = await Promise.all(
    content.map((block, blockIndex) =>
      block.type === 'text'
        ? ({ type: 'text', value: block.value } satisfies ContentBlock)
        : resolveFileBlock(
            block.value,
            [...context.path, index, 'content', blockIndex, 'value'],
            context,
          ),
    ),
  );
  return toMessage(
    input,
    blocks.filter((block): block is ContentBlock => block !== undefined),
  );
}

async function resolveFileBlock(
  value: string,
  valuePath: readonly PropertyKey[],
  context: MessageListContext,
): Promise<ContentBlock | undefined> {
  const fail = (message: string, hint: string): undefined => {
    const issue: Issue = {
      severity: 'error',
      file: context.file,
      ...context.source.locate(valuePath),
      message,
      hint,
    };
    if (context.caseId !== undefined) issue.caseId = context.caseId;
    context.issues.push(issue);
    return undefined;
  };
  if (value.trim() === '') {
    return fail('a file block has an empty path', 'set `value:` to the path of the file to attach');
  }
  const resolved = await resolveInputFile(value, context.lookup);
  if (resolved.refused !== undefined) {
    const problem = describeRefusal(
      `file "${value}"`,
      value,
      resolved.refused,
      context.lookup.roots,
    );
    return fail(problem.message, problem.hint);
  }
  if (resolved.path === undefined) {
    return fail(
      `file "${value}" not found; tried ${resolved.tried.join(', ')}`,
      "fix the path: relative paths resolve against the eval file's directory, then each parent directory up to the repository root, then the current directory",
    );
  }
  return {
    type: 'file',
    value,
    path: resolved.path,
    isGuideline: isGuidelineFile(resolved.path, context.lookup),
  };
}
