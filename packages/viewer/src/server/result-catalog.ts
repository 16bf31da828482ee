import type { Dirent } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { ResultFileIndex } from './result-file-index.js';

/** Where the viewer reads results: folders (searched for `*.jsonl`) and single result files. */
export interface ResultSources {
  folders: string[];
  files: string[];
}

// Folders a run writes beside its result file: their files are never result files.
const ARTIFACT_FOLDER = /\.(workspaces|transcripts)$/;

/**
 * Every result file of the sources, each with its index, kept up to date by
 * `refresh()` (new files appear, grown files are read further, removed files go).
 * Keys are the files' paths relative to `base`, with `/`.
 */
export class ResultCatalog {
  private readonly indexes = new Map<string, ResultFileIndex>();

  constructor(
    readonly sources: ResultSources,
    private readonly base: string,
  ) {}

  /** Looks for new, grown and removed files; resolves to the keys of the files that changed. */
  async refresh(): Promise<string[]> {
    const found = new Set<string>();
    for (const folder of this.sources.folders) {
      for (const file of await listResultFiles(folder)) found.add(file);
    }
    for (const file of this.sources.files) found.add(path.resolve(file));
    const changed: string[] = [];
    const seen = new Set<string>();
    for (const file of found) {
      const key = this.keyOf(file);
      seen.add(key);
      const info = await stat(file).catch(() => undefined);
      if (info === undefined || !info.isFile()) continue;
      // A new or rewritten file is read into an index of its own, which replaces the one the
      // pages see only once it is read: a run never shows up empty or half-read.
      const state = { size: info.size, mtimeMs: info.mtimeMs, ino: info.ino };
      const known = this.indexes.get(key);
      const index =
        known === undefined || (await known.replacedBy(state).catch(() => true))
          ? new ResultFileIndex(file, key)
          : known;
      if (!(await index.update(state).catch(() => false))) continue;
      this.indexes.set(key, index);
      changed.push(key);
    }
    for (const key of this.indexes.keys()) {
      if (!seen.has(key)) {
        this.indexes.delete(key);
        changed.push(key);
      }
    }
    return changed;
  }

  keyOf(file: string): string {
    return path.relative(this.base, file).split(path.sep).join('/');
  }

  get(key: string): ResultFileIndex | undefined {
    return this.indexes.get(key);
  }

  /** Every file, oldest run first. */
  all(): ResultFileIndex[] {
    return [...this.indexes.values()].sort((a, b) => {
      const left = a.summary().startedAt ?? '';
      const right = b.summary().startedAt ?? '';
      return left < right ? -1 : left > right ? 1 : a.key < b.key ? -1 : 1;
    });
  }

  /**
   * Resolves a path under the sources to a real file path, or undefined when it is outside them
   * (after `..`, and after following symlinks): the folders given, or the artifact folders
   * beside a result file given alone.
   */
  async containedFile(relative: string): Promise<string | undefined> {
    if (relative.includes('\0')) return undefined;
    const wanted = path.resolve(this.base, relative);
    const real = await realpath(wanted).catch(() => undefined);
    if (real === undefined) return undefined;
    const info = await stat(real).catch(() => undefined);
    if (info === undefined || !info.isFile()) return undefined;
    const allowed: string[] = [];
    for (const folder of this.sources.folders) {
      allowed.push(await realpath(folder).catch(() => path.resolve(folder)));
    }
    for (const file of this.sources.files) {
      const realFile = await realpath(file).catch(() => path.resolve(file));
      if (real === realFile) return real;
      const stem = realFile.replace(/\.jsonl$/i, '');
      allowed.push(`${stem}.workspaces`, `${stem}.transcripts`);
    }
    return allowed.some((root) => real.startsWith(`${root}${path.sep}`)) ? real : undefined;
  }
}

/** The `*.jsonl` files under `folder`, at any depth, skipping artifact folders and symlinks. */
async function listResultFiles(folder: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string, depth: number): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (depth < 4 && !ARTIFACT_FOLDER.test(entry.name)) await walk(full, depth + 1);
      } else if (entry.isFile() && entry.name.toLowerCase().endsWith('.jsonl')) {
        out.push(path.resolve(full));
      }
    }
  };
  await walk(folder, 0);
  return out;
}
