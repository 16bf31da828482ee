import { createHash } from 'node:crypto';
import { isAbsolute, join, resolve } from 'node:path';
import { GitCommandError, runGit } from './git-command.js';
import type { WorkspaceRepo } from './workspace-config.js';
import { WorkspaceSetupError } from './workspace-errors.js';

/** A repository cloned once for the run, and the commit a `repos:` entry checks out of it. */
export interface CachedRepo {
  /** The run's bare mirror of the repository. */
  gitDir: string;
  /** Where the repository is: the URL, or the local path resolved against `baseDir`. */
  location: string;
  /** The full commit id the entry checks out (`commit`, walked back `ancestor` first parents). */
  commit: string;
}

/** Clones each repository once per run. */
export interface RepoCache {
  /** The clone for `repo` (made on first use) and the commit it names. */
  get(repo: WorkspaceRepo, baseDir: string, label: string): Promise<CachedRepo>;
}

export interface RepoCacheOptions {
  /** A folder the run owns; removed with it. */
  dir: string;
  env: Readonly<Record<string, string | undefined>>;
  signal?: AbortSignal;
}

const CLONE_TIMEOUT_MS = 30 * 60_000;

/**
 * A cache of `git clone --mirror --no-local` copies: the user's repository
 * is only read, and nothing a workspace does reaches the cache, since every
 * workspace clones from it without hard links or alternates.
 */
export function createRepoCache(options: RepoCacheOptions): RepoCache {
  const clones = new Map<string, Promise<string>>();
  const git = (args: string[], cwd: string) =>
    runGit(args, {
      cwd,
      env: options.env,
      timeoutMs: CLONE_TIMEOUT_MS,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  return {
    async get(repo, baseDir, label) {
      const location = isRemote(repo.repo) ? repo.repo : resolve(baseDir, repo.repo);
      let clone = clones.get(location);
      if (clone === undefined) {
        const gitDir = join(
          options.dir,
          `${createHash('sha256').update(location).digest('hex').slice(0, 16)}.git`,
        );
        // --no-local: through git's pack transport even from a path, so the clone holds a few
        // packs rather than a copy of every loose object, which each reset would walk.
        clone = git(
          ['clone', '--mirror', '--no-local', '--quiet', '--', location, gitDir],
          options.dir,
        ).then(() => gitDir);
        clones.set(location, clone);
      }
      let gitDir: string;
      try {
        gitDir = await clone;
      } catch (error) {
        throw setupError(
          error,
          `${label}: could not clone ${repo.repo}`,
          cloneHint(repo, location),
        );
      }
      const name = repo.commit ?? 'HEAD';
      const walk = repo.ancestor ? `~${repo.ancestor}` : '';
      try {
        const commit = await git(
          ['rev-parse', '--verify', '--quiet', '--end-of-options', `${name}${walk}^{commit}`],
          gitDir,
        );
        return { gitDir, location, commit: commit.trim() };
      } catch (error) {
        const what = repo.ancestor ? `${name} walked back ${repo.ancestor} first parents` : name;
        // `rev-parse --quiet` says nothing: the message is the whole story.
        throw new WorkspaceSetupError(`${label}: ${repo.repo} has no commit ${what}`, {
          hint: 'check `commit` (a full or abbreviated id, a branch or a tag of the repository) and `ancestor`',
          cause: error,
        });
      }
    },
  };
}

/** A URL (`https://…`, `ssh://…`, `file://…`) or scp-like `user@host:path`, not a local path. */
export function isRemote(repo: string): boolean {
  return (
    /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(repo) || (/^[^/]+@[^/]+:/.test(repo) && !isAbsolute(repo))
  );
}

function cloneHint(repo: WorkspaceRepo, location: string): string {
  return isRemote(repo.repo)
    ? 'check the URL and that git can reach it without asking for a password (a credential helper or an SSH key)'
    : `check that ${location} is a git repository (relative paths resolve against the eval file's folder)`;
}

function setupError(error: unknown, message: string, hint: string): WorkspaceSetupError {
  const detail = error instanceof GitCommandError ? error.stderrLine : (error as Error).message;
  return new WorkspaceSetupError(detail === '' ? message : `${message}: ${detail}`, {
    hint,
    cause: error,
  });
}
