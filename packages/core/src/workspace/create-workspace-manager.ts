import { existsSync, renameSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { FileChanges } from './file-changes.js';
import { removeTree, removeTreeLater } from './remove-tree.js';
import { createRepoCache, type RepoCache } from './repo-cache.js';
import { keptFolder, makeRunFolder, moveToKept, removeIfEmpty, safeName } from './run-folder.js';
import { type HookContext, hookFailureMessage, runHook } from './run-hook.js';
import type { SandboxImages } from './sandbox-images.js';
import { setUpPristine } from './set-up-pristine.js';
import { snapshotTree } from './tree-snapshot.js';
import { measureChanges, takeBaseline } from './workspace-changes.js';
import type { WorkspaceConfig } from './workspace-config.js';
import {
  makeCopy,
  type PristineWorkspace,
  resetCopy,
  type WorkspaceCopy,
} from './workspace-copy.js';
import { WorkspaceCaseError, WorkspaceSetupError } from './workspace-errors.js';
import type { WorkspaceCaseInfo, WorkspaceLease, WorkspaceManager } from './workspace-manager.js';
import { ownTree, type WorkspaceOwner, workspaceOwner } from './workspace-owner.js';
import { startSandbox, type WorkspaceSandbox } from './workspace-sandbox.js';

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
  /**
   * The runtime (and its prepared images) that starts the containers of
   * configs with `docker:`; without it such a config's setup fails.
   */
  sandboxes?: SandboxImages;
  /**
   * How many cases of the run use each config (by `WorkspaceConfig.key`). A
   * `temp` config on this machine with cases still to come has its next copy
   * made while the current case works, so no case waits for its copy but the
   * first. Without it every copy is made when a case asks for it.
   */
  expectedCases?: ReadonlyMap<string, number>;
}

/** Everything one workspace config (one `WorkspaceConfig.key`) has during the run. */
interface ConfigState {
  config: WorkspaceConfig;
  /** Its folder in the run folder; set once the setup started. */
  dir: string;
  pristine: Promise<PristineWorkspace>;
  /** Pooled workspaces not in use. */
  free: WorkspaceCopy[];
  /** `temp`: the next case's copy, made ahead (see `expectedCases`). */
  spare?: Promise<WorkspaceCopy>;
  /** Cases of the run still to ask for a workspace of this config (see `expectedCases`). */
  toCome: number;
  shared?: Promise<WorkspaceCopy>;
  /** The shared workspace was handed out before (changes are measured from a fresh walk). */
  sharedUsed: boolean;
  copies: number;
  /** With `docker:`: the container of each workspace (by path), started with it, kept while it works. */
  sandboxes: Map<string, Promise<WorkspaceSandbox>>;
  /** With `docker.user`: its ids, found once for the config. */
  owner?: Promise<WorkspaceOwner>;
  /** Workspaces (by path) given to `owner` since they were made or last reset. */
  owned: Set<string>;
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
  let exchanges = 0;
  /** Every container started and not yet destroyed: `close` removes what is left. */
  const live = new Set<Promise<WorkspaceSandbox>>();
  /**
   * Copies being made ahead and used ones being removed, neither waited for by a
   * case: the run folder is removed only after them.
   */
  const background = new Set<Promise<unknown>>();
  const inBackground = (work: Promise<unknown>) => {
    background.add(work);
    void work.then(() => background.delete(work));
  };
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
        pristine: setUp(() => created, number),
        free: [],
        toCome: options.expectedCases?.get(config.key) ?? 0,
        sharedUsed: false,
        copies: 0,
        sandboxes: new Map(),
        owned: new Set(),
      };
      // Rejections are awaited by acquire; this one only keeps Node from reporting it unhandled.
      created.pristine.catch(() => undefined);
      states.set(config.key, created);
      state = created;
    }
    return state;
  }

  /** Sets up the pristine workspace of a new state (`getState()` is read once the run folder exists). */
  async function setUp(getState: () => ConfigState, number: number): Promise<PristineWorkspace> {
    const dir = join(await folder(), `config-${number}`);
    const state = getState();
    state.dir = dir;
    return setUpPristine(state.config, join(state.dir, 'pristine'), {
      cache: async () => {
        const cacheDir = join(await folder(), 'repo-cache');
        await mkdir(cacheDir, { recursive: true });
        cache ??= createRepoCache({ dir: cacheDir, env: options.env, ...signalOption });
        return cache;
      },
      scratch: join(state.dir, 'scratch'),
      env: options.env,
      runId: options.runId,
      ...signalOption,
      ...(state.config.docker === undefined
        ? {}
        : {
            inSandbox: (dir, run) =>
              withOwnSandbox(state, dir, (sandbox) =>
                run({ sandbox, docker: state.config.docker! }),
              ),
          }),
    });
  }

  /**
   * Starts a container for workspace folder `dir` of `state` (its `docker:`),
   * tracked until destroyed. Throws `WorkspaceSetupError` without a runtime.
   */
  function sandboxOf(state: ConfigState, dir: string): Promise<WorkspaceSandbox> {
    const docker = state.config.docker!;
    const images = options.sandboxes;
    if (images === undefined) {
      return Promise.reject(
        new WorkspaceSetupError(
          `the workspace asks for a container (docker:), but this run has no sandbox runtime`,
          {
            hint: 'run it with `agentv eval`, or pass `sandboxRuntime` (createDockerRuntime() of @agentv/sandbox-docker) to runEvaluation',
          },
        ),
      );
    }
    const started = startSandbox({
      docker,
      images,
      workspace: dir,
      exchange: join(state.dir, `exchange-${++exchanges}`),
      runId: options.runId,
      ...signalOption,
    });
    live.add(started);
    started.catch(() => live.delete(started));
    return started;
  }

  /** Destroys a container the manager started; a failure is a warning (the next run sweeps it). */
  async function destroySandbox(started: Promise<WorkspaceSandbox>): Promise<void> {
    live.delete(started);
    const sandbox = await started.catch(() => undefined);
    await sandbox?.destroy().catch((error: Error) => {
      log(`warning: could not remove container ${sandbox.id.slice(0, 12)}: ${error.message}`);
    });
  }

  /** The working container of `copy`: the one started with it, or a new one if it stopped working. */
  async function sandboxFor(state: ConfigState, copy: WorkspaceCopy): Promise<WorkspaceSandbox> {
    let started = state.sandboxes.get(copy.path);
    if (started !== undefined) {
      let sandbox: WorkspaceSandbox;
      try {
        sandbox = await started;
      } catch (error) {
        // The next case of this workspace tries again.
        state.sandboxes.delete(copy.path);
        throw error;
      }
      if (await sandbox.usable()) return sandbox;
      log(
        `warning: the container of workspace ${copy.path} stopped working; a new one replaces it`,
      );
      await destroySandbox(started);
    }
    started = sandboxOf(state, copy.path);
    state.sandboxes.set(copy.path, started);
    return started;
  }

  /**
   * Gives `copy` to `docker.user` (when set) unless it already is: a user
   * other than root must be able to write the workspace AgentV copied.
   */
  async function ownCopy(
    state: ConfigState,
    copy: WorkspaceCopy,
    sandbox: WorkspaceSandbox,
  ): Promise<void> {
    const user = state.config.docker?.user;
    if (user === undefined || state.owned.has(copy.path)) return;
    state.owner ??= workspaceOwner(user, sandbox);
    const owner = state.owner;
    // A failed lookup is tried again by the next case.
    owner.catch(() => {
      if (state.owner === owner) state.owner = undefined;
    });
    try {
      await ownTree(copy.path, await owner);
      // The owner change touched every change time: the copy's pristine state is as it is now.
      copy.snapshot = snapshotTree(copy.path);
    } catch (error) {
      if (error instanceof WorkspaceCaseError) throw error;
      throw new WorkspaceCaseError(
        `could not give workspace ${copy.path} to docker.user ${user}: ${(error as Error).message}`,
        {
          hint: 'AgentV needs root to change the owner of the workspace for another user; run it as root, or remove docker.user',
          cause: error,
        },
      );
    }
    state.owned.add(copy.path);
  }

  /** Removes the container of `copy` (a workspace kept or removed). */
  async function dropSandbox(state: ConfigState, copy: WorkspaceCopy): Promise<void> {
    const started = state.sandboxes.get(copy.path);
    if (started === undefined) return;
    state.sandboxes.delete(copy.path);
    await destroySandbox(started);
  }

  async function newCopy(state: ConfigState, pristine: PristineWorkspace): Promise<WorkspaceCopy> {
    const number = ++state.copies;
    const pooled = state.config.mode === 'pooled' && state.config.isolation === 'per_case';
    const path = join(state.dir, `workspace-${number}`);
    if (state.config.docker !== undefined) {
      // The container starts while the files are copied: the folder it mounts must exist first
      // (an engine makes a missing one itself, owned by root).
      await mkdir(path, { recursive: true });
      const started = sandboxOf(state, path);
      state.sandboxes.set(path, started);
      started.catch(() => undefined);
    }
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

  /**
   * A new copy for a `temp` workspace: the one made ahead when there is one. With
   * more cases to come, the next one is started once this one is there (not at the
   * same time: the case waiting for this one would share the disk and CPU with it).
   */
  async function freshCopy(
    state: ConfigState,
    pristine: PristineWorkspace,
  ): Promise<WorkspaceCopy> {
    state.toCome--;
    const ready = state.spare;
    state.spare = undefined;
    const copy = await (ready ?? newCopy(state, pristine));
    // A container per copy is too much to start for a case that may never come.
    if (
      state.toCome > 0 &&
      state.spare === undefined &&
      !closed &&
      state.config.docker === undefined
    ) {
      const spare = newCopy(state, pristine);
      state.spare = spare;
      inBackground(spare.catch(() => undefined));
    }
    return copy;
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
        // removed the run folder goes too, and containers started since.
        await Promise.all([...live].map(destroySandbox));
        await Promise.all(background);
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
      copy = await freshCopy(state, pristine);
    }
    const scratch = join(state.dir, `lease-${++leases}`);
    let sandbox: WorkspaceSandbox | undefined;
    try {
      if (config.docker !== undefined) sandbox = await sandboxFor(state, copy);
      if (sandbox !== undefined) await ownCopy(state, copy, sandbox);
      const beforeEach = config.hooks.beforeEach;
      if (beforeEach !== undefined) {
        const failure = await runHook(beforeEach, hookContext(state, copy.path, info, sandbox));
        fresh = false;
        if (failure !== undefined) {
          throw new WorkspaceCaseError(hookFailureMessage('before_each', beforeEach, failure), {
            hint: "fix the hook; it runs in the case's workspace with AGENTV_WORKSPACE and AGENTV_EVAL_ID set",
          });
        }
      }
      const changeOptions = { scratch, env: options.env, ...signalOption };
      const baseline = await takeBaseline(copy.path, pristine, copy, { ...changeOptions, fresh });
      return lease(state, copy, info, scratch, sandbox, () =>
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
      await putBack(state, copy);
      throw error;
    }
  }

  function lease(
    state: ConfigState,
    copy: WorkspaceCopy,
    info: WorkspaceCaseInfo,
    scratch: string,
    sandbox: WorkspaceSandbox | undefined,
    changes: () => Promise<FileChanges>,
  ): WorkspaceLease {
    let released: Promise<{ keptAt?: string }> | undefined;
    return {
      path: copy.path,
      ...(sandbox === undefined ? {} : { sandbox }),
      changes,
      release({ keep }) {
        released ??= (async () => {
          const afterEach = state.config.hooks.afterEach;
          if (afterEach !== undefined) {
            const failure = await runHook(afterEach, hookContext(state, copy.path, info, sandbox));
            if (failure !== undefined)
              log(`warning: ${hookFailureMessage('after_each', afterEach, failure)}`);
          }
          removeTree(scratch);
          if (!keep) {
            await putBack(state, copy);
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
          // The folder is kept, its container is not.
          await dropSandbox(state, copy);
          await moveToKept(copy.path, to, options.env);
          return { keptAt: to };
        })();
        return released;
      },
    };
  }

  /** A workspace a case is done with: reset into the pool (its container with it), or removed. */
  async function putBack(state: ConfigState, copy: WorkspaceCopy): Promise<void> {
    const { config } = state;
    if (config.isolation === 'shared') return;
    if (config.mode === 'pooled' && !closed) {
      try {
        resetCopy(copy);
        // What the reset restored was written by AgentV: given to docker.user again before the next case.
        state.owned.delete(copy.path);
        state.free.push(copy);
        return;
      } catch (error) {
        log(
          `warning: could not reset workspace ${copy.path} (${(error as Error).message}); a new copy replaces it`,
        );
      }
    }
    await dropSandbox(state, copy);
    // Gone from its path at once (one rename); its files are removed while the next case works,
    // and `close` waits for that.
    let doomed = copy.path;
    try {
      renameSync(copy.path, `${copy.path}-removed`);
      doomed = `${copy.path}-removed`;
    } catch {
      // Removed where it is.
    }
    const removed = removeTreeLater(doomed).catch((error: Error) => {
      log(`warning: could not remove workspace ${copy.path}: ${error.message}`);
    });
    if (closed) await removed;
    else inBackground(removed);
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

  function hookContext(
    state: ConfigState,
    workspace: string,
    info: WorkspaceCaseInfo | undefined,
    sandbox: WorkspaceSandbox | undefined,
  ): HookContext {
    const context: HookContext = {
      workspace,
      runId: options.runId,
      env: options.env,
      ...signalOption,
    };
    if (info !== undefined) context.info = info;
    if (sandbox !== undefined) context.sandbox = { sandbox, docker: state.config.docker! };
    return context;
  }

  /**
   * `after_all` in the pristine workspace: on this machine, or with `docker:`
   * in a container of its own holding it (removed after the hook).
   */
  async function afterAllHook(
    state: ConfigState,
    dir: string,
    hook: NonNullable<WorkspaceConfig['hooks']['afterAll']>,
  ) {
    // Unlike the other hooks, it runs after an interrupt too: it tears down what before_all made.
    const context = (sandbox?: WorkspaceSandbox) => {
      const { signal: _, ...unstoppable } = hookContext(state, dir, undefined, sandbox);
      return unstoppable;
    };
    if (state.config.docker === undefined) return runHook(hook, context());
    try {
      return await withOwnSandbox(state, dir, (sandbox) => runHook(hook, context(sandbox)));
    } catch (error) {
      return { reason: `could not start: ${(error as Error).message}`, output: '' };
    }
  }

  /** Runs `run` with a container of its own holding folder `dir` at `/workspace`, removed after. */
  async function withOwnSandbox<T>(
    state: ConfigState,
    dir: string,
    run: (sandbox: WorkspaceSandbox) => Promise<T>,
  ): Promise<T> {
    const started = sandboxOf(state, dir);
    try {
      return await run(await started);
    } finally {
      await destroySandbox(started);
    }
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
        const failure = await afterAllHook(state, pristine.dir, afterAll);
        if (failure !== undefined)
          log(`warning: ${hookFailureMessage('after_all', afterAll, failure)}`);
      }
      // Containers go before folders: a container holds its workspace mounted.
      await Promise.all([...live].map(destroySandbox));
      for (const { from, to } of keepAtClose) await moveToKept(from, to, options.env);
      await Promise.all(background);
      // Made for a workspace that could not be moved there in the end: not left empty.
      removeIfEmpty(keptFolder(options.root, options.runId));
      if (runFolder !== undefined) {
        const dir = await runFolder.catch(() => undefined);
        if (dir !== undefined) removeTree(dir);
      }
    },
  };
}
