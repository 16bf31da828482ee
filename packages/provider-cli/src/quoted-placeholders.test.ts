import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { renderCommandTemplate } from './render-command-template.js';

const scratch = mkdtempSync(join(tmpdir(), 'agentv-quoted-'));
const marker = join(scratch, 'PWNED');
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const HOSTILE = [
  `hello $(touch ${marker})`,
  `x; touch ${marker}; echo`,
  `back\`touch ${marker}\`tick`,
  `it's "quoted" and 'single' \\ back\\slash`,
  `$HOME \${PATH} $1 $@ !! ~`,
  'line one\nline two\ttab',
  `'; touch ${marker}; '`,
  `"; touch ${marker}; "`,
  'ünïcødé 日本語 🚀',
  '',
];

/** Runs the rendered command, with its variables, through a real shell and returns what printf printed. */
function run(template: string, prompt: string): string {
  const { command, variables } = renderCommandTemplate(template, {
    PROMPT: prompt,
    FILES: ['/a b/c.txt', "/it's.txt"],
  });
  return execFileSync('/bin/sh', ['-c', command], {
    cwd: scratch,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, ...variables },
  });
}

describe('placeholders inside the template’s own quotes (agentv-eval-v2 style)', () => {
  it.each(HOSTILE)('"{PROMPT}" passes %j byte for byte and runs nothing', (prompt) => {
    expect(run(`printf '%s' "{PROMPT}"`, prompt)).toBe(prompt);
    expect(existsSync(marker)).toBe(false);
  });

  it.each(HOSTILE)("'{PROMPT}' passes %j byte for byte and runs nothing", (prompt) => {
    expect(run(`printf '%s' '{PROMPT}'`, prompt)).toBe(prompt);
    expect(existsSync(marker)).toBe(false);
  });

  it('keeps text around the placeholder inside double quotes', () => {
    expect(run(`printf '%s' "Q: {PROMPT} (end)"`, 'a $b "c"')).toBe('Q: a $b "c" (end)');
  });

  it('refuses a placeholder inside single quotes with other text, where a nested shell would parse it', () => {
    expect(() => run(`printf '%s' 'Q: {PROMPT} (end)'`, "it's")).toThrow(
      /\{PROMPT\} is inside single quotes with other text/,
    );
    expect(existsSync(marker)).toBe(false);
  });

  it('tracks escaped quotes, so a placeholder after \\" is still inside the quotes', () => {
    expect(run(`printf '%s' "say \\"{PROMPT}\\""`, '$(id)')).toBe('say "$(id)"');
  });

  it('joins list values inside quotes as one word', () => {
    expect(run(`printf '[%s]' "{FILES}"`, '')).toBe("[/a b/c.txt /it's.txt]");
    expect(run(`printf '[%s]' {FILES}`, '')).toBe("[/a b/c.txt][/it's.txt]");
  });
});
