import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

/** The nearest folder at or above `start` holding `name` (a folder; `.git` may be a file). */
export function findUp(start: string, name: string): string | undefined {
  let dir = start;
  for (;;) {
    const candidate = path.join(dir, name);
    if (existsSync(candidate) && (name === '.git' || statSync(candidate).isDirectory())) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * The folder AgentV's own outputs go under by default (`.agentv/results/`, `traces/`, `prompts/`,
 * `cache/`): the project of `cwd`, the nearest folder at or above it holding `.agentv/` (not
 * above its repository, and never the home folder's, which is no project), else the repository's
 * root, else `cwd`. A run started in a subfolder then writes where one started at the top does,
 * and makes no `.agentv/` there, which would make that subfolder a project of its own.
 */
export function outputRoot(cwd: string): string {
  const repository = findUp(cwd, '.git');
  const home = homedir();
  for (let dir = cwd; ; dir = path.dirname(dir)) {
    if (dir !== home && existsSync(path.join(dir, '.agentv'))) return dir;
    if (dir === repository || path.dirname(dir) === dir) break;
  }
  return repository ?? cwd;
}
