import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadDotEnv } from './load-dotenv.js';
import { parseDotEnv } from './parse-dotenv.js';

describe('parseDotEnv', () => {
  it('reads assignments, exports, quotes, escapes and comments', () => {
    const text = [
      '# a comment',
      '',
      'PLAIN=value',
      'SPACED = padded value   ',
      'export EXPORTED=yes',
      "SINGLE='literal \\n $HOME # not a comment'",
      'DOUBLE="line one\\nline two \\"quoted\\""',
      'INLINE=kept # dropped',
      'HASH=a#b',
      'EMPTY=',
      'MULTI="first',
      'second"',
      'not an assignment',
      'PLAIN=overridden',
    ].join('\n');
    expect(parseDotEnv(text)).toEqual({
      PLAIN: 'overridden',
      SPACED: 'padded value',
      EXPORTED: 'yes',
      SINGLE: 'literal \\n $HOME # not a comment',
      DOUBLE: 'line one\nline two "quoted"',
      INLINE: 'kept',
      HASH: 'a#b',
      EMPTY: '',
      MULTI: 'first\nsecond',
    });
  });

  it('accepts CRLF line endings', () => {
    expect(parseDotEnv('A=1\r\nB="2"\r\n')).toEqual({ A: '1', B: '2' });
  });
});

describe('loadDotEnv', () => {
  let root: string;
  afterEach(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  async function project(files: Record<string, string>): Promise<string> {
    root = await mkdtemp(path.join(os.tmpdir(), 'agentv-dotenv-'));
    await mkdir(path.join(root, '.git'));
    for (const [name, content] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(root, name)), { recursive: true });
      await writeFile(path.join(root, name), content);
    }
    return root;
  }

  it('uses the nearest .env and lets the process environment win', async () => {
    const dir = await project({
      '.env': 'FROM=root\n',
      'evals/.env': 'FROM=evals\nKEEP=file\nSHARED=file\n',
    });
    const result = await loadDotEnv(path.join(dir, 'evals'), {
      processEnv: { SHARED: 'process', UNSET: undefined },
    });
    expect(result.file).toBe(path.join(dir, 'evals/.env'));
    expect(result.env).toMatchObject({ FROM: 'evals', KEEP: 'file', SHARED: 'process' });
  });

  it('walks up to the repository root, then tries the cwd', async () => {
    const dir = await project({
      'repo/.git/HEAD': '',
      'repo/evals/x.yaml': '',
      '.env': 'ABOVE=1\n',
      'cwd/.env': 'CWD=1\n',
    });
    const noCwd = await loadDotEnv(path.join(dir, 'repo/evals'), {
      processEnv: {},
      cwd: path.join(dir, 'repo'),
    });
    expect(noCwd).toEqual({ env: {} });
    const withCwd = await loadDotEnv(path.join(dir, 'repo/evals'), {
      processEnv: {},
      cwd: path.join(dir, 'cwd'),
    });
    expect(withCwd).toEqual({ env: { CWD: '1' }, file: path.join(dir, 'cwd/.env') });
  });

  it('does not modify the process environment object', async () => {
    const dir = await project({ '.env': 'NEW=1\n' });
    const processEnv: Record<string, string | undefined> = { OLD: '1' };
    const result = await loadDotEnv(dir, { processEnv });
    expect(result.env).toEqual({ OLD: '1', NEW: '1' });
    expect(processEnv).toEqual({ OLD: '1' });
  });
});
