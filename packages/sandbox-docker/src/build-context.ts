import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { AgentvError } from '@agentv/core';

/** A `build:` resolved: the context folder and the Dockerfile's path inside it. */
export interface BuildContext {
  dir: string;
  dockerfile: string;
  /** The image tag: `agentv-build:<first 16 hex of the hash of every file of the context>`. */
  tag: string;
}

/**
 * Reads a `build:` path (a Dockerfile, or a folder holding `Dockerfile`): the
 * context is the Dockerfile's folder, and the tag a hash of its files' paths,
 * modes and contents, so an unchanged context names an image already built.
 */
export async function readBuildContext(build: string): Promise<BuildContext> {
  const info = await stat(build).catch(() => undefined);
  if (info === undefined) {
    throw new AgentvError(`build: "${build}" not found`, {
      hint: 'name a Dockerfile, or a folder holding one',
    });
  }
  const dir = info.isDirectory() ? build : path.dirname(build);
  const dockerfile = info.isDirectory() ? 'Dockerfile' : path.basename(build);
  if (info.isDirectory() && !(await stat(path.join(dir, dockerfile)).catch(() => undefined))) {
    throw new AgentvError(`build: "${build}" holds no Dockerfile`, {
      hint: 'add a Dockerfile to the folder, or name the file, e.g. `build: ./docker/agent.Dockerfile`',
    });
  }
  const hash = createHash('sha256').update(`dockerfile ${dockerfile}\0`);
  for (const file of await listFiles(dir)) {
    const absolute = path.join(dir, file);
    const fileInfo = await stat(absolute);
    hash.update(`${file}\0${fileInfo.mode & 0o777}\0${fileInfo.size}\0`);
    hash.update(await readFile(absolute));
  }
  return { dir, dockerfile, tag: `agentv-build:${hash.digest('hex').slice(0, 16)}` };
}

/** Every file under `dir`, as sorted relative paths with `/` (symbolic links as links are left out). */
async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) =>
      path.relative(dir, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'),
    )
    .sort();
}
