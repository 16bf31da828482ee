import { readFile } from 'node:fs/promises';
import { AgentvError } from '../errors/agentv-error.js';
import type { EvalCase, EvalMessage } from '../eval-file/eval-case.js';
import type { ChatMessage } from '../provider/chat-message.js';

/** A case's input messages rendered for providers. */
export interface BuiltPrompt {
  /** The prompt as one string; the judge sees exactly this. */
  question: string;
  /** The messages for chat APIs; guidelines merged into the (first) system message. */
  chatPrompt: ChatMessage[];
  /** Each guideline file as `<file path="...">\ncontent\n</file>`, joined by blank lines; '' when none. */
  guidelines: string;
  /** Absolute paths of the guideline files, in order of first use. */
  guidelineFiles: string[];
  /** Absolute paths of the other attached files, in order of first use. */
  inputFiles: string[];
}

const ROLE_LABELS: Record<EvalMessage['role'], string> = {
  system: 'System',
  user: 'User',
  assistant: 'Assistant',
  tool: 'Tool',
};

/**
 * Builds the prompt of a case. Guideline file blocks leave the turns and
 * form `guidelines`; other file blocks are embedded where they appear as
 * `<file path="as written">` elements. `question` is the text of the only
 * visible message, or every visible message under an `@[Role]:` line,
 * separated by blank lines. Messages left empty are dropped from
 * `chatPrompt`. Files are read as UTF-8; an unreadable file throws an
 * `AgentvError` naming the case and the file.
 */
export async function buildPrompt(evalCase: EvalCase): Promise<BuiltPrompt> {
  return buildTextPrompt(evalCase) ?? buildPromptWithFiles(evalCase);
}

/**
 * `buildPrompt` of a case whose messages are text only (most of a large run), built without
 * waiting for anything; undefined when a message has a file block.
 */
export function buildTextPrompt(evalCase: EvalCase): BuiltPrompt | undefined {
  // The messages go straight into the chat prompt: no list of turns per case.
  const chatPrompt: ChatMessage[] = [];
  for (const message of evalCase.inputMessages) {
    const content = message.content;
    let text: string;
    if (content.length === 1) {
      const block = content[0]!;
      if (block.type !== 'text') return undefined;
      text = block.value;
    } else {
      const parts: string[] = [];
      for (const block of content) {
        if (block.type !== 'text') return undefined;
        parts.push(block.value);
      }
      text = parts.join('\n');
    }
    if (text.trim() !== '') chatPrompt.push(chatMessageOf(message, text));
  }
  return {
    question: questionOf(chatPrompt),
    // Copied at its length: a list grown by `push` keeps room for 16 more messages (~130 bytes),
    // and a batch holds every case's request until its answers are in.
    chatPrompt: chatPrompt.slice(),
    guidelines: '',
    guidelineFiles: NO_FILES,
    inputFiles: NO_FILES,
  };
}

async function buildPromptWithFiles(evalCase: EvalCase): Promise<BuiltPrompt> {
  const contents = new Map<string, Promise<string>>();
  const read = (filePath: string): Promise<string> => {
    let content = contents.get(filePath);
    if (content === undefined) {
      content = readAttachedFile(evalCase.id, filePath);
      contents.set(filePath, content);
    }
    return content;
  };

  const guidelineFiles: string[] = [];
  const inputFiles: string[] = [];
  const visible: ChatMessage[] = [];
  for (const message of evalCase.inputMessages) {
    const parts: string[] = [];
    for (const block of message.content) {
      if (block.type === 'text') {
        parts.push(block.value);
      } else if (block.isGuideline) {
        if (!guidelineFiles.includes(block.path)) guidelineFiles.push(block.path);
      } else {
        if (!inputFiles.includes(block.path)) inputFiles.push(block.path);
        parts.push(fileElement(block.value, await read(block.path)));
      }
    }
    const text = parts.join('\n');
    if (text.trim() !== '') visible.push(chatMessageOf(message, text));
  }

  const guidelineTexts = await Promise.all(
    guidelineFiles.map(async (filePath) =>
      fileElement(guidelineLabel(evalCase, filePath), await read(filePath)),
    ),
  );
  const guidelines = guidelineTexts.join('\n\n');
  return {
    // Before the guidelines join the system message: the question does not hold them.
    question: questionOf(visible),
    chatPrompt: withGuidelines(visible, guidelines),
    guidelines,
    guidelineFiles: guidelineFiles.length === 0 ? NO_FILES : guidelineFiles,
    inputFiles: inputFiles.length === 0 ? NO_FILES : inputFiles,
  };
}

/** The visible messages (those not blank) as the prompt's one string. */
function questionOf(visible: readonly ChatMessage[]): string {
  return visible.length === 1
    ? visible[0]!.content
    : visible.map((message) => `@[${ROLE_LABELS[message.role]}]:\n${message.content}`).join('\n\n');
}

/**
 * Every prompt without guideline or input files (most of a large run, whose requests are all
 * held while a batch runs) shares this one empty list; frozen, so nothing can add to it.
 */
const NO_FILES = Object.freeze([]) as unknown as string[];

function chatMessageOf(message: EvalMessage, text: string): ChatMessage {
  const chatMessage: ChatMessage = { role: message.role, content: text };
  if (message.name !== undefined) chatMessage.name = message.name;
  return chatMessage;
}

/** The chat prompt with the guidelines merged into its (first) system message. */
function withGuidelines(chatPrompt: ChatMessage[], guidelines: string): ChatMessage[] {
  if (guidelines === '') return chatPrompt;
  const system = chatPrompt.find((message) => message.role === 'system');
  if (system) system.content = `${system.content}\n\n${guidelines}`;
  else chatPrompt.unshift({ role: 'system', content: guidelines });
  return chatPrompt;
}

/** `<file path="label">` element around a file's content (one trailing newline dropped). */
function fileElement(label: string, content: string): string {
  return `<file path="${label}">\n${content.replace(/\r?\n$/, '')}\n</file>`;
}

/** A guideline's path as written in the eval file (the first block that named it). */
function guidelineLabel(evalCase: EvalCase, filePath: string): string {
  for (const message of evalCase.inputMessages) {
    for (const block of message.content) {
      if (block.type === 'file' && block.path === filePath) return block.value;
    }
  }
  return filePath;
}

async function readAttachedFile(caseId: string, filePath: string): Promise<string> {
  try {
    return await readFile(filePath, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
    throw new AgentvError(`case "${caseId}": cannot read attached file ${filePath} (${code})`, {
      hint: 'the file existed when the eval file was loaded; check that it was not moved or deleted',
      cause: error,
    });
  }
}
