import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { GitCommandError, runGit } from './git-command.js';
import { type CachedRepo, isRemote } from './repo-cache.js';
import type { WorkspaceRepo } from './workspace-config.js';
import { WorkspaceSetupError } from './workspace-errors.js';

/** The push URL of a local repository's `origin`: a path that cannot exist, so a push fails. */
export const NO_PUSH_URL = '/dev/null/agentv-workspace-pushes-nowhere';

export interface CheckoutOptions {
  /** The workspace being set up. */
  workspace: string;
  /** A scratch folder of the run's, for the clone before it moves into place. */
  scratch: string;
  env: Readonly<Record<string, string | undefined>>;
  signal?: AbortSignal;
}

/**
 * Checks `repo` out into its `path` inside the workspace at `cached.commit`
 * (detached), cloned from the run's cache without hard links, so the
 * workspace's repository owns every object it has: it keeps working when the
 * cache is gone, and nothing done in it reaches the cache. Files already there
 * (from the template) stay unless the commit has a file of the same name.
 * `origin` points at the repository as written (a local one only for fetching:
 * pushes fail, see `NO_PUSH_URL`). `sparse` checks out only those
 * folders (cone mode).
 */
export async function checkoutRepo(
  repo: WorkspaceRepo,
  cached: CachedRepo,
  label: string,
  options: CheckoutOptions,
): Promise<void> {
  const destination = join(options.workspace, repo.path);
  const clone = join(options.scratch, `clone-${process.hrtime.bigint()}`);
  const git = (args: string[], cwd: string) =>
    runGit(args, {
      cwd,
      env: options.env,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  try {
    await git(
      ['clone', '--no-checkout', '--no-hardlinks', '--quiet', '--', cached.gitDir, clone],
      options.scratch,
    );
    await git(['remote', 'set-url', 'origin', cached.location], clone);
    // An agent's `git push` must not write into the user's own checkout.
    if (!isRemote(cached.location)) {
      await git(['remote', 'set-url', '--push', 'origin', NO_PUSH_URL], clone);
    }
    if (repo.sparse !== undefined && repo.sparse.length > 0) {
      await git(['sparse-checkout', 'set', '--cone', '--', ...repo.sparse], clone);
    }
    await mkdir(destination, { recursive: true });
    if (await exists(join(destination, '.git'))) {
      throw new WorkspaceSetupError(
        `${label}: ${repo.path} already has a .git (from the template), so ${repo.repo} cannot be checked out there`,
        {
          hint: 'remove the .git folder from the template, or check the repository out into another `path`',
        },
      );
    }
    await rename(join(clone, '.git'), join(destination, '.git'));
    await git(['checkout', '--force', '--detach', '--quiet', cached.commit], destination);
  } catch (error) {
    if (error instanceof WorkspaceSetupError) throw error;
    const detail = error instanceof GitCommandError ? error.stderrLine : (error as Error).message;
    throw new WorkspaceSetupError(
      `${label}: could not check out ${repo.repo} into ${repo.path}: ${detail}`,
      {
        hint: 'check the repository entry (`path`, `commit`, `sparse`)',
        cause: error,
      },
    );
  } finally {
    await rm(clone, { recursive: true, force: true });
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
