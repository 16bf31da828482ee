import { describe, expect, it } from 'vitest';
import { LineSplitter, type LineSplitterOptions } from './line-splitter.js';

function split(chunks: readonly string[], options: LineSplitterOptions) {
  const lines: { line: string; cut: boolean }[] = [];
  const splitter = new LineSplitter((line, cut) => lines.push({ line, cut }), options);
  for (const chunk of chunks) splitter.push(chunk);
  splitter.end();
  return lines;
}

describe('LineSplitter', () => {
  const roomy: LineSplitterOptions = { maxLineBytes: 1000, overLimit: 'stop' };

  it('splits on \\n, \\r\\n and \\r, across chunk boundaries, delivering a last unended line', () => {
    const text = 'one\ntwo\r\nthree\rfour\r\n\nsix';
    const whole = split([text], roomy).map((entry) => entry.line);
    expect(whole).toEqual(['one', 'two', 'three', 'four', '', 'six']);
    // Every way of cutting the text in two gives the same lines.
    for (let at = 0; at <= text.length; at++) {
      expect(split([text.slice(0, at), text.slice(at)], roomy).map((entry) => entry.line)).toEqual(
        whole,
      );
    }
    expect(split(['a\n'], roomy).map((entry) => entry.line)).toEqual(['a']);
    expect(split([], roomy)).toEqual([]);
  });

  it('stops at a line past the limit, counting UTF-8 bytes, and ignores what follows', () => {
    const tooLong: [number, number][] = [];
    const options: LineSplitterOptions = {
      maxLineBytes: 8,
      overLimit: 'stop',
      onTooLong: (line, bytes) => tooLong.push([line, bytes]),
    };
    // "ééééé" is 5 characters but 10 bytes.
    expect(split(['12345678\n', 'éé', 'ééé\nlater\n'], options)).toEqual([
      { line: '12345678', cut: false },
    ]);
    expect(tooLong).toEqual([[2, 10]]);
  });

  it('holds at most the limit of an endless line', () => {
    const tooLong: number[] = [];
    const splitter = new LineSplitter(() => {}, {
      maxLineBytes: 64 * 1024,
      overLimit: 'stop',
      onTooLong: (_, bytes) => tooLong.push(bytes),
    });
    const chunk = 'x'.repeat(16 * 1024);
    for (let index = 0; index < 10_000; index++) splitter.push(chunk);
    expect(tooLong).toEqual([64 * 1024 + 16 * 1024]);
  });

  it('cuts a long line to its start and goes on with the next', () => {
    const options: LineSplitterOptions = { maxLineBytes: 4, overLimit: 'cut' };
    expect(split(['abcdefgh', 'ijk\nok\nlong line\n'], options)).toEqual([
      { line: 'abcd', cut: true },
      { line: 'ok', cut: false },
      { line: 'long', cut: true },
    ]);
    expect(split(['abcdefgh'], options)).toEqual([{ line: 'abcd', cut: true }]);
  });
});
