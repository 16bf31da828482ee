import { chmodSync, lstatSync, readdirSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { removeFolder } from '../util/remove-folder.js';

/**
 * Removes `path` and everything under it; nothing when it does not exist. A
 * folder an agent made unreadable or unwritable (`chmod 000`) is given its
 * owner's permissions back first, so it can be removed.
 */
export function removeTree(path: string): void {
  try {
    rmSync(path, { recursive: true, force: true, maxRetries: 2 });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EACCES' && code !== 'EPERM') throw error;
    openUp(path);
    rmSync(path, { recursive: true, force: true, maxRetries: 2 });
  }
}

/** `removeTree` off the main thread: for trees nobody waits for. */
export async function removeTreeLater(path: string): Promise<void> {
  try {
    await removeFolder(path);
    return;
  } catch {
    // Gone already, not a folder, or something in it may not be removed: as `rm` deals with it.
  }
  try {
    await rm(path, { recursive: true, force: true, maxRetries: 2 });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EACCES' && code !== 'EPERM') throw error;
    openUp(path);
    await rm(path, { recursive: true, force: true, maxRetries: 2 });
  }
}

function openUp(path: string): void {
  let stats: ReturnType<typeof lstatSync>;
  try {
    stats = lstatSync(path);
  } catch {
    return;
  }
  if (!stats.isDirectory()) return;
  try {
    chmodSync(path, 0o700);
  } catch {
    return;
  }
  for (const name of readdirSync(path)) openUp(join(path, name));
}
