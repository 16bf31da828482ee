import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkFileRoot, describeRefusal, fileRootsFor, findProjectRoot } from './file-roots.js';

let scratch: string | undefined;
afterEach(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
  scratch = undefined;
});

async function tree(folders: string[]): Promise<string> {
  scratch = await mkdtemp(path.join(os.tmpdir(), 'agentv-project-root-'));
  for (const folder of folders) await mkdir(path.join(scratch, folder), { recursive: true });
  return scratch;
}

describe('findProjectRoot', () => {
  it('is the nearest folder holding .agentv/ or .git, whichever comes first', async () => {
    const dir = await tree(['repo/.git', 'repo/sub/.agentv', 'repo/sub/evals/deep', 'repo/other']);
    expect(await findProjectRoot(path.join(dir, 'repo/sub/evals/deep'))).toEqual({
      root: path.join(dir, 'repo/sub'),
      found: true,
    });
    expect(await findProjectRoot(path.join(dir, 'repo/other'))).toEqual({
      root: path.join(dir, 'repo'),
      found: true,
    });
  });

  it('is the eval file folder itself when there is neither', async () => {
    const dir = await tree(['loose/evals']);
    // Nothing above a fresh temp folder holds .agentv/ or .git on a test machine.
    expect(await findProjectRoot(path.join(dir, 'loose/evals'))).toEqual({
      root: path.join(dir, 'loose/evals'),
      found: false,
    });
  });

  it('does not count a file named .agentv', async () => {
    const dir = await tree(['repo/.git', 'repo/app']);
    await writeFile(path.join(dir, 'repo/app/.agentv'), '');
    expect((await findProjectRoot(path.join(dir, 'repo/app'))).root).toBe(path.join(dir, 'repo'));
  });
});

describe('checkFileRoot', () => {
  it.skipIf(process.platform !== 'linux')(
    'with the project root at /, reads /etc but never /proc, /sys or /dev',
    async () => {
      const roots = await fileRootsFor('/', [], '/');
      expect(await checkFileRoot('/etc/hostname', roots)).toBeUndefined();
      expect(await checkFileRoot('/proc/self/environ', roots)).toMatchObject({
        kind: 'system',
        folder: '/proc',
      });
      expect(await checkFileRoot('/sys/kernel/hostname', roots)).toMatchObject({
        kind: 'system',
        folder: '/sys',
      });
      // Through /proc to an ordinary file: the path as written counts too.
      expect(await checkFileRoot('/proc/self/root/etc/hostname', roots)).toMatchObject({
        kind: 'system',
        folder: '/proc',
      });
    },
  );

  it('names the link and its target, and the project root, in the message', async () => {
    const dir = await tree(['project/.git', 'outside']);
    await writeFile(path.join(dir, 'outside/secret.txt'), 'x');
    await symlink(path.join(dir, 'outside/secret.txt'), path.join(dir, 'project/link.txt'));
    const roots = await fileRootsFor(path.join(dir, 'project'));
    const refusal = await checkFileRoot(path.join(dir, 'project/link.txt'), roots);
    expect(describeRefusal('file "link.txt"', 'link.txt', refusal!, roots)).toEqual({
      message: `file "link.txt" resolves to ${path.join(dir, 'project/link.txt')}, a link to ${path.join(dir, 'outside/secret.txt')}, outside the project root ${path.join(dir, 'project')}`,
      hint: 'move the file into the project, or add its folder to `allowed_file_roots` in .agentv/config.yaml, e.g. `allowed_file_roots: [../shared-fixtures]`, relative to the folder holding .agentv/',
    });
  });

  it('says why the root is the eval file folder when no project was found', async () => {
    const dir = await tree(['loose/evals']);
    await writeFile(path.join(dir, 'loose/data.txt'), 'x');
    const roots = await fileRootsFor(path.join(dir, 'loose/evals'));
    const refusal = await checkFileRoot(path.join(dir, 'loose/data.txt'), roots);
    expect(describeRefusal('file "../data.txt"', '../data.txt', refusal!, roots).message).toBe(
      `file "../data.txt" resolves to ${path.join(dir, 'loose/data.txt')}, outside the project root ${path.join(dir, 'loose/evals')} (no .agentv/ folder or .git above the eval file, so the project root is its folder; \`agentv init\` in the top folder of the project makes one)`,
    );
  });
});
