/**
 * A `workspace:` block, loaded and resolved: the folder every case (or the
 * whole file, `isolation: shared`) works in. Written at the eval-file level and
 * at the case level; a case's block replaces the file's key by key (`hooks`
 * hook by hook). Key names follow upstream AgentV 4.42 (README, "Workspaces").
 */
export interface WorkspaceConfig {
  /** Absolute path of a folder copied into every workspace. */
  template?: string;
  /** Git repositories checked out into the workspace, after the template is copied. */
  repos?: WorkspaceRepo[];
  /** `per_case` (upstream's `per_test` reads as it): a workspace per case; `shared`: one per config. */
  isolation: 'per_case' | 'shared';
  /**
   * `pooled`: one workspace per worker slot, reset to its pristine state between
   * cases; `temp`: a fresh copy for every case.
   */
  mode: 'pooled' | 'temp';
  hooks: WorkspaceHooks;
  /** Set when the cases run in a container (`docker:`) instead of on this machine. */
  docker?: WorkspaceDocker;
  /**
   * Absolute folder of the file that declared the block: a hook's relative
   * `cwd` and a local repository's relative `repo` resolve against it.
   */
  baseDir: string;
  /**
   * A stable key of everything above: cases whose configs have the same key
   * share pools, caches and `before_all`/`after_all` hooks.
   */
  key: string;
}

/** One `repos:` entry. */
export interface WorkspaceRepo {
  /** Relative path inside the workspace the repository is checked out into (`.` for its root). */
  path: string;
  /** As written: a URL, or a local path (absolute, or relative to `baseDir`). */
  repo: string;
  /** The commit (or branch, tag) checked out; `base_commit` is read as it. Default: HEAD. */
  commit?: string;
  /** Walk this many first parents back from `commit` (upstream's `ancestor`). */
  ancestor?: number;
  /** Sparse-checkout paths (cone mode); default the whole tree. */
  sparse?: string[];
}

/** The four lifecycle hooks; each optional. */
export interface WorkspaceHooks {
  /** Once per workspace config, before its first case; a failure stops the run. */
  beforeAll?: WorkspaceHook;
  /** Before each case, in its workspace; a failure makes the case an error naming the hook. */
  beforeEach?: WorkspaceHook;
  /** After each case (graded or not); a failure is a warning. */
  afterEach?: WorkspaceHook;
  /** Once per workspace config, after its last case; a failure is a warning. */
  afterAll?: WorkspaceHook;
}

/** One hook. */
export interface WorkspaceHook {
  /** A string run by `/bin/sh -c`, or an argv list run without a shell. */
  command: string | string[];
  /** Killed with its process group after this long; default 60,000. */
  timeoutMs?: number;
  /** Absolute working directory; default the workspace. */
  cwd?: string;
}

/**
 * A `docker:` block, resolved: the container the workspace is mounted into
 * (at `/workspace`). Exactly one of `image` and `build`.
 */
export interface WorkspaceDocker {
  /** An image the engine already has (never pulled). */
  image?: string;
  /** Absolute path of a Dockerfile, or of a folder holding `Dockerfile`; built once per content. */
  build?: string;
  /** Memory ceiling as written (`512m`, `2g`). */
  memory?: string;
  /** `memory` in bytes. */
  memoryBytes?: number;
  /** CPU share, > 0. */
  cpus?: number;
  /** `none` (default), `bridge`, or a network's name. */
  network: string;
  /** `uid[:gid]` or a user of the image; default the image's. */
  user?: string;
  /** Added to the environment of every process in the container. */
  env: Record<string, string>;
  /** Folders of the project mounted into the container. */
  mounts: WorkspaceDockerMount[];
  /** Read-only root file system (`/workspace` and `/tmp` stay writable). Default true. */
  readOnly: boolean;
  /** Longest a process in the container may run, in seconds (upstream's `timeout`). */
  timeoutSeconds?: number;
}

/** One `docker.mounts` entry. */
export interface WorkspaceDockerMount {
  /** Absolute folder of this machine, inside the project's file roots. */
  source: string;
  /** Absolute path in the container. */
  target: string;
  readOnly: boolean;
}
