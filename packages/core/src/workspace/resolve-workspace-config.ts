import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type {
  WorkspaceConfig,
  WorkspaceDocker,
  WorkspaceHook,
  WorkspaceRepo,
} from './workspace-config.js';

/** A hook as one block writes it: every key optional, so a case can change one of them. */
export type WorkspaceHookLayer = Partial<WorkspaceHook>;

/**
 * A `workspace:` block as one file declares it, its paths already absolute
 * (`template`, local `repos`, hook `cwd`); a key it does not write is absent.
 */
export interface WorkspaceLayer {
  template?: string;
  repos?: WorkspaceRepo[];
  isolation?: WorkspaceConfig['isolation'];
  mode?: WorkspaceConfig['mode'];
  hooks?: {
    enabled?: boolean;
    beforeAll?: WorkspaceHookLayer;
    beforeEach?: WorkspaceHookLayer;
    afterEach?: WorkspaceHookLayer;
    afterAll?: WorkspaceHookLayer;
  };
  /** A `docker:` block, replaced as a whole by a case's. */
  docker?: WorkspaceDocker;
  /** Absolute folder of the file that declared the block. */
  baseDir: string;
}

const HOOKS = ['beforeAll', 'beforeEach', 'afterEach', 'afterAll'] as const;

/**
 * A case's block over its file's: each key the case writes replaces the
 * file's (`repos` as a whole), `hooks` hook by hook and, within a hook, key by
 * key; `baseDir` is the case's.
 */
export function mergeWorkspaceLayers(
  fileLayer: WorkspaceLayer | undefined,
  caseLayer: WorkspaceLayer,
): WorkspaceLayer {
  if (fileLayer === undefined) return caseLayer;
  const merged: WorkspaceLayer = { baseDir: caseLayer.baseDir };
  const template = caseLayer.template ?? fileLayer.template;
  if (template !== undefined) merged.template = template;
  const repos = caseLayer.repos ?? fileLayer.repos;
  if (repos !== undefined) merged.repos = repos;
  const isolation = caseLayer.isolation ?? fileLayer.isolation;
  if (isolation !== undefined) merged.isolation = isolation;
  const mode = caseLayer.mode ?? fileLayer.mode;
  if (mode !== undefined) merged.mode = mode;
  const docker = caseLayer.docker ?? fileLayer.docker;
  if (docker !== undefined) merged.docker = docker;
  if (fileLayer.hooks !== undefined || caseLayer.hooks !== undefined) {
    const hooks: NonNullable<WorkspaceLayer['hooks']> = {};
    const enabled = caseLayer.hooks?.enabled ?? fileLayer.hooks?.enabled;
    if (enabled !== undefined) hooks.enabled = enabled;
    for (const name of HOOKS) {
      const fileHook = fileLayer.hooks?.[name];
      const caseHook = caseLayer.hooks?.[name];
      if (fileHook !== undefined || caseHook !== undefined) {
        hooks[name] = { ...fileHook, ...caseHook };
      }
    }
    merged.hooks = hooks;
  }
  return merged;
}

/**
 * The resolved configuration of a layer: defaults applied (`per_case`,
 * `pooled`), hooks without a command left out (all of them with
 * `enabled: false`), and `key`, the JSON of every resolved field in a fixed
 * order, so equal configurations have equal keys.
 */
export function resolveWorkspaceConfig(layer: WorkspaceLayer): WorkspaceConfig {
  const hooks: WorkspaceConfig['hooks'] = {};
  if (layer.hooks?.enabled !== false) {
    for (const name of HOOKS) {
      const hook = layer.hooks?.[name];
      if (hook?.command === undefined) continue;
      // Fixed key order: the key below is their JSON.
      const resolved: WorkspaceHook = { command: hook.command };
      if (hook.timeoutMs !== undefined) resolved.timeoutMs = hook.timeoutMs;
      if (hook.cwd !== undefined) resolved.cwd = hook.cwd;
      hooks[name] = resolved;
    }
  }
  const config: WorkspaceConfig = {
    isolation: layer.isolation ?? 'per_case',
    mode: layer.mode ?? 'pooled',
    hooks,
    baseDir: layer.baseDir,
    key: '',
  };
  if (layer.template !== undefined) config.template = layer.template;
  if (layer.repos !== undefined) config.repos = layer.repos;
  if (layer.docker !== undefined) config.docker = layer.docker;
  config.key = JSON.stringify([
    config.template ?? null,
    config.repos ?? null,
    config.isolation,
    config.mode,
    HOOKS.map((name) => hooks[name] ?? null),
    config.baseDir,
    config.docker ?? null,
  ]);
  return config;
}

/** Where a `repos[].repo` value points. */
export type RepoSource =
  /** A repository on this machine: `path` is absolute (resolved against `baseDir`). */
  | { kind: 'local'; path: string }
  /** A repository reached over the network; `url` is what `git clone` accepts. */
  | { kind: 'remote'; url: string };

const URL_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
const SCP_LIKE = /^[^\s/@]+@[^\s/:]+:/;
const GITHUB_SHORTHAND = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;

/**
 * Reads a `repo:` value as upstream AgentV 4 does, plus local paths: a URL
 * with a scheme (`file://` is local), `user@host:path`, an absolute path or
 * one starting with `./` or `../` (local, against `baseDir`), GitHub's
 * `org/name` (remote, on github.com), anything else a local path.
 */
export function repoSource(repo: string, baseDir: string): RepoSource {
  if (URL_SCHEME.test(repo)) {
    return repo.toLowerCase().startsWith('file://')
      ? { kind: 'local', path: fileURLToPath(repo) }
      : { kind: 'remote', url: repo };
  }
  if (path.isAbsolute(repo)) return { kind: 'local', path: path.normalize(repo) };
  if (isExplicitlyRelative(repo)) return { kind: 'local', path: path.resolve(baseDir, repo) };
  if (SCP_LIKE.test(repo)) return { kind: 'remote', url: repo };
  if (GITHUB_SHORTHAND.test(repo)) {
    return { kind: 'remote', url: `https://github.com/${repo.replace(/\.git$/, '')}.git` };
  }
  return { kind: 'local', path: path.resolve(baseDir, repo) };
}

/** True for GitHub's `org/name`, which a folder beside the eval file could also be meant as. */
export function isGithubShorthand(repo: string): boolean {
  return !URL_SCHEME.test(repo) && !isExplicitlyRelative(repo) && GITHUB_SHORTHAND.test(repo);
}

function isExplicitlyRelative(repo: string): boolean {
  return (
    repo === '.' ||
    repo === '..' ||
    repo.startsWith('./') ||
    repo.startsWith('../') ||
    repo.startsWith('.\\') ||
    repo.startsWith('..\\')
  );
}
