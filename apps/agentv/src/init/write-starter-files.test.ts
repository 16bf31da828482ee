import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeStarterFiles } from './write-starter-files.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

const FILES = [
  { path: '.agentv/targets.yaml', content: 'targets: new\n' },
  { path: 'evals/example.yaml', content: 'evalcases: new\n' },
  { path: 'agents/agent.mjs', content: 'new\n' },
];

async function project(existing: Record<string, string>): Promise<string> {
  dir = await mkdtemp(path.join(tmpdir(), 'agentv-init-'));
  for (const [name, content] of Object.entries(existing)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), content);
  }
  return dir;
}

const read = (root: string, name: string) => readFile(path.join(root, name), 'utf8');

describe('writeStarterFiles', () => {
  it('creates missing files and folders, and leaves identical files untouched', async () => {
    const root = await project({ 'agents/agent.mjs': 'new\n' });
    expect(await writeStarterFiles(root, FILES)).toEqual([
      { path: '.agentv/targets.yaml', action: 'created' },
      { path: 'evals/example.yaml', action: 'created' },
      { path: 'agents/agent.mjs', action: 'unchanged' },
    ]);
    expect(await read(root, 'evals/example.yaml')).toBe('evalcases: new\n');
  });

  it('keeps files that differ unless told to overwrite them', async () => {
    const root = await project({
      '.agentv/targets.yaml': 'mine\n',
      'evals/example.yaml': 'mine\n',
    });
    expect(await writeStarterFiles(root, FILES)).toEqual([
      { path: '.agentv/targets.yaml', action: 'kept' },
      { path: 'evals/example.yaml', action: 'kept' },
      { path: 'agents/agent.mjs', action: 'created' },
    ]);
    expect(await read(root, '.agentv/targets.yaml')).toBe('mine\n');
  });

  it('asks about each file that differs and overwrites only on yes', async () => {
    const root = await project({
      '.agentv/targets.yaml': 'mine\n',
      'evals/example.yaml': 'mine\n',
    });
    const asked: string[] = [];
    const outcome = await writeStarterFiles(root, FILES, {
      confirmOverwrite: async (file) => {
        asked.push(file);
        return file === 'evals/example.yaml';
      },
    });
    expect(asked).toEqual(['.agentv/targets.yaml', 'evals/example.yaml']);
    expect(outcome.map(({ action }) => action)).toEqual(['kept', 'overwritten', 'created']);
    expect(await read(root, '.agentv/targets.yaml')).toBe('mine\n');
    expect(await read(root, 'evals/example.yaml')).toBe('evalcases: new\n');
  });

  it('overwrites without asking with force', async () => {
    const root = await project({ '.agentv/targets.yaml': 'mine\n' });
    const outcome = await writeStarterFiles(root, FILES, {
      force: true,
      confirmOverwrite: () => Promise.reject(new Error('must not ask')),
    });
    expect(outcome[0]).toEqual({ path: '.agentv/targets.yaml', action: 'overwritten' });
    expect(await read(root, '.agentv/targets.yaml')).toBe('targets: new\n');
  });
});
