import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agentvCommandFor, commandWord } from './agentv-command.js';

let root: string | undefined;
afterEach(async () => {
  if (root !== undefined) await rm(root, { recursive: true, force: true });
  root = undefined;
});

/** A package `agentv` with its bin, at `at`. */
async function agentvPackage(at: string): Promise<string> {
  await mkdir(path.join(at, 'bin'), { recursive: true });
  await writeFile(path.join(at, 'bin', 'agentv.cjs'), '');
  return path.join(at, 'bin', 'agentv.cjs');
}

describe('agentvCommandFor', () => {
  it('is npx agentv where the project (or a folder above it) has this AgentV installed', async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'agentv-cmd-'));
    // As pnpm installs it: node_modules/agentv links to the package elsewhere.
    const bin = await agentvPackage(path.join(root, 'store', 'agentv'));
    await mkdir(path.join(root, 'project', 'node_modules'), { recursive: true });
    await symlink(
      path.join(root, 'store', 'agentv'),
      path.join(root, 'project', 'node_modules', 'agentv'),
    );
    await mkdir(path.join(root, 'project', 'evals', 'nested'), { recursive: true });
    expect(await agentvCommandFor(path.join(root, 'project'), bin)).toBe('npx agentv');
    expect(await agentvCommandFor(path.join(root, 'project', 'evals', 'nested'), bin)).toBe(
      'npx agentv',
    );
  });

  it('is this bin by its path where npx agentv would fetch or run another AgentV', async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'agentv cmd '));
    const bin = await agentvPackage(path.join(root, 'clone', 'apps', 'agentv'));
    await mkdir(path.join(root, 'empty'), { recursive: true });
    expect(await agentvCommandFor(path.join(root, 'empty'), bin)).toBe(`node ${commandWord(bin)}`);
    // Another AgentV installed nearer (upstream 4.x, say): not the one that wrote the files.
    await agentvPackage(path.join(root, 'other', 'node_modules', 'agentv'));
    expect(await agentvCommandFor(path.join(root, 'other'), bin)).toBe(`node ${commandWord(bin)}`);
  });

  it('stops at the project npx would use: a package.json nearer than the install is another project', async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'agentv-cmd-'));
    const bin = await agentvPackage(path.join(root, 'store', 'agentv'));
    await mkdir(path.join(root, 'outer', 'node_modules'), { recursive: true });
    await symlink(
      path.join(root, 'store', 'agentv'),
      path.join(root, 'outer', 'node_modules', 'agentv'),
    );
    await mkdir(path.join(root, 'outer', 'inner'), { recursive: true });
    await writeFile(path.join(root, 'outer', 'inner', 'package.json'), '{}');
    expect(await agentvCommandFor(path.join(root, 'outer', 'inner'), bin)).toBe(
      `node ${commandWord(bin)}`,
    );
    expect(await agentvCommandFor(path.join(root, 'outer'), bin)).toBe('npx agentv');
  });

  it('quotes a path the shell would split or expand, as POSIX shells or Windows read it', () => {
    expect(commandWord('/work/agentv/bin/agentv.cjs', 'linux')).toBe('/work/agentv/bin/agentv.cjs');
    expect(commandWord("/tmp/my evals/it's", 'linux')).toBe(`'/tmp/my evals/it'\\''s'`);
    expect(commandWord('/tmp/$HOME', 'darwin')).toBe(`'/tmp/$HOME'`);
    expect(commandWord('C:\\agentv\\bin\\agentv.cjs', 'win32')).toBe('C:\\agentv\\bin\\agentv.cjs');
    expect(commandWord('C:\\My Evals', 'win32')).toBe('"C:\\My Evals"');
  });
});
