import type { Issue } from '../errors/input-issue.js';
import type { EvalCase } from '../eval-file/eval-case.js';
import { sandboxPath } from './sandbox-path.js';

const HOOK_NAMES = {
  beforeAll: 'before_all',
  beforeEach: 'before_each',
  afterEach: 'after_each',
  afterAll: 'after_all',
} as const;

/**
 * Errors for hooks of a workspace with `docker:` whose `cwd` the container
 * cannot see: hooks run inside, where only the workspace (`/workspace`) and
 * `docker.mounts` are. A `cwd` inside a mount's source is that folder inside.
 */
export function sandboxHookIssues(evalCase: EvalCase): Issue[] {
  const config = evalCase.workspace;
  if (config?.docker === undefined) return [];
  const issues: Issue[] = [];
  for (const [key, name] of Object.entries(HOOK_NAMES)) {
    const hook = config.hooks[key as keyof typeof HOOK_NAMES];
    if (hook?.cwd === undefined) continue;
    if (sandboxPath(hook.cwd, undefined, config.docker) !== undefined) continue;
    issues.push({
      severity: 'error',
      // One error for the file's block, not one per case.
      file: evalCase.filePath,
      message: `workspace hook ${name} has cwd ${hook.cwd}, which its container cannot see (hooks of a workspace with docker: run inside, where the workspace is /workspace)`,
      hint: 'leave cwd out (the hook runs in /workspace) and `cd` into a folder of the workspace in the command, or mount the folder with docker.mounts',
    });
  }
  return issues;
}
