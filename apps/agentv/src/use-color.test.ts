import { describe, expect, it } from 'vitest';
import { stripColor, useColor } from './use-color.js';

const tty = { isTTY: true };
const pipe = { isTTY: false };

describe('useColor', () => {
  it('colours a terminal only, honouring NO_COLOR, FORCE_COLOR, TERM=dumb and CI', () => {
    expect(useColor(tty, {})).toBe(true);
    expect(useColor(pipe, {})).toBe(false);
    expect(useColor(tty, { NO_COLOR: '1' })).toBe(false);
    expect(useColor(tty, { NO_COLOR: 'true' })).toBe(false);
    expect(useColor(tty, { NO_COLOR: '' })).toBe(true);
    expect(useColor(tty, { TERM: 'dumb' })).toBe(false);
    expect(useColor(tty, { CI: 'true' })).toBe(false);
    expect(useColor(pipe, { FORCE_COLOR: '1' })).toBe(true);
    expect(useColor(pipe, { FORCE_COLOR: '' })).toBe(true);
    expect(useColor(tty, { FORCE_COLOR: '0' })).toBe(false);
    expect(useColor(tty, { FORCE_COLOR: 'false' })).toBe(false);
  });

  it('strips the colour codes citty writes', () => {
    expect(
      stripColor('\u001b[4m\u001b[1mUSAGE\u001b[22m\u001b[24m \u001b[36magentv\u001b[39m'),
    ).toBe('USAGE agentv');
  });
});
