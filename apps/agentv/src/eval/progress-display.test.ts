import type { EvaluationResult } from '@agentv/core';
import { describe, expect, it } from 'vitest';
import { createProgressDisplay } from './progress-display.js';

/** A stream that is not a terminal, keeping what is written, and how many writes it took. */
function captureStream() {
  const stream = {
    text: '',
    writes: 0,
    isTTY: false,
    write(chunk: string) {
      stream.text += chunk;
      stream.writes++;
      return true;
    },
  };
  return stream;
}

function result(evalId: string): EvaluationResult {
  return {
    timestamp: '2026-01-01T00:00:00.000Z',
    evalId,
    dataset: 'd',
    evalFile: '/p/evals/d.yaml',
    target: 't',
    score: 1,
    passed: true,
    hits: [],
    misses: [],
    reasoning: '',
    candidateAnswer: 'a',
    evaluatorResults: [],
    attempts: 1,
    durationMs: 5,
    traceSummary: null,
  };
}

describe('createProgressDisplay (plain lines)', () => {
  it('prints one line per case, in order, before a later log line and by stop()', () => {
    const stream = captureStream();
    const progress = createProgressDisplay({
      total: 3,
      stream: stream as unknown as NodeJS.WriteStream,
      env: {},
    });
    progress.onResult(result('a'));
    progress.onResult(result('b'));
    progress.log('warning: something', stream as unknown as NodeJS.WriteStream);
    progress.onResult(result('c'));
    progress.stop();
    expect(stream.text.split('\n')).toEqual([
      '[1/3] PASS  a  1.000  (5 ms)',
      '[2/3] PASS  b  1.000  (5 ms)',
      'warning: something',
      '[3/3] PASS  c  1.000  (5 ms)',
      '',
    ]);
  });

  it('writes the lines of cases finished together in one write', async () => {
    const stream = captureStream();
    const progress = createProgressDisplay({
      total: 1000,
      stream: stream as unknown as NodeJS.WriteStream,
      env: {},
    });
    for (let index = 0; index < 1000; index++) progress.onResult(result(`case-${index}`));
    await new Promise((resolve) => setImmediate(resolve));
    expect(stream.text.split('\n')).toHaveLength(1001);
    expect(stream.writes).toBe(1);
    progress.stop();
  });
});

const HOSTILE = 'x\u001b[2J\u001b[H\rPASS  forged\nline\u202egnp.exe';

describe('createProgressDisplay with hostile case ids', () => {
  it('escapes control characters in plain lines: no cursor move, clear or extra line', () => {
    const stream = captureStream();
    const progress = createProgressDisplay({
      total: 1,
      stream: stream as unknown as NodeJS.WriteStream,
      env: {},
    });
    progress.onResult({ ...result(HOSTILE), passed: false, error: 'agent said \u001b[31mno' });
    progress.log('line one\nline two \u001b[1A', stream as unknown as NodeJS.WriteStream);
    progress.stop();
    expect(stream.text).toBe(
      [
        '[1/1] ERROR x\\x1b[2J\\x1b[H\\rPASS  forged\\nline\\u202egnp.exe  agent said \\x1b[31mno  (5 ms)',
        'line one',
        'line two \\x1b[1A',
        '',
      ].join('\n'),
    );
  });

  it('escapes them on the live display too, which draws only its own controls', () => {
    const stream = Object.assign(captureStream(), { isTTY: true, columns: 200 });
    const progress = createProgressDisplay({
      total: 2,
      stream: stream as unknown as NodeJS.WriteStream,
      env: { TERM: 'xterm' },
    });
    progress.onCaseStart(HOSTILE);
    progress.onCaseStart('second\r');
    progress.onResult(result(HOSTILE));
    progress.stop();
    // Only the display's own erase-line and cursor-up sequences remain.
    const own = stream.text.replaceAll('\r\u001b[2K', '').replaceAll('\u001b[1A', '');
    expect(own).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
    expect(own).toContain('running: x\\x1b[2J\\x1b[H\\rPASS  forged\\nline\\u202egnp.exe');
    expect(own).toContain('[1/2] PASS  x\\x1b[2J');
  });
});
