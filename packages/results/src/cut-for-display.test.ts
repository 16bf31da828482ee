import { describe, expect, it } from 'vitest';
import {
  cutForDisplay,
  displayAnswer,
  displayTrace,
  REPORT_TEXT_CHARS,
  REPORT_TRACE_CHARS,
} from './cut-for-display.js';

describe('cutForDisplay', () => {
  it('keeps text up to the limit whole', () => {
    expect(cutForDisplay('abcd', 4)).toBe('abcd');
    expect(displayAnswer('a'.repeat(REPORT_TEXT_CHARS))).toBe('a'.repeat(REPORT_TEXT_CHARS));
  });

  it('cuts longer text with a marker saying how much was cut and where the whole is', () => {
    const answer = 'a'.repeat(REPORT_TEXT_CHARS) + 'b'.repeat(3 * 1024 * 1024);
    expect(displayAnswer(answer)).toBe(
      `${'a'.repeat(REPORT_TEXT_CHARS)}\n… [cut: 3 MiB more; the full answer is in the result file]`,
    );
    expect(cutForDisplay('abcdef', 4)).toBe('abcd\n… [cut: 2 B more]');
  });

  it('never cuts a surrogate pair in two, and counts what was cut in UTF-8 bytes', () => {
    expect(cutForDisplay('abc😀é', 4)).toBe('abc\n… [cut: 6 B more]');
  });
});

describe('displayTrace', () => {
  it('cuts long payloads and leaves events with short ones as they are', () => {
    const short = { type: 'tool_call' as const, timestamp: 't', input: { q: 'hi' } };
    const long = {
      type: 'tool_result' as const,
      timestamp: 't',
      output: { rows: 'x'.repeat(REPORT_TRACE_CHARS * 2) },
      text: 'y'.repeat(REPORT_TRACE_CHARS + 1),
      metadata: { blob: 'z'.repeat(REPORT_TRACE_CHARS) },
    };
    const [first, second] = displayTrace([short, long]);
    expect(first).toBe(short);
    expect(second!.output).toMatch(/^\{"rows":"x+\n… \[cut: [\d.]+ KiB more\]$/);
    expect(second!.text).toMatch(/^y+\n… \[cut: 1 B more\]$/);
    expect(second!.metadata).toEqual({ cut: expect.stringMatching(/… \[cut: 11 B more\]$/) });
    expect(long.output.rows).toHaveLength(REPORT_TRACE_CHARS * 2);
  });
});
