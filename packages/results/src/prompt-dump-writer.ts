import type { BuiltPrompt } from '@agentv/core/internal';
import type { ChatMessage } from '@agentv/core/provider-utils';
import { createCaseFileFolder } from './case-file-names.js';

/** One case's prompt to dump. */
export interface PromptDumpRecord {
  evalId: string;
  dataset: string;
  /** Absolute path of the eval file. */
  evalFile: string;
  target: string;
  prompt: BuiltPrompt;
}

/** The content of one prompt dump file: exactly what the provider is given. */
export interface PromptDumpFile {
  eval_id: string;
  dataset: string;
  eval_file: string;
  target: string;
  question: string;
  chat_prompt: ChatMessage[];
  guidelines: string;
  guideline_files: string[];
  input_files: string[];
}

export interface PromptDumpWriter {
  /** Absolute path of the folder the files go to. */
  readonly directory: string;
  /** Writes one case's file and resolves to its absolute path. */
  write(record: PromptDumpRecord): Promise<string>;
}

/**
 * Writes one pretty-printed JSON file per case into `directory` (created on
 * the first write), named `<case>.json` after the sanitised case id: no id can
 * place a file outside the folder, and two cases with the same id (from two
 * eval files) get different names.
 */
export function createPromptDumpWriter(directory: string): PromptDumpWriter {
  const folder = createCaseFileFolder(directory);
  return {
    directory: folder.directory,
    write: (record) => folder.writeJson(`${folder.stemFor(record)}.json`, toPromptDumpFile(record)),
  };
}

function toPromptDumpFile({ evalId, dataset, evalFile, target, prompt }: PromptDumpRecord) {
  const file: PromptDumpFile = {
    eval_id: evalId,
    dataset,
    eval_file: evalFile,
    target,
    question: prompt.question,
    chat_prompt: prompt.chatPrompt,
    guidelines: prompt.guidelines,
    guideline_files: prompt.guidelineFiles,
    input_files: prompt.inputFiles,
  };
  return file;
}
