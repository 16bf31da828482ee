import path from 'node:path';

/**
 * `file` as shown to the user: relative to `cwd` when it is inside it, else
 * as given (also when it is `cwd` itself, which would otherwise show as empty).
 */
export function displayPath(cwd: string, file: string): string {
  if (!path.isAbsolute(file)) return file;
  const relative = path.relative(cwd, file);
  return relative === '' || relative.startsWith('..') || path.isAbsolute(relative)
    ? file
    : relative;
}
