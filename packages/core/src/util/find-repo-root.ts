import { stat } from 'node:fs/promises';
import path from 'node:path';

/**
 * The nearest directory at or above `startDir` that contains a `.git` entry
 * (a directory, or a file in worktrees and submodules); undefined when none.
 */
export async function findRepoRoot(startDir: string): Promise<string | undefined> {
  for (const dir of ancestorsOf(path.resolve(startDir))) {
    if (await exists(path.join(dir, '.git'))) return dir;
  }
  return undefined;
}

/** `dir` and each of its ancestors, nearest first, ending at the filesystem root. */
export function ancestorsOf(dir: string): string[] {
  const dirs: string[] = [];
  let current = path.resolve(dir);
  for (;;) {
    dirs.push(current);
    const parent = path.dirname(current);
    if (parent === current) return dirs;
    current = parent;
  }
}

async function exists(entry: string): Promise<boolean> {
  try {
    await stat(entry);
    return true;
  } catch {
    return false;
  }
}
