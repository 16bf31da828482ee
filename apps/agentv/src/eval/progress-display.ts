import { terminalLines } from '@agentv/results';
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
  if (wantsLiveProgress(options.stream, options.env ?? process.env)) {
    return createProgressLive({ total: options.total, stream: options.stream });
  }
  const output = coalescedWriter(options.stream);
  const lines = createProgressLines(options.total, output.write);
  return {
    onCaseStart() {},
    onResult: (result) => lines.onResult(result),
    log(line, stream = process.stderr) {
      // Progress lines written so far come first, whichever stream the log line goes to.
      output.flush();
      stream.write(`${terminalLines(line)}\n`);
    },
    stop() {
      output.flush();
    },
  };
}

/** Text gathered before it is written without waiting for the end of the turn. */
const FLUSH_CHARS = 65_536;

/**
 * Lines for `stream`, gathered and written once per event-loop turn (and on `flush`): a batch
 * run finishes thousands of cases in one turn, and one write per line cost more than the rest
 * of its progress display.
 */
function coalescedWriter(stream: NodeJS.WritableStream) {
  let pending = '';
  let scheduled: NodeJS.Immediate | undefined;
  const flush = () => {
    if (scheduled !== undefined) clearImmediate(scheduled);
    scheduled = undefined;
    if (pending === '') return;
    // As bytes: a string built line by line is a tree of thousands of pieces, and a pipe
    // that cannot take it at once keeps it (eight times the size of its bytes) until it can.
    const text = Buffer.from(pending, 'utf8');
    pending = '';
    stream.write(text);
  };
  return {
    write(line: string) {
      pending += `${line}\n`;
      if (pending.length >= FLUSH_CHARS) flush();
      else scheduled ??= setImmediate(flush);
    },
    flush,
  };
}

/** True when progress can be redrawn in place on `stream`. */
export function wantsLiveProgress(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  if (stream.isTTY !== true) return false;
  if (env.CI !== undefined && env.CI !== '' && env.CI !== '0' && env.CI !== 'false') return false;
  return env.TERM !== 'dumb';
}
