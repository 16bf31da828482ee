import { terminalText } from '@agentv/results';
import type { ProgressDisplay } from './progress-display-type.js';

/**
 * Where a run's warnings, provider lines and notes go: stderr until the progress display
 * starts, through it from then on. Warnings and provider lines name cases and echo agents:
 * one escaped line each.
 */
export interface RunConsole {
  /** The progress display, once the run has opened it. */
  progress: ProgressDisplay | undefined;
  /** `warning: <message>`. */
  warn(message: string): void;
  /** A provider's `--verbose` line. */
  log(line: string): void;
  /** A line of AgentV's own (already safe to print). */
  note(line: string): void;
}

export function createRunConsole(): RunConsole {
  const out: RunConsole = {
    progress: undefined,
    warn: (message) => out.note(`warning: ${terminalText(message)}`),
    log: (line) => out.note(terminalText(line)),
    note: (line) => {
      if (out.progress) out.progress.log(line);
      else process.stderr.write(`${line}\n`);
    },
  };
  return out;
}
