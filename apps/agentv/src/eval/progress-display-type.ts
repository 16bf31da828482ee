import type { EvaluationResult } from '@agentv/core';

/** How a run reports its progress while cases finish. */
export interface ProgressDisplay {
  /** A case was handed to its provider. */
  onCaseStart(evalId: string): void;
  /** A case finished. */
  onResult(result: EvaluationResult): void;
  /** Prints a line to `stream` (stderr by default) without breaking the display; its control characters are escaped, its line breaks kept (`terminalLines`). */
  log(line: string, stream?: NodeJS.WritableStream): void;
  /** Stops redrawing and removes the live status lines; idempotent. */
  stop(): void;
}
