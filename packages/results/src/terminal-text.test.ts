import { describe, expect, it } from 'vitest';
import { terminalLines, terminalText } from './terminal-text.js';

describe('terminalText', () => {
  it('leaves ordinary text alone, tabs and any script included', () => {
    expect(terminalText('refund-001 \t naïve 日本語 🙂')).toBe('refund-001 \t naïve 日本語 🙂');
  });

  it('escapes what could clear the screen, move the cursor, recolour or forge a line', () => {
    expect(terminalText('a\u001b[2Jb')).toBe('a\\x1b[2Jb');
    expect(terminalText('ok\rPASS')).toBe('ok\\rPASS');
    expect(terminalText('one\ntwo')).toBe('one\\ntwo');
    expect(terminalText('\u0007\u0008\u007f\u009b')).toBe('\\x07\\x08\\x7f\\x9b');
  });

  it('escapes bidi overrides, isolates, marks and line separators', () => {
    expect(terminalText('abc\u202edcba\u202c')).toBe('abc\\u202edcba\\u202c');
    expect(terminalText('\u2066x\u2069\u200f\u061c\u2028')).toBe(
      '\\u2066x\\u2069\\u200f\\u061c\\u2028',
    );
  });

  it('keeps the lines of a multi-line text with terminalLines', () => {
    expect(terminalLines('first\u001b[1A\nsecond\r')).toBe('first\\x1b[1A\nsecond\\r');
  });
});
