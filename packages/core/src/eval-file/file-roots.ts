import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { ancestorsOf } from '../util/find-repo-root.js';
import { isAtOrInside } from '../util/is-at-or-inside.js';

/**
 * The folders files named by an eval file or its dataset may be in: the
 * project root and the extra roots of `allowed_file_roots`. Paths are real
 * (symlinks resolved), so a link inside the project that points out of it
 * is seen as outside.
 */
export interface FileRoots {
  /** The project root as found (`findProjectRoot`), for messages. */
  projectRoot: string;
  /** True when neither `.agentv/` nor `.git` was found: the project root is the eval file's folder. */
  rootIsEvalDir: boolean;
  /** Real paths of the project root and each allowed root. */
  real: readonly string[];
}

/** Why a file is refused: outside every root, or in a system folder AgentV never reads. */
export type FileRootRefusal =
  | { kind: 'outside'; resolved: string; realPath: string }
  | { kind: 'system'; resolved: string; realPath: string; folder: string };

/**
 * Folders never read, whatever the roots (a project at `/` included): they
 * hold the environment and memory of running processes, kernel state and
 * devices, not eval fixtures. `/dev/shm` is ordinary shared-memory storage.
 */
const SYSTEM_FOLDERS = ['/proc', '/sys', '/dev'];
const ORDINARY_UNDER_SYSTEM = ['/dev/shm'];

/**
 * The project root of an eval file in `startDir`: the nearest folder at or
 * above it holding a `.agentv/` folder or a `.git` entry (whichever comes
 * first, so a repository's root bounds the search), else `startDir` itself.
 */
export async function findProjectRoot(startDir: string): Promise<{ root: string; found: boolean }> {
  for (const dir of ancestorsOf(startDir)) {
    const [agentv, git] = await Promise.all([
      stat(path.join(dir, '.agentv')).catch(() => undefined),
      stat(path.join(dir, '.git')).catch(() => undefined),
    ]);
    if (agentv?.isDirectory() || git !== undefined) return { root: dir, found: true };
  }
  return { root: path.resolve(startDir), found: false };
}

/** The roots of an eval file in `evalDir`, with the absolute folders of `allowed_file_roots`. */
export async function fileRootsFor(
  evalDir: string,
  allowedFileRoots: readonly string[] = [],
  projectRoot?: string,
): Promise<FileRoots> {
  const found =
    projectRoot === undefined
      ? await findProjectRoot(evalDir)
      : { root: path.resolve(projectRoot), found: true };
  const real = await Promise.all([found.root, ...allowedFileRoots].map(realOrResolved));
  return { projectRoot: found.root, rootIsEvalDir: !found.found, real: [...new Set(real)] };
}

/**
 * Checks an existing file against `roots`: undefined when it may be read,
 * else why not. `filePath` is absolute; its real path decides.
 */
export async function checkFileRoot(
  filePath: string,
  roots: FileRoots,
): Promise<FileRootRefusal | undefined> {
  const resolved = path.resolve(filePath);
  const realPath = await realOrResolved(resolved);
  const folder = systemFolderOf(realPath) ?? systemFolderOf(resolved);
  if (folder !== undefined) return { kind: 'system', resolved, realPath, folder };
  if (roots.real.some((root) => isAtOrInside(realPath, root))) return undefined;
  return { kind: 'outside', resolved, realPath };
}

/**
 * The refusal of a path in /proc, /sys or /dev as written, before anything
 * is read from the disk (devices are no regular files, yet deserve the same
 * answer); undefined for other paths.
 */
export function systemFolderRefusal(filePath: string): FileRootRefusal | undefined {
  const resolved = path.resolve(filePath);
  const folder = systemFolderOf(resolved);
  return folder === undefined
    ? undefined
    : { kind: 'system', resolved, realPath: resolved, folder };
}

/** The same check, memoised by path in `cache` (shared by every file block of an eval file). */
export function checkFileRootOnce(
  filePath: string,
  roots: FileRoots,
  cache: Map<string, Promise<FileRootRefusal | undefined>>,
): Promise<FileRootRefusal | undefined> {
  let check = cache.get(filePath);
  if (check === undefined) {
    check = checkFileRoot(filePath, roots);
    cache.set(filePath, check);
  }
  return check;
}

/**
 * The message and hint of an issue about a refused file; `what` names it as
 * the user wrote it (`file "../x.txt"`, `dataset ../d.jsonl`), `written` is
 * the path alone (not repeated when it is the absolute path it resolved to).
 */
export function describeRefusal(
  what: string,
  written: string,
  refusal: FileRootRefusal,
  roots: FileRoots,
): { message: string; hint: string } {
  const { resolved, realPath } = refusal;
  // "resolves to X, outside…" when the path written is not X itself, else "is outside…".
  const where =
    realPath !== resolved
      ? `${what} resolves to ${resolved}, a link to ${realPath},`
      : written === resolved
        ? `${what} is`
        : `${what} resolves to ${resolved},`;
  if (refusal.kind === 'system') {
    return {
      message: `${where} in ${refusal.folder}: AgentV never reads /proc, /sys or /dev`,
      hint: 'they hold the environment of running processes, kernel state and devices; attach a file of the project instead',
    };
  }
  const project = roots.rootIsEvalDir
    ? ' (no .agentv/ folder or .git above the eval file, so the project root is its folder; `agentv init` in the top folder of the project makes one)'
    : '';
  return {
    message: `${where} outside the project root ${roots.projectRoot}${project}`,
    hint: 'move the file into the project, or add its folder to `allowed_file_roots` in .agentv/config.yaml, e.g. `allowed_file_roots: [../shared-fixtures]`, relative to the folder holding .agentv/',
  };
}

/** The system folder `target` is in, if any (never on Windows, which has none of them). */
function systemFolderOf(target: string): string | undefined {
  if (process.platform === 'win32') return undefined;
  if (ORDINARY_UNDER_SYSTEM.some((folder) => isAtOrInside(target, folder))) return undefined;
  return SYSTEM_FOLDERS.find((folder) => isAtOrInside(target, folder));
}

async function realOrResolved(target: string): Promise<string> {
  const resolved = path.resolve(target);
  return realpath(resolved).catch(() => resolved);
}
