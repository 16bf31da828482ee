import { existsSync, readdirSync, rmdirSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, rename } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeTempDir } from '../process/make-temp-dir.js';
import { copyTree } from './copy-tree.js';
import { removeTree } from './remove-tree.js';

/** The file that marks a folder under `--workspace-root` as a run folder AgentV made. */
export const RUN_FOLDER_MARKER = '.agentv-run-folder';

const RUN_FOLDER_PATTERN = /^agentv-run-(\d+)-[A-Za-z0-9]{6}$/;

/**
 * Makes the folder one run's workspaces, clones and scratch files live in.
 * Without `root`: a `makeTempDir` folder, which the watchdog removes if AgentV
 * is killed, and the next run sweeps otherwise. Under `root`: a marked
 * `agentv-run-<pid>-XXXXXX` folder; run folders there whose process is gone
 * are removed first (only marked ones: nothing AgentV did not make). Either
 * way, the empty kept folders of earlier runs go too (`sweepEmptyKeptFolders`).
 */
export async function makeRunFolder(root: string | undefined): Promise<string> {
  sweepEmptyKeptFolders(root);
  if (root === undefined) return makeTempDir('workspaces');
  await mkdir(root, { recursive: true });
  sweepRoot(root);
  const dir = await mkdtemp(join(root, `agentv-run-${process.pid}-`));
  writeFileSync(join(dir, RUN_FOLDER_MARKER), `${process.pid}\n`);
  return dir;
}

/** Removes the run folders under `root` that killed runs left. */
export function sweepRoot(root: string): void {
  for (const name of readdirSync(root)) {
    const match = RUN_FOLDER_PATTERN.exec(name);
    if (match === null) continue;
    const pid = Number(match[1]);
    const dir = join(root, name);
    if (pid === process.pid || isAlive(pid) || !existsSync(join(dir, RUN_FOLDER_MARKER))) continue;
    try {
      removeTree(dir);
    } catch {
      // Another run may be sweeping it at the same time; what is left goes next time.
    }
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The folder kept workspaces of run `runId` move to, outside the run folder
 * so no sweep removes them: `<root>/<runId>/` with `--workspace-root`, else
 * `<temp>/agentv-workspaces-kept/<runId>/`.
 */
export function keptFolder(root: string | undefined, runId: string): string {
  return join(root ?? join(tmpdir(), 'agentv-workspaces-kept'), safeName(runId));
}

/** The names `keptFolder` gives runs: the CLI's run ids, and the library's default ones. */
const KEPT_FOLDER_PATTERN = /^(?:[0-9a-f]{16}|run-[0-9a-z]+-[0-9a-f]{6})$/;

/**
 * Removes the kept folders (`keptFolder`) of earlier runs that are empty: the
 * user removed the workspaces kept in them, as the end-of-run list asks. Only
 * empty folders named as runs are: `rmdir` removes nothing else.
 */
export function sweepEmptyKeptFolders(root: string | undefined): void {
  const base = root ?? join(tmpdir(), 'agentv-workspaces-kept');
  let names: string[];
  try {
    names = readdirSync(base);
  } catch {
    return;
  }
  for (const name of names) {
    if (KEPT_FOLDER_PATTERN.test(name)) removeIfEmpty(join(base, name));
  }
}

/** Removes folder `path` when it is empty; nothing otherwise. */
export function removeIfEmpty(path: string): void {
  try {
    rmdirSync(path);
  } catch {
    // Not empty, not a folder, or gone: all fine.
  }
}

/**
 * Moves workspace `from` to `to` in a kept folder, making the folder; made
 * again when a sweep of another run removed it, empty, in between.
 */
export async function moveToKept(
  from: string,
  to: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await mkdir(join(to, '..'), { recursive: true });
    try {
      await moveFolder(from, to, env);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || attempt === 3 || !existsSync(from))
        throw error;
    }
  }
}

/** `text` as one file name: letters, digits, `.`, `_` and `-`; others become `-`. */
export function safeName(text: string): string {
  const name = text.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[.-]+/, '');
  return name === '' ? 'workspace' : name.slice(0, 100);
}

/** Moves folder `from` to `to` (a new path): a rename, or a copy across file systems. */
export async function moveFolder(
  from: string,
  to: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<void> {
  try {
    await rename(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    await copyTree(from, to, env);
    removeTree(from);
  }
}
