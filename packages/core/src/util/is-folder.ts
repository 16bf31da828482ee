import { statSync } from 'node:fs';

/** True when `path` is a folder (a link to one included); false when it is anything else or cannot be read. */
export function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
