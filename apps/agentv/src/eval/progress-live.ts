import type { EvaluationResult } from '@agentv/core';
import { terminalLines, terminalText } from '@agentv/results';
import type { ProgressDisplay } from './progress-display-type.js';
import { createProgressLines } from './progress-lines.js';

export interface ProgressLiveOptions {
  total: number;
  stream: NodeJS.WriteStream;
  /** Milliseconds between redraws at most. Default 100. */
  throttleMs?: number;
  now?: () => number;
}

const CLEAR_LINE = '\r\u001b[2K';
const CURSOR_UP = '\u001b[1A';
const SPINNER = ['-', '\\', '|', '/'];

/**
 * Progress redrawn in place at the bottom of a terminal: a status line
 * (`[12/40] 10 passed, 1 failed, 1 errored  0:07`) and a line naming the
 * running cases. Each finished case is printed above it as a permanent plain
 * line. Redraws are throttled, and an elapsed-time tick keeps the clock moving
 * while cases run. Lines are cut to the terminal width so a redraw always
 * erases exactly what it drew.
 */
export function createProgressLive(options: ProgressLiveOptions): ProgressDisplay {
  const { total, stream } = options;
  const now = options.now ?? Date.now;
  const throttleMs = options.throttleMs ?? 100;
  const started = now();
  const running = new Map<string, number>();
  const counts = { done: 0, passed: 0, failed: 0, errored: 0 };
  const lines = createProgressLines(total, (line) => stream.write(`${line}\n`));
  let drawnLines = 0;
  let lastDraw = 0;
  let frame = 0;
  let pending: NodeJS.Timeout | undefined;
  let stopped = false;
  const tick = setInterval(() => draw(), 1000);
  tick.unref();

  function erase(): void {
    if (drawnLines === 0) return;
    stream.write(CLEAR_LINE + (CURSOR_UP + CLEAR_LINE).repeat(drawnLines - 1));
    drawnLines = 0;
  }

  function draw(): void {
    if (stopped) return;
    if (pending) {
      clearTimeout(pending);
      pending = undefined;
    }
    const width = Math.max(20, (stream.columns || 80) - 1);
    const status =
      `${SPINNER[frame++ % SPINNER.length]} [${counts.done}/${total}] ` +
      `${counts.passed} passed, ${counts.failed} failed, ${counts.errored} errored  ` +
      `${elapsed(now() - started)}`;
    const drawn = [status];
    if (running.size > 0) drawn.push(`running: ${describeRunning(running, width - 9)}`);
    const text = drawn.map((line) => cut(line, width)).join('\n');
    erase();
    stream.write(text);
    drawnLines = drawn.length;
    lastDraw = now();
  }

  function scheduleDraw(): void {
    if (stopped || pending) return;
    const wait = throttleMs - (now() - lastDraw);
    if (wait <= 0) {
      draw();
      return;
    }
    pending = setTimeout(draw, wait);
    pending.unref();
  }

  return {
    onCaseStart(evalId) {
      // Shown as it will be drawn: a case id cannot move the cursor between redraws.
      const shown = terminalText(evalId);
      running.set(shown, (running.get(shown) ?? 0) + 1);
      scheduleDraw();
    },
    onResult(result: EvaluationResult) {
      const shown = terminalText(result.evalId);
      const left = (running.get(shown) ?? 1) - 1;
      if (left > 0) running.set(shown, left);
      else running.delete(shown);
      counts.done++;
      if (result.error !== undefined) counts.errored++;
      else if (result.passed) counts.passed++;
      else counts.failed++;
      erase();
      lines.onResult(result);
      draw();
    },
    log(line, target = process.stderr) {
      erase();
      target.write(`${terminalLines(line)}\n`);
      scheduleDraw();
    },
    stop() {
      if (stopped) return;
      erase();
      stopped = true;
      clearInterval(tick);
      if (pending) clearTimeout(pending);
    },
  };
}

function describeRunning(running: Map<string, number>, width: number): string {
  const ids = [...running.keys()];
  let text = '';
  for (let index = 0; index < ids.length; index++) {
    const more = ids.length - index - 1;
    const next = text === '' ? ids[index]! : `${text}, ${ids[index]}`;
    const suffix = more > 0 ? ` (+${more} more)` : '';
    if (text !== '' && next.length + suffix.length > width) {
      return `${text} (+${ids.length - index} more)`;
    }
    text = next;
  }
  return text;
}

function elapsed(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

function cut(line: string, width: number): string {
  return line.length > width ? `${line.slice(0, width - 1)}…` : line;
}
