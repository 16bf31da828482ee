import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// The bundle's files are read by the compile hook itself, already wrapped, when they are ASCII;
// any other file goes through Node's loader and the same cache. Run in a child process: the hook
// is installed for the rest of the process it runs in.

// The built module (tests run after the build), loaded as the bin loads it: by plain Node.
const HOOK = fileURLToPath(
  new URL('../../dist/compile-cache/require-with-compile-cache.js', import.meta.url),
);
const scratch = mkdtempSync(path.join(tmpdir(), 'agentv-compile-hook-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function bundle(): { entry: string; cache: string } {
  const dir = mkdtempSync(path.join(scratch, 'bundle-'));
  const cache = path.join(dir, 'cache');
  mkdirSync(cache);
  writeFileSync(
    path.join(dir, 'entry.cjs'),
    [
      "'use strict';",
      "const other = require('./other.cjs');",
      "const plain = require('./plain.js');",
      "function shout(text) { return text + '!'; }",
      'module.exports = {',
      "  text: shout(other.text + ' ' + plain.text),",
      '  filename: __filename,',
      '  dirname: __dirname,',
      "  wrapped: typeof exports === 'object' && typeof require === 'function' && typeof module === 'object',",
      '  same: this === module.exports,',
      '};',
      '',
    ].join('\n'),
  );
  // Not ASCII: left to Node's loader, then compiled with the cache as well.
  writeFileSync(path.join(dir, 'other.cjs'), "exports.text = 'déjà vu — ✓';\n");
  // Not a `.cjs` file: Node's own loader, no cache.
  writeFileSync(path.join(dir, 'plain.js'), "exports.text = 'plain';\n");
  return { entry: path.join(dir, 'entry.cjs'), cache };
}

function load(entry: string, cache: string): unknown {
  const script = `
    import { requireWithCompileCache } from ${JSON.stringify(HOOK)};
    const loaded = requireWithCompileCache(${JSON.stringify(entry)}, ${JSON.stringify(cache)});
    process.stdout.write(JSON.stringify(loaded));
  `;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return JSON.parse(result.stdout);
}

function cacheFiles(cache: string): string[] {
  return readdirSync(cache)
    .sort()
    .map((name) => `${name} ${statSync(path.join(cache, name)).mtimeMs}`);
}

describe('files of the bundle folder', () => {
  it('run as CommonJS modules, ASCII or not, and their code cache is written once, then used', () => {
    const { entry, cache } = bundle();
    const expected = {
      text: 'déjà vu — ✓ plain!',
      filename: entry,
      dirname: path.dirname(entry),
      wrapped: true,
      same: true,
    };
    expect(load(entry, cache)).toEqual(expected);
    const written = cacheFiles(cache);
    expect(written.map((file) => file.replace(/-\d+-\d+\.v8 .*/, ''))).toEqual([
      'entry.cjs',
      'other.cjs',
    ]);
    // Used, not refused (a refused cache file is written anew).
    expect(load(entry, cache)).toEqual(expected);
    expect(cacheFiles(cache)).toEqual(written);
  });
});
