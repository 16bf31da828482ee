import path from 'node:path';

/** `.agentv/results/<command>_<timestamp>.<extension>`, relative to cwd. */
export function defaultResultPath(extension: string, command = 'eval'): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  return path.join('.agentv', 'results', `${command}_${stamp}.${extension}`);
}
