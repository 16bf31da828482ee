import type { ProgressDisplay } from './progress-display-type.js';
import { createProgressLines } from './progress-lines.js';
import { createProgressLive } from './progress-live.js';

export type { ProgressDisplay } from './progress-display-type.js';

export interface ProgressDisplayOptions {
  total: number;
  /** Where progress goes; the live display needs it to be a terminal. */
  stream: NodeJS.WriteStream;
  env?: NodeJS.ProcessEnv;
}

/**
 * A live display redrawn in place when `stream` is a terminal and the
 * environment is not CI (`CI` unset or empty, `TERM` not `dumb`); otherwise one
 * plain line per finished case, which suits logs and pipes.
 */
export function createProgressDisplay(options: ProgressDisplayOptions): ProgressDisplay {
  const write = (line: string) => options.stream.write(`${line}\n`);
  if (wantsLiveProgress(options.stream, options.env ?? process.env)) {
    return createProgressLive({ total: options.total, stream: options.stream });
  }
  const lines = createProgressLines(options.total, write);
  return {
    onCaseStart() {},
    onResult: (result) => lines.onResult(result),
    log(line, stream = process.stderr) {
      stream.write(`${line}\n`);
    },
    stop() {},
  };
}

/** True when progress can be redrawn in place on `stream`. */
export function wantsLiveProgress(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  if (stream.isTTY !== true) return false;
  if (env.CI !== undefined && env.CI !== '' && env.CI !== '0' && env.CI !== 'false') return false;
  return env.TERM !== 'dumb';
}
