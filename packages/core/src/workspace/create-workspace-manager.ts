import { existsSync, statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { checkoutRepo } from './checkout-repo.js';
import { copyTree } from './copy-tree.js';
import type { FileChanges } from './file-changes.js';
import { removeTree } from './remove-tree.js';
import { createRepoCache, type RepoCache } from './repo-cache.js';
import { keptFolder, makeRunFolder, moveFolder, safeName } from './run-folder.js';
import { type HookName, runHook } from './run-hook.js';
import { measureChanges, takeBaseline } from './workspace-changes.js';
import type { WorkspaceConfig, WorkspaceHook } from './workspace-config.js';
import {
  makeCopy,
  type PristineWorkspace,
  resetCopy,
  type WorkspaceCopy,
} from './workspace-copy.js';
import { WorkspaceCaseError, WorkspaceSetupError } from './workspace-errors.js';
import type { WorkspaceCaseInfo, WorkspaceLease, WorkspaceManager } from './workspace-manager.js';

/** What a run's workspace manager needs. */
export interface WorkspaceManagerOptions {
  /**
   * `--workspace-root`: where workspaces are made and kept. Default: a folder
   * of the system temp directory (kept ones move to `agentv-workspaces-kept/`).
   */
  root?: string;
  /** The project's environment: hooks, git and copies start from it. */
  env: Readonly<Record<string, string | undefined>>;
  /** Names the run: `AGENTV_RUN_ID`, `eval_run_id`, and the folder kept workspaces go to. */
  runId: string;
  /** Stops hooks, clones and copies in progress (Ctrl-C). */
  signal?: AbortSignal;
  /** Warnings that do not stop anything: a failed `after_each`/`after_all`, a workspace remade. */
  onLog?(message: string): void;
}

/** Everything one workspace config (one `WorkspaceConfig.key`) has during the run. */
interface ConfigState {
  config: WorkspaceConfig;
  /** Its folder in the run folder; set once the setup started. */
  dir: string;
  pristine: Promise<PristineWorkspace>;
  /** Pooled workspaces not in use. */
  free: WorkspaceCopy[];
  shared?: Promise<WorkspaceCopy>;
  /** The shared workspace was handed out before (changes are measured from a fresh walk). */
  sharedUsed: boolean;
  copies: number;
}

/**
 * The workspace engine of one run (see `WorkspaceManager`). Per config key it
 * sets up one pristine workspace (template copied, repositories checked out
 * from the run's clone cache, `before_all` run in it) and hands out copies of
 * it: pooled ones are put back to pristine after each case (a file-level
 * restore: only what changed is copied again), temp ones are fresh copies,
 * a shared one is the same copy for every case.
 */
export function createWorkspaceManager(options: WorkspaceManagerOptions): WorkspaceManager {
  const states = new Map<string, ConfigState>();
  const kept: string[] = [];
  const keptNames = new Set<string>();
  const keepAtClose: { from: string; to: string }[] = [];
  let runFolder: Promise<string> | undefined;
  let cache: RepoCache | undefined;
  let leases = 0;
  let closed = false;
  const log = (message: string) => options.onLog?.(message);
  const signalOption = options.signal === undefined ? {} : { signal: options.signal };

  const folder = () => {
    runFolder ??= makeRunFolder(options.root);
    return runFolder;
  };

  /** The state of `config`'s key; made (and its setup started) on first use. */
  function stateFor(config: WorkspaceConfig): ConfigState {
    let state = states.get(config.key);
    if (state === undefined) {
      const number = states.size + 1;
      const created: ConfigState = {
        config,
        dir: '',
        pristine: Promise.resolve() as unknown as Promise<PristineWorkspace>,
        free: [],
        sharedUsed: false,
        copies: 0,
      };
      created.pristine = (async () => {
        created.dir = join(await folder(), `config-${number}`);
        return setUp(created);
      })();
      // Rejections are awaited by acquire; this one only keeps Node from reporting it unhandled.
      created.pristine.catch(() => undefined);
      states.set(config.key, created);
      state = created;
    }
    return state;
  }

  async function setUp(state: ConfigState): Promise<PristineWorkspace> {
    const { config } = state;
    const dir = join(state.dir, 'pristine');
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
    // Outer repositories first, so one inside another is checked out into it.
    repos.sort((a, b) => depth(a.repo.path) - depth(b.repo.path));
    const repoRoots: string[] = [];
    const scratch = join(state.dir, 'scratch');
    await mkdir(scratch, { recursive: true });
    for (const { repo, index } of repos) {
      const label = `workspace repos[${index}] (${repo.repo} → ${repo.path})`;
      const root = normalizeRoot(repo.path);
      if (root.startsWith('../') || root === '..' || posix.isAbsolute(root)) {
        throw new WorkspaceSetupError(`${label}: path ${repo.path} is outside the workspace`, {
          hint: 'give `path` relative to the workspace (`.` for its root)',
        });
      }
      cache ??= createRepoCache({
        dir: join(await folder(), 'repo-cache'),
        env: options.env,
        ...signalOption,
      });
      await mkdir(join(await folder(), 'repo-cache'), { recursive: true });
      const cached = await cache.get(repo, config.baseDir, label);
      await checkoutRepo(repo, cached, label, {
        workspace: dir,
        scratch,
        env: options.env,
        ...signalOption,
      });
      repoRoots.push(root);
    }
    // A template that is itself a repository: its changes are measured with git too.
    if (!repoRoots.includes('') && existsSync(join(dir, '.git'))) repoRoots.unshift('');
    const beforeAll = config.hooks.beforeAll;
    if (beforeAll !== undefined) {
      const failure = await runHook(beforeAll, {
        workspace: dir,
        runId: options.runId,
        env: options.env,
        ...signalOption,
      });
      if (failure !== undefined) {
        throw new WorkspaceSetupError(hookMessage('before_all', beforeAll, failure), {
          hint: 'fix the hook, or run it by hand in a copy of the template to see why it fails',
        });
      }
    }
    return { dir, repoRoots };
  }

  async function newCopy(state: ConfigState, pristine: PristineWorkspace): Promise<WorkspaceCopy> {
    const number = ++state.copies;
    const pooled = state.config.mode === 'pooled' && state.config.isolation === 'per_case';
    const path = join(state.dir, `workspace-${number}`);
    return makeCopy(pristine, path, {
      env: options.env,
      ...(pooled ? { keepIndexes: { dir: join(state.dir, `index-${number}`) } } : {}),
    }).catch((error: Error) => {
      throw new WorkspaceSetupError(`could not make workspace ${path}: ${error.message}`, {
        hint: `check the free space and permissions of ${options.root ?? 'the system temp directory'} (--workspace-root chooses another place)`,
        cause: error,
      });
    });
  }

  async function acquire(
    config: WorkspaceConfig,
    info: WorkspaceCaseInfo,
  ): Promise<WorkspaceLease> {
    if (closed) throw new Error('the workspace manager is closed');
    let lease: WorkspaceLease | undefined;
    try {
      lease = await prepare(config, info);
    } finally {
      if (closed) {
        // The run ended (Ctrl-C) while this workspace was made: what was written after close
        // removed the run folder goes too.
        const dir = await runFolder?.catch(() => undefined);
        if (dir !== undefined) removeTree(dir);
      }
    }
    if (closed)
      throw new Error('the workspace manager was closed while a workspace was being prepared');
    return lease;
  }

  async function prepare(
    config: WorkspaceConfig,
    info: WorkspaceCaseInfo,
  ): Promise<WorkspaceLease> {
    const state = stateFor(config);
    const pristine = await state.pristine;
    let copy: WorkspaceCopy;
    let fresh = true;
    if (config.isolation === 'shared') {
      state.shared ??= newCopy(state, pristine);
      copy = await state.shared;
      fresh = !state.sharedUsed;
      state.sharedUsed = true;
    } else if (config.mode === 'pooled') {
      copy = state.free.pop() ?? (await newCopy(state, pristine));
    } else {
      copy = await newCopy(state, pristine);
    }
    const scratch = join(state.dir, `lease-${++leases}`);
    try {
      const beforeEach = config.hooks.beforeEach;
      if (beforeEach !== undefined) {
        const failure = await runHook(beforeEach, hookContext(copy.path, info));
        fresh = false;
        if (failure !== undefined) {
          throw new WorkspaceCaseError(hookMessage('before_each', beforeEach, failure), {
            hint: "fix the hook; it runs in the case's workspace with AGENTV_WORKSPACE and AGENTV_EVAL_ID set",
          });
        }
      }
      const changeOptions = { scratch, env: options.env, ...signalOption };
      const baseline = await takeBaseline(copy.path, pristine, copy, { ...changeOptions, fresh });
      return lease(state, copy, info, scratch, () =>
        measureChanges(copy.path, pristine, baseline, changeOptions).catch((error: Error) => {
          throw new WorkspaceCaseError(
            `could not measure what changed in workspace ${copy.path}: ${error.message}`,
            {
              hint: 'the agent may have removed or broken a repository’s .git folder; the workspace is kept for a look if the case failed',
              cause: error,
            },
          );
        }),
      );
    } catch (error) {
      removeTree(scratch);
      putBack(state, copy);
      throw error;
    }
  }

  function lease(
    state: ConfigState,
    copy: WorkspaceCopy,
    info: WorkspaceCaseInfo,
    scratch: string,
    changes: () => Promise<FileChanges>,
  ): WorkspaceLease {
    let released: Promise<{ keptAt?: string }> | undefined;
    return {
      path: copy.path,
      changes,
      release({ keep }) {
        released ??= (async () => {
          const afterEach = state.config.hooks.afterEach;
          if (afterEach !== undefined) {
            const failure = await runHook(afterEach, hookContext(copy.path, info));
            if (failure !== undefined)
              log(`warning: ${hookMessage('after_each', afterEach, failure)}`);
          }
          removeTree(scratch);
          if (!keep) {
            putBack(state, copy);
            return {};
          }
          if (state.config.isolation === 'shared') {
            // Other cases still work in it: it moves when the run ends.
            let entry = keepAtClose.find((candidate) => candidate.from === copy.path);
            if (entry === undefined) {
              entry = {
                from: copy.path,
                to: join(keptFolder(options.root, options.runId), keptName(info)),
              };
              keepAtClose.push(entry);
              kept.push(entry.to);
            }
            return { keptAt: entry.to };
          }
          const to = join(keptFolder(options.root, options.runId), keptName(info));
          kept.push(to);
          await mkdir(join(to, '..'), { recursive: true });
          await moveFolder(copy.path, to, options.env);
          return { keptAt: to };
        })();
        return released;
      },
    };
  }

  /** A workspace a case is done with: reset into the pool, or removed. */
  function putBack(state: ConfigState, copy: WorkspaceCopy): void {
    const { config } = state;
    if (config.isolation === 'shared') return;
    if (config.mode === 'pooled' && !closed) {
      try {
        resetCopy(copy);
        state.free.push(copy);
        return;
      } catch (error) {
        log(
          `warning: could not reset workspace ${copy.path} (${(error as Error).message}); a new copy replaces it`,
        );
      }
    }
    try {
      removeTree(copy.path);
    } catch (error) {
      log(`warning: could not remove workspace ${copy.path}: ${(error as Error).message}`);
    }
  }

  function keptName(info: WorkspaceCaseInfo): string {
    const base = safeName(
      [info.evalId, info.target, info.repeat === undefined ? '' : `r${info.repeat}`]
        .filter(Boolean)
        .join('-'),
    );
    let name = base;
    for (
      let n = 2;
      keptNames.has(name) || existsSync(join(keptFolder(options.root, options.runId), name));
      n++
    ) {
      name = `${base}-${n}`;
    }
    keptNames.add(name);
    return name;
  }

  function hookContext(workspace: string, info: WorkspaceCaseInfo) {
    return { workspace, runId: options.runId, env: options.env, info, ...signalOption };
  }

  return {
    acquire,
    kept: () => [...kept],
    async close() {
      if (closed) return;
      closed = true;
      for (const state of states.values()) {
        const afterAll = state.config.hooks.afterAll;
        if (afterAll === undefined) continue;
        // Only where the setup went through: there is nothing to tear down otherwise.
        const pristine = await state.pristine.catch(() => undefined);
        if (pristine === undefined) continue;
        const failure = await runHook(afterAll, {
          workspace: pristine.dir,
          runId: options.runId,
          env: options.env,
        });
        if (failure !== undefined) log(`warning: ${hookMessage('after_all', afterAll, failure)}`);
      }
      for (const { from, to } of keepAtClose) {
        await mkdir(join(to, '..'), { recursive: true });
        await moveFolder(from, to, options.env);
      }
      if (runFolder !== undefined) {
        const dir = await runFolder.catch(() => undefined);
        if (dir !== undefined) removeTree(dir);
      }
    },
  };
}

function hookMessage(
  name: HookName,
  hook: WorkspaceHook,
  failure: { reason: string; output: string },
): string {
  const command = typeof hook.command === 'string' ? hook.command : hook.command.join(' ');
  const shown = command.length > 80 ? `${command.slice(0, 77)}...` : command;
  return `workspace hook ${name} (${shown}) ${failure.reason}${failure.output === '' ? '' : `:\n${failure.output}`}`;
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
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
