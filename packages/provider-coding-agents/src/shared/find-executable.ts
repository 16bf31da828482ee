import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

/**
 * The absolute path of the program `command` names: a path (it holds a `/`) is resolved
 * against `baseDir` (the targets file's folder), a bare name is looked up in `pathVariable`
 * as a shell would. Undefined when there is no executable file there.
 */
export function findExecutable(
  command: string,
  pathVariable: string | undefined,
  baseDir: string,
): string | undefined {
  if (command.includes('/')) {
    const resolved = path.resolve(baseDir, command);
    return isExecutableFile(resolved) ? resolved : undefined;
  }
  for (const dir of (pathVariable ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    const candidate = path.join(dir, command);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

function isExecutableFile(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}
