import path from 'node:path';

/**
 * Whether `target` is `folder` or inside it. Both are absolute and normalised, as `path.resolve`
 * gives them; symbolic links are not followed (resolve them first where they matter).
 */
export function isAtOrInside(target: string, folder: string): boolean {
  if (target === folder) return true;
  return target.startsWith(folder.endsWith(path.sep) ? folder : `${folder}${path.sep}`);
}
