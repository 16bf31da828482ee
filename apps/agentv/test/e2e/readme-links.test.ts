import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// The packages' READMEs are read on npm, outside this repository: their links must be
// absolute, and those into the root README must name one of its headings.

const ROOT = path.join(import.meta.dirname, '..', '..', '..', '..');
const ROOT_README_URL = 'https://github.com/EntityProcess/agentv/blob/main/README.md';

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{Letter}\p{Number}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

async function packageReadmes(): Promise<string[]> {
  const found: string[] = [];
  for (const group of ['packages', 'apps']) {
    for (const name of await readdir(path.join(ROOT, group))) {
      found.push(path.join(ROOT, group, name, 'README.md'));
    }
  }
  return found;
}

describe('package READMEs', () => {
  it('link only to absolute addresses, and to headings the root README has', async () => {
    const rootReadme = await readFile(path.join(ROOT, 'README.md'), 'utf8');
    const anchors = new Set(
      [...rootReadme.matchAll(/^#{1,6} (.+)$/gm)].map((match) => slug(match[1]!)),
    );
    const problems: string[] = [];
    let checked = 0;
    for (const file of await packageReadmes()) {
      const text = await readFile(file, 'utf8');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        checked++;
        const where = `${path.relative(ROOT, file)}: ${target}`;
        if (!/^https?:\/\//.test(target!)) problems.push(`${where} is not absolute`);
        const [address, anchor] = target!.split('#');
        if (address === ROOT_README_URL && anchor !== undefined && !anchors.has(anchor)) {
          problems.push(`${where} names no heading of README.md`);
        }
      }
    }
    expect(checked).toBeGreaterThan(10);
    expect(problems).toEqual([]);
  });
});
