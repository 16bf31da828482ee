import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { isFolder } from '../util/is-folder.js';
import { checkoutRepo } from './checkout-repo.js';
import { copyTree } from './copy-tree.js';
import type { RepoCache } from './repo-cache.js';
import { type HookContext, hookFailureMessage, runHook } from './run-hook.js';
import type { WorkspaceConfig } from './workspace-config.js';
import type { PristineWorkspace } from './workspace-copy.js';
import { WorkspaceSetupError } from './workspace-errors.js';

export interface PristineOptions {
  /** The run's clone cache, made on first use. */
  cache(): Promise<RepoCache>;
  /** A folder of the run's for clones before they move into place. */
  scratch: string;
  env: Readonly<Record<string, string | undefined>>;
  runId: string;
  signal?: AbortSignal;
  /**
   * With `docker:`: runs `run` with a container holding folder `dir` at
   * `/workspace` (removed after), where `before_all` runs.
   */
  inSandbox?<T>(
    dir: string,
    run: (sandbox: NonNullable<HookContext['sandbox']>) => Promise<T>,
  ): Promise<T>;
}

/**
 * Makes folder `dir` the pristine workspace of `config`: the template copied,
 * each repository checked out (outer ones first, so one can sit inside
 * another), then `before_all` run in it, so what the hook installs is in every
 * copy. Throws `WorkspaceSetupError` naming the template, repository entry or
 * hook (with its stderr) that failed.
 */
export async function setUpPristine(
  config: WorkspaceConfig,
  dir: string,
  options: PristineOptions,
): Promise<PristineWorkspace> {
  const signal = options.signal === undefined ? {} : { signal: options.signal };
  await mkdir(dir, { recursive: true });
  if (config.template !== undefined) {
    if (!isFolder(config.template)) {
      throw new WorkspaceSetupError(`workspace template ${config.template} is not a folder`, {
        hint: 'check `template` in the workspace block (a folder, relative to the eval file)',
      });
    }
    await copyTree(config.template, dir, options.env).catch((error: Error) => {
      throw new WorkspaceSetupError(`workspace template ${config.template}: ${error.message}`, {
        hint: 'make every file of the template readable by AgentV',
        cause: error,
      });
    });
  }
  const repos = [...(config.repos ?? [])].map((repo, index) => ({ repo, index }));
  repos.sort((a, b) => depth(a.repo.path) - depth(b.repo.path));
  const repoRoots: string[] = [];
  await mkdir(options.scratch, { recursive: true });
  for (const { repo, index } of repos) {
    const label = `workspace repos[${index}] (${repo.repo} → ${repo.path})`;
    const root = normalizeRoot(repo.path);
    if (root.startsWith('../') || root === '..' || posix.isAbsolute(root)) {
      throw new WorkspaceSetupError(`${label}: path ${repo.path} is outside the workspace`, {
        hint: 'give `path` relative to the workspace (`.` for its root)',
      });
    }
    const cached = await (await options.cache()).get(repo, config.baseDir, label);
    await checkoutRepo(repo, cached, label, {
      workspace: dir,
      scratch: options.scratch,
      env: options.env,
      ...signal,
    });
    repoRoots.push(root);
  }
  // A template that is itself a repository: its changes are measured with git too.
  if (!repoRoots.includes('') && existsSync(join(dir, '.git'))) repoRoots.unshift('');
  const beforeAll = config.hooks.beforeAll;
  if (beforeAll !== undefined) {
    const context: HookContext = {
      workspace: dir,
      runId: options.runId,
      env: options.env,
      ...signal,
    };
    const failure =
      options.inSandbox === undefined
        ? await runHook(beforeAll, context)
        : await options
            .inSandbox(dir, (sandbox) => runHook(beforeAll, { ...context, sandbox }))
            .catch((error: Error) => {
              throw new WorkspaceSetupError(
                `workspace hook before_all could not start: ${error.message}`,
                {
                  hint: (error as { hint?: string }).hint ?? 'check the container engine',
                  cause: error,
                },
              );
            });
    if (failure !== undefined) {
      throw new WorkspaceSetupError(hookFailureMessage('before_all', beforeAll, failure), {
        hint: 'fix the hook, or run it by hand in a copy of the template to see why it fails',
      });
    }
  }
  return { dir, repoRoots };
}

function depth(path: string): number {
  const root = normalizeRoot(path);
  return root === '' ? 0 : root.split('/').length;
}

/** A `repos[].path` as a relative folder with `/` separators, `''` for the workspace itself. */
function normalizeRoot(path: string): string {
  const normalized = posix.normalize(path.split('\\').join('/')).replace(/\/+$/, '');
  return normalized === '.' ? '' : normalized;
}
